// The signed-in feed on a mid-range phone (issue 31), measured in Debian's Chromium against the real
// server (compiled server, a production web build, a member whose feed holds realistic pages).
//
//   npx tsx bench/web/feed.ts bytes      [--dist DIR]...   JavaScript the signed-in feed loads (gzip)
//   npx tsx bench/web/feed.ts burst      [--dist DIR]...   long tasks while 100 alerts arrive on 500 cards (4x CPU), BENCH_BURST_OPEN_S
//   npx tsx bench/web/feed.ts scroll     [--dist DIR]...   long tasks and frames while scrolling 1,000 cards (4x CPU)
//   npx tsx bench/web/feed.ts renders    [--dist DIR]...   React commits and component renders per live event
//   npx tsx bench/web/feed.ts firstcard  [--dist DIR]... [--profile]   first card on screen, cold and warm (service worker), 4x CPU + slow 4G
//   npx tsx bench/web/feed.ts lighthouse [--dist DIR]... [--runs 3]   login and feed (50 alerts), mobile and desktop
//
// Each --dist is a web build (`npx vite build --outDir DIR` in web/; default web/dist) served by its
// own server; with several, the runs are interleaved (A, B, A, B...) so the load of a shared machine
// weighs on each build alike. `renders` needs an unminified build (`--minify false`) to name components.
import { mkdirSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { launch } from "chrome-launcher";
import lighthouse, { desktopConfig, type Result } from "lighthouse";
import { type CDPSession, chromium, type Page } from "playwright-core";
import type { SignedInSession } from "../../e2e/support/alerts.js";
import { openBrowser } from "../../e2e/support/browser.js";
import {
  FEED_ADMIN_PHONE,
  FEED_INGEST_KEY,
  ingestTurnoutPages,
  recordScripts,
  seedMemberFeed,
} from "../../e2e/support/feed-fixture.js";
import { type RunningServer, startServer } from "../../e2e/support/server.js";
import { ensureServerBuilt } from "../../scripts/server-build.mjs";
// @ts-expect-error: a plain .mjs build helper shared with `npm start`
import { ensureWebBuilt } from "../../scripts/web-build.mjs";
import { machineLine } from "../support/machine.js";

const PHONE = { width: 412, height: 823 };
const chromePath = process.env.CHROME_PATH || process.env.CHROMIUM_PATH || "/usr/bin/chromium";

function argValues(name: string): string[] {
  const out: string[] = [];
  process.argv.forEach((arg, i) => {
    if (arg === name && process.argv[i + 1]) out.push(process.argv[i + 1] as string);
  });
  return out;
}

const load = () => (loadavg()[0] ?? 0).toFixed(2);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;

type Build = { name: string; server: RunningServer; session: SignedInSession };

/** Every other round goes through the builds backwards, so none always runs right after another. */
const inTurn = (builds: Build[], round: number) => (round % 2 === 0 ? builds : [...builds].reverse());

async function startBuild(dist: string, alerts: number): Promise<Build> {
  const server = await startServer({
    INGEST_API_KEY: FEED_INGEST_KEY,
    ADMIN_PHONES: FEED_ADMIN_PHONE,
    WEB_DIST_DIR: path.resolve(dist),
  });
  const session = await seedMemberFeed(server, alerts);
  return { name: dist, server, session };
}

/** Puts the session in the origin's storage without loading the app (no script cached, no worker). */
async function storeSession(page: Page, build: Build): Promise<void> {
  await page.goto(`${build.server.url}/api/health`);
  const s = build.session;
  await page.evaluate(`(() => {
    localStorage.setItem("turnout_token", ${JSON.stringify(s.token)});
    localStorage.setItem("turnout_user", ${JSON.stringify(JSON.stringify(s.user))});
    localStorage.setItem("turnout_agency", ${JSON.stringify(JSON.stringify(s.agency))});
  })()`);
}

/** Lighthouse's mobile profile by hand: 4x CPU slowdown, and optionally its slow 4G. */
async function throttle(page: Page, { network = false } = {}): Promise<CDPSession> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Emulation.setCPUThrottlingRate", { rate: 4 });
  if (network) {
    await cdp.send("Network.enable");
    await cdp.send("Network.emulateNetworkConditions", {
      offline: false,
      latency: 150,
      downloadThroughput: (1.6 * 1024 * 1024) / 8,
      uploadThroughput: (750 * 1024) / 8,
    });
  }
  return cdp;
}

// Runs before the app: long tasks, and the moment the first alert card is in the page.
const OBSERVE = `(() => {
  window.__longTasks = [];
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.__longTasks.push({ start: e.startTime, duration: e.duration });
    }).observe({ type: "longtask", buffered: true });
  } catch {}
  const seen = () => {
    if (window.__firstCard === undefined && document.querySelector("article[data-alert-id]")) {
      window.__firstCard = performance.now();
    }
  };
  new MutationObserver(seen).observe(document, { childList: true, subtree: true });
})();`;

type LongTask = { start: number; duration: number };
const longTasksSince = (page: Page, since: number): Promise<LongTask[]> =>
  page.evaluate(`window.__longTasks.filter((e) => e.start >= ${since})`);
const pageNow = (page: Page) => page.evaluate<number>("performance.now()");

function describeTasks(tasks: LongTask[]): string {
  const durations = tasks.map((t) => Math.round(t.duration)).sort((a, b) => b - a);
  const over50 = durations.filter((d) => d > 50);
  return `${tasks.length} long tasks, longest ${durations[0] ?? 0} ms, ${over50.length} over 50 ms (${durations.slice(0, 8).join(", ")}${durations.length > 8 ? ", ..." : ""}), blocking ${durations.reduce((s, d) => s + Math.max(0, d - 50), 0)} ms`;
}

async function bytes(builds: Build[]) {
  for (const build of builds) {
    const browser = await openBrowser({ viewport: PHONE });
    try {
      await storeSession(browser.page, build);
      const recorder = recordScripts(browser.page);
      await browser.page.goto(`${build.server.url}/`);
      await browser.page.locator("article[data-alert-id]").first().waitFor({ timeout: 30_000 });
      await browser.page.locator('[data-connection="connected"]').waitFor({ timeout: 30_000 });
      // Whatever the page fetches after its first paint (socket.io, lazy parts) counts too.
      await browser.page.waitForTimeout(3_000);
      const scripts = (await recorder.scripts()).sort((a, b) => b.gzip - a.gzip);
      const total = scripts.reduce((sum, s) => sum + s.gzip, 0);
      process.stdout.write(`\n${build.name}: signed-in feed loads ${(total / 1000).toFixed(1)} KB gzip\n`);
      process.stdout.write("| script | raw | gzip |\n|---|---:|---:|\n");
      for (const s of scripts) {
        process.stdout.write(
          `| ${new URL(s.url).pathname} | ${(s.raw / 1000).toFixed(1)} KB | ${(s.gzip / 1000).toFixed(1)} KB |\n`,
        );
      }
    } finally {
      await browser.close();
    }
  }
}

/** Opens the feed of `build` on a phone at 4x CPU with the observers in place; resolves with the page. */
async function openFeed(build: Build) {
  const browser = await openBrowser({ viewport: PHONE });
  await browser.context.addInitScript({ content: OBSERVE });
  await storeSession(browser.page, build);
  const cdp = await throttle(browser.page);
  await browser.page.goto(`${build.server.url}/`);
  await browser.page.locator('[data-connection="connected"]').waitFor({ timeout: 60_000 });
  await browser.page.locator("article[data-alert-id]").first().waitFor({ timeout: 60_000 });
  return { ...browser, cdp };
}

type ProfileNode = { id: number; callFrame: { functionName: string; url: string; lineNumber: number } };
type Profile = { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] };

type Frame = ProfileNode["callFrame"];
const frameKey = (frame: Frame) =>
  `${frame.functionName || "(anonymous)"} ${frame.url.split("/").pop() || "(native)"}:${frame.lineNumber + 1}`;
const isIdle = (frame: Frame | undefined) =>
  !frame || frame.functionName === "(idle)" || frame.functionName === "(program)";

/**
 * Self time by function (name, file:line) of a CPU profile's samples `from`..`to`, the heaviest first,
 * with the time by script file and (`inclusive`) the heaviest functions counting what they call.
 */
function selfTimes(profile: Profile, top = 25, from = 0, to = profile.samples.length, inclusive = 0): string {
  const byNode = new Map(profile.nodes.map((n) => [n.id, n]));
  const parents = new Map<number, number>();
  for (const node of profile.nodes as (ProfileNode & { children?: number[] })[]) {
    for (const child of node.children ?? []) parents.set(child, node.id);
  }
  const totals = new Map<string, number>();
  const withCallees = new Map<string, number>();
  for (let i = from; i < to; i++) {
    const id = profile.samples[i] ?? 0;
    const frame = byNode.get(id)?.callFrame;
    if (isIdle(frame) || !frame) continue;
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    totals.set(frameKey(frame), (totals.get(frameKey(frame)) ?? 0) + ms);
    const onStack = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parents.get(at)) {
      const f = byNode.get(at)?.callFrame;
      if (f?.url) onStack.add(frameKey(f));
    }
    for (const key of onStack) withCallees.set(key, (withCallees.get(key) ?? 0) + ms);
  }
  const busy = [...totals];
  const byFile = new Map<string, number>();
  for (const [key, ms] of busy) {
    const file = key.slice(key.lastIndexOf(" ") + 1).replace(/-[\w-]{8}\.js:\d+$|:\d+$/, "");
    byFile.set(file, (byFile.get(file) ?? 0) + ms);
  }
  const total = busy.reduce((sum, [, ms]) => sum + ms, 0);
  const files = [...byFile].sort((a, b) => b[1] - a[1]).slice(0, 10);
  const heaviest = (entries: [string, number][], n: number) =>
    entries
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([key, ms]) => `  ${ms.toFixed(0).padStart(6)} ms  ${key}`);
  return [
    `  ${total.toFixed(0)} ms busy; by file: ${files.map(([f, ms]) => `${f} ${ms.toFixed(0)}`).join(", ")}`,
    ...heaviest(busy, top),
    ...(inclusive > 0 ? ["  with what they call:", ...heaviest([...withCallees], inclusive)] : []),
  ].join("\n");
}

/**
 * The profile's main-thread tasks over 50 ms (runs of busy samples, broken by 2 ms idle), each with
 * its own self times: which work makes which long task.
 */
function longSpans(profile: Profile): string {
  const byNode = new Map(profile.nodes.map((n) => [n.id, n]));
  const spans: { from: number; to: number; ms: number; at: number }[] = [];
  let idle = Number.POSITIVE_INFINITY;
  let clock = 0;
  profile.samples.forEach((id, i) => {
    const delta = (profile.timeDeltas[i] ?? 0) / 1000;
    clock += delta;
    if (isIdle(byNode.get(id)?.callFrame)) {
      idle += delta;
      return;
    }
    const last = spans.at(-1);
    if (last && idle < 2) {
      last.to = i + 1;
      last.ms = clock - last.at;
    } else spans.push({ from: i, to: i + 1, ms: delta, at: clock });
    idle = 0;
  });
  return spans
    .filter((span) => span.ms > 50)
    .map(
      (span) =>
        `task at ${span.at.toFixed(0)} ms, ${span.ms.toFixed(0)} ms:\n${selfTimes(profile, 12, span.from, span.to, 15)}`,
    )
    .join("\n");
}

/** Loads every older page (scrolling to the bottom as a reader does) until "No older alerts". */
async function loadAllCards(page: Page) {
  const done = page.getByText("No older alerts");
  for (let i = 0; i < 200 && !(await done.isVisible().catch(() => false)); i++) {
    await page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)");
    await page.waitForTimeout(400);
  }
  if (!(await done.isVisible())) throw new Error("the feed did not load to its end");
}

/**
 * How long the feed has been open when the burst comes (BENCH_BURST_OPEN_S): a feed open a while, by
 * default. The app makes its audio context 10 s after opening (PREPARE_AUDIO_AFTER_MS), so a burst
 * sooner makes it as the first page rings: BENCH_BURST_OPEN_S=0 measures that case.
 */
const BURST_OPEN_MS = Number(process.env.BENCH_BURST_OPEN_S ?? 20) * 1000;

async function burst(builds: Build[], rounds: number) {
  for (let round = 0; round < rounds; round++) {
    for (const build of inTurn(builds, round)) {
      const openedAt = Date.now();
      const browser = await openFeed(build);
      const { page } = browser;
      try {
        await loadAllCards(page);
        await page.evaluate("window.scrollTo(0, 0)");
        await page.waitForTimeout(Math.max(2_000, BURST_OPEN_MS - (Date.now() - openedAt)));
        const startedAt = await pageNow(page);
        const loadAtStart = load();
        const profiling = process.argv.includes("--profile");
        if (profiling) {
          await browser.cdp.send("Profiler.enable");
          await browser.cdp.send("Profiler.start");
        }
        // 100 pages in one batch, as a receiver replaying its spool sends them.
        await ingestTurnoutPages(build.server, 100_000 + round * 1000, 100);
        // Ten arrive one by one, the rest as alerts:refresh; the first page is read once the burst
        // has settled (2 s + up to 5 s of jitter): wait for the last one to be on top.
        await page
          .locator("article[data-alert-id]")
          .filter({ hasText: `F${261_100_000 + 100_000 + round * 1000 + 99}` })
          .waitFor({ timeout: 30_000 });
        await page.waitForTimeout(1_000);
        const tasks = await longTasksSince(page, startedAt);
        if (profiling) {
          const { profile } = (await browser.cdp.send("Profiler.stop")) as unknown as { profile: Profile };
          process.stdout.write(`burst ${build.name}: self time by function\n${selfTimes(profile)}\n`);
        }
        process.stdout.write(
          `burst ${build.name} round ${round + 1}: ${describeTasks(tasks)} (load average ${loadAtStart})\n`,
        );
        if (browser.errors.length) process.stdout.write(`  page errors: ${browser.errors.join("; ")}\n`);
      } finally {
        await browser.close();
      }
    }
  }
}

async function scroll(builds: Build[], rounds: number) {
  for (let round = 0; round < rounds; round++) {
    for (const build of inTurn(builds, round)) {
      const browser = await openFeed(build);
      const { page } = browser;
      try {
        await loadAllCards(page);
        await page.evaluate("window.scrollTo(0, 0)");
        await page.waitForTimeout(2_000);
        const startedAt = await pageNow(page);
        const loadAtStart = load();
        // Scrolls the whole list down, 40 px a frame (a brisk fling), counting frames.
        const frames = await page.evaluate<number[]>(`new Promise((resolve) => {
          const gaps = [];
          let last = performance.now();
          const step = () => {
            const t = performance.now();
            gaps.push(t - last);
            last = t;
            const before = window.scrollY;
            window.scrollBy(0, 40);
            if (window.scrollY === before) resolve(gaps);
            else requestAnimationFrame(step);
          };
          requestAnimationFrame(step);
        })`);
        const tasks = await longTasksSince(page, startedAt);
        const sorted = [...frames].sort((a, b) => a - b);
        const p95 = sorted[Math.floor(sorted.length * 0.95)] ?? 0;
        process.stdout.write(
          `scroll ${build.name} round ${round + 1}: ${frames.length} frames, median ${median(frames).toFixed(1)} ms, p95 ${p95.toFixed(1)} ms, slowest ${Math.round(sorted.at(-1) ?? 0)} ms; ${describeTasks(tasks)} (load average ${loadAtStart})\n`,
        );
      } finally {
        await browser.close();
      }
    }
  }
}

// React DevTools' hook, minimal: counts commits and the components that rendered in each (a fiber
// rendered when it is new or did work; DevTools' own test). Needs an unminified build for names.
const COUNT_RENDERS = `(() => {
  const counts = new Map();
  let commits = 0;
  const nameOf = (type) => {
    if (!type) return null;
    if (typeof type === "function") return type.displayName || type.name || null;
    if (typeof type === "object") return type.displayName || nameOf(type.type) || nameOf(type.render);
    return null;
  };
  // A fiber did work in this commit when it is new or has the PerformedWork flag; a subtree whose
  // children are the previous commit's (a bailout, e.g. a memo component with equal props) is skipped,
  // its fibers' flags being stale.
  const walk = (fiber) => {
    while (fiber) {
      if ([0, 1, 11, 15].includes(fiber.tag)) {
        const rendered = fiber.alternate === null || (fiber.flags & 1) === 1;
        const name = nameOf(fiber.type);
        if (rendered && name) counts.set(name, (counts.get(name) || 0) + 1);
      }
      if (fiber.alternate === null || fiber.child !== fiber.alternate.child) walk(fiber.child);
      fiber = fiber.sibling;
    }
  };
  window.__REACT_DEVTOOLS_GLOBAL_HOOK__ = {
    supportsFiber: true,
    renderers: new Map(),
    inject() { return 1; },
    checkDCE() {},
    onScheduleFiberRoot() {},
    onCommitFiberUnmount() {},
    onPostCommitFiberRoot() {},
    onCommitFiberRoot(_id, root) { commits += 1; walk(root.current.child); },
  };
  window.__renders = () => ({ commits, counts: Object.fromEntries(counts) });
  window.__resetRenders = () => { commits = 0; counts.clear(); };
})();`;

/** The components rendered most, "Name count", the first 40. */
const topRenders = (counts: Record<string, number>) =>
  Object.entries(counts)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 40)
    .map(([name, n]) => `${name} ${n}`)
    .join(", ");

async function renders(builds: Build[]) {
  for (const build of builds) {
    const browser = await openBrowser({ viewport: PHONE });
    const { page } = browser;
    try {
      await browser.context.addInitScript({ content: COUNT_RENDERS });
      await storeSession(page, build);
      await page.goto(`${build.server.url}/`);
      await page.locator('[data-connection="connected"]').waitFor({ timeout: 60_000 });
      await page.locator("article[data-alert-id]").first().waitFor();
      await page.waitForTimeout(1_500);
      const opening = await page.evaluate<{ commits: number; counts: Record<string, number> }>(
        "window.__renders()",
      );
      process.stdout.write(
        `renders ${build.name}: opening the feed: ${opening.commits} commits; renders by component: ${topRenders(opening.counts)}\n`,
      );
      await page.evaluate("window.__resetRenders()");
      // One live alert on an open feed of 50 cards.
      await ingestTurnoutPages(build.server, 200_000, 1);
      await page.locator("article[data-alert-id]").filter({ hasText: "F261300000" }).waitFor();
      await page.waitForTimeout(500);
      const one = await page.evaluate<{ commits: number; counts: Record<string, number> }>(
        "window.__renders()",
      );
      process.stdout.write(
        `renders ${build.name}: one live alert: ${one.commits} commits; renders by component: ${topRenders(one.counts)}\n`,
      );
    } finally {
      await browser.close();
    }
  }
}

async function firstCard(builds: Build[], rounds: number) {
  for (let round = 0; round < rounds; round++) {
    for (const build of inTurn(builds, round)) {
      const browser = await openBrowser({ viewport: PHONE });
      const { page } = browser;
      try {
        await browser.context.addInitScript({ content: OBSERVE });
        await storeSession(page, build);
        const cdp = await throttle(page, { network: true });
        // --profile: where the cold start's main-thread time goes, until 3 s after the first card (an
        // unminified build, `--minify false`, names the functions).
        const profiling = process.argv.includes("--profile");
        if (profiling) {
          await cdp.send("Profiler.enable");
          await cdp.send("Profiler.start");
        }
        const loadAtStart = load();
        await page.goto(`${build.server.url}/`);
        await page.locator("article[data-alert-id]").first().waitFor({ timeout: 60_000 });
        const cold = await page.evaluate<number>("window.__firstCard");
        // The cold start's long tasks until the first card, each at its start (what TBT is made of).
        const coldTasks = await page.evaluate<LongTask[]>(
          `window.__longTasks.filter((e) => e.start <= ${cold})`,
        );
        process.stdout.write(
          `cold start ${build.name}: ${describeTasks(coldTasks)}; at ${coldTasks.map((t) => `${Math.round(t.start)}+${Math.round(t.duration)}`).join(" ")}\n`,
        );
        if (profiling) {
          await page.waitForTimeout(3_000);
          const { profile } = (await cdp.send("Profiler.stop")) as unknown as { profile: Profile };
          // The whole profile too, for Chromium's DevTools (Performance > Load profile).
          const saved = path.join(
            tmpdir(),
            `cold-start-${path.basename(build.name)}-${round + 1}.cpuprofile`,
          );
          writeFileSync(saved, JSON.stringify(profile));
          process.stdout.write(
            `cold start ${build.name}: profile in ${saved}; self time by function\n${selfTimes(profile, 40)}\n${longSpans(profile)}\n`,
          );
        }
        // The service worker controls the page from its first visit (clientsClaim) once installed. Polled
        // from here: a string predicate polled in the page is an eval, which the app's CSP refuses.
        const deadline = Date.now() + 60_000;
        while (!(await page.evaluate<boolean>("navigator.serviceWorker.controller !== null"))) {
          if (Date.now() > deadline) throw new Error("no service worker controls the page after 60 s");
          await page.waitForTimeout(100);
        }
        await page.waitForTimeout(1_000);
        await page.reload();
        await page.locator("article[data-alert-id]").first().waitFor({ timeout: 60_000 });
        const warm = await page.evaluate<number>("window.__firstCard");
        process.stdout.write(
          `first card ${build.name} round ${round + 1}: cold ${Math.round(cold)} ms, warm ${Math.round(warm)} ms (load average ${loadAtStart})\n`,
        );
      } finally {
        await browser.close();
      }
    }
  }
}

type Scores = {
  performance: number;
  a11y: number;
  bp: number;
  seo: number;
  lcp: number;
  tbt: number;
  cls: number;
  fcp: number;
  /** Audits that cost accessibility, best-practices or SEO points. */
  lost: string[];
};

async function lighthouseOnce(
  build: Build,
  target: "login" | "feed",
  preset: "mobile" | "desktop",
): Promise<Scores> {
  const chrome = await launch({
    chromePath,
    chromeFlags: ["--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-quic"],
  });
  try {
    if (target === "feed") {
      // The member's session as the login screen leaves it; nothing of the app cached.
      const browser = await chromium.connectOverCDP(`http://127.0.0.1:${chrome.port}`);
      const context = browser.contexts()[0] ?? (await browser.newContext());
      const page = await context.newPage();
      await storeSession(page, build);
      const cdp = await context.newCDPSession(page);
      await cdp.send("Network.clearBrowserCache");
      await page.close();
      await browser.close();
    }
    const result = await lighthouse(
      `${build.server.url}/`,
      {
        port: chrome.port,
        output: "json",
        logLevel: "error",
        onlyCategories: ["performance", "accessibility", "best-practices", "seo"],
        // The feed needs the session kept in localStorage (the HTTP cache was emptied above).
        disableStorageReset: target === "feed",
      },
      preset === "desktop" ? desktopConfig : undefined,
    );
    if (!result) throw new Error("Lighthouse returned nothing");
    const lhr: Result = result.lhr;
    // BENCH_LIGHTHOUSE_SAVE=DIR keeps each report (JSON) for a closer look.
    const saveDir = process.env.BENCH_LIGHTHOUSE_SAVE;
    if (saveDir) {
      mkdirSync(saveDir, { recursive: true });
      const file = `${path.basename(build.name)}-${target}-${preset}-${Date.now()}.json`;
      writeFileSync(path.join(saveDir, file), JSON.stringify(lhr));
    }
    if (lhr.runtimeError) throw new Error(lhr.runtimeError.message);
    const score = (id: string) => Math.round((lhr.categories[id]?.score ?? 0) * 100);
    // What cost points outside performance (those categories' targets are 100).
    const lost = (["accessibility", "best-practices", "seo"] as const).flatMap((category) =>
      (lhr.categories[category]?.auditRefs ?? [])
        .filter((ref) => ref.weight > 0 && (lhr.audits[ref.id]?.score ?? 1) < 1)
        .map((ref) => `${category}: ${ref.id}`),
    );
    const value = (id: string) => lhr.audits[id]?.numericValue ?? Number.NaN;
    return {
      performance: score("performance"),
      a11y: score("accessibility"),
      bp: score("best-practices"),
      seo: score("seo"),
      lcp: Math.round(value("largest-contentful-paint")),
      tbt: Math.round(value("total-blocking-time")),
      cls: Number(value("cumulative-layout-shift").toFixed(3)),
      fcp: Math.round(value("first-contentful-paint")),
      lost,
    };
  } finally {
    chrome.kill();
  }
}

async function lighthouseRuns(builds: Build[], runs: number) {
  const results = new Map<string, Scores[]>();
  for (let run = 0; run < runs; run++) {
    for (const target of ["feed", "login"] as const) {
      for (const preset of ["mobile", "desktop"] as const) {
        for (const build of inTurn(builds, run)) {
          // BENCH_LIGHTHOUSE_ONLY="feed desktop" runs one page and preset only.
          const only = process.env.BENCH_LIGHTHOUSE_ONLY;
          if (only && only !== `${target} ${preset}`) continue;
          const loadAtStart = load();
          // Lighthouse now and then fails to record a trace on a loaded machine (NO_NAVSTART): once more.
          const s = await lighthouseOnce(build, target, preset).catch((error: Error) => {
            process.stdout.write(`  (${error.message}: running again)\n`);
            return lighthouseOnce(build, target, preset);
          });
          const key = `${build.name} ${target} ${preset}`;
          results.set(key, [...(results.get(key) ?? []), s]);
          process.stdout.write(
            `${key} run ${run + 1}: performance ${s.performance}, TBT ${s.tbt} ms, LCP ${s.lcp} ms, FCP ${s.fcp} ms, CLS ${s.cls}, a11y ${s.a11y}, best practices ${s.bp}, SEO ${s.seo} (load average ${loadAtStart})${s.lost.length ? `; lost: ${s.lost.join(", ")}` : ""}\n`,
          );
        }
      }
    }
  }
  process.stdout.write(
    "\n| build | page | preset | performance (runs) | TBT | LCP | CLS | a11y | BP | SEO |\n|---|---|---|---:|---:|---:|---:|---:|---:|---:|\n",
  );
  for (const [key, list] of results) {
    const [name, target, preset] = key.split(" ");
    const byScore = [...list].sort((a, b) => a.performance - b.performance);
    const m = byScore[Math.floor(byScore.length / 2)] as Scores;
    process.stdout.write(
      `| ${name} | ${target} | ${preset} | **${m.performance}** (${list.map((s) => s.performance).join("/")}) | ${m.tbt} ms | ${m.lcp} ms | ${m.cls} | ${m.a11y} | ${m.bp} | ${m.seo} |\n`,
    );
  }
}

async function main() {
  const mode = process.argv[2] ?? "bytes";
  const dists = argValues("--dist");
  const rounds = Number(argValues("--runs")[0] ?? argValues("--rounds")[0] ?? 3);
  await ensureServerBuilt({ quiet: true });
  if (dists.length === 0) {
    ensureWebBuilt({ quiet: true });
    dists.push(path.resolve(import.meta.dirname, "../../web/dist"));
  }
  const alerts = mode === "burst" ? 500 : mode === "scroll" ? 1000 : 50;
  process.stdout.write(`${machineLine()}\n${mode}, ${alerts} alerts in the feed, load average ${load()}\n`);
  const builds: Build[] = [];
  try {
    for (const dist of dists) builds.push(await startBuild(dist, alerts));
    if (mode === "bytes") await bytes(builds);
    else if (mode === "burst") await burst(builds, rounds);
    else if (mode === "scroll") await scroll(builds, rounds);
    else if (mode === "renders") await renders(builds);
    else if (mode === "firstcard") await firstCard(builds, rounds);
    else if (mode === "lighthouse") await lighthouseRuns(builds, rounds);
    else throw new Error(`unknown mode ${mode}`);
  } finally {
    for (const build of builds) await build.server.stop();
  }
  process.stdout.write(`load average at the end ${load()}\n`);
}

await main();
