// Timing of text helpers on adversarial input, shared by the domain's and the server's checks (issue 28).

// The high-resolution clock of Node and browsers alike (domain compiles with no platform types).
declare const performance: { now(): number };

type CpuUsage = () => { user: number; system: number };
const cpuUsage = (globalThis as { process?: { cpuUsage?: CpuUsage } }).process?.cpuUsage;

/**
 * Milliseconds of the process's CPU time where the platform tells it (Node), else of the wall. CPU time
 * leaves out the time the process waited for a core: on a CI machine busy on both cores, wall time
 * stretched one size's runs and not the other's, and the growth read 42x for a linear helper (0.25 ms at
 * 4,000, 10.6 ms at 32,000) and under 32x for a quadratic one.
 */
const now: () => number = cpuUsage
  ? () => {
      const { user, system } = cpuUsage();
      return (user + system) / 1000;
    }
  : () => performance.now();

/**
 * Runs of blanks, digits and letters, the kinds that make a backtracking regular expression or a
 * repeated scan super-linear (issue 28: `/\s+$/` took 30 s on 80,000 spaces). Each makes a text of
 * about `n` characters.
 */
export const ADVERSARIAL_TEXTS: Record<string, (n: number) => string> = {
  "blanks then a letter": (n) => `${" ".repeat(n)}x`,
  "digits then a letter": (n) => `${"1".repeat(n)}x`,
  "letters then a mark": (n) => `${"a".repeat(n)}!`,
  "capitals and digits": (n) => "A1".repeat(n / 2),
  "words and blanks": (n) => "ab ".repeat(n / 3),
  "tabs and line breaks": (n) => "\t\n".repeat(n / 2),
  "a prefix then blanks": (n) => `@@${" ".repeat(n)}F`,
  "job-number letters": (n) => "F1".repeat(n / 2),
};

/** The long text is this many times the short one. */
const GROWTH = 32;
const LONG = 32_000;
const SHORT = LONG / GROWTH;
/**
 * A helper is super-linear when a character of the long text costs this many times one of the short
 * text. Linear work reads about 1 (up to 2.4 measured: a long text's arrays outgrow the caches);
 * quadratic work reads 32 (34-41 measured under load).
 */
const BOUND = 8;
/** Below this the long text is handled too quickly to judge: it cannot stall anything. */
const FLOOR_MS = 5;

/**
 * Tries of the short text before any is timed, enough for the JIT to optimise what it runs; the long
 * text is tried once (a quadratic helper's long try can take a tenth of a second).
 */
const WARM_TRIES = 10;

/** One try of the long text, then as many tries of the short text as make the same characters. */
type Round = { longMs: number; shortMs: number };

/**
 * `times` rounds of equal work at each size. Both halves of a round take about the same time when the
 * work is linear, so a pause, a collection or a change of JIT tier weighs on either alike; before, one
 * long try was set against one short try of 0.1 ms, a pause of a few milliseconds read as a growth of
 * 45x for a linear helper (0.11 ms at 4,000 against 5.0 ms at 32,000), and no bound held on a busy CI
 * machine. The growth is read within each round, and the median round's counts.
 */
function rounds(long: () => void, short: () => void, times: number): Round[] {
  const timed = (run: () => void, tries: number) => {
    const started = now();
    for (let i = 0; i < tries; i++) run();
    return now() - started;
  };
  return Array.from({ length: times }, () => ({ longMs: timed(long, 1), shortMs: timed(short, GROWTH) }));
}

/** How many times a character of the long text cost one of the short text. */
const growth = ({ longMs, shortMs }: Round) => longMs / Math.max(shortMs, 0.01);

/**
 * The helper/text pairs whose work grows super-linearly: per character, the long text (32,000
 * characters) costs about what the short one (1,000) does when the work is linear and 32 times as much
 * when it is quadratic; a pair is reported when the median round read past 8, and only when the long
 * text takes long enough to measure. A helper that throws has answered too: its time is what is
 * measured.
 */
export function superLinearHelpers(
  helpers: [string, (text: string) => unknown][],
  texts: Record<string, (n: number) => string> = ADVERSARIAL_TEXTS,
): string[] {
  const superLinear: string[] = [];
  for (const [name, helper] of helpers) {
    for (const [kind, make] of Object.entries(texts)) {
      const call = (text: string) => () => {
        try {
          helper(text);
        } catch {
          // a refusal is an answer too
        }
      };
      const long = call(make(LONG));
      const short = call(make(SHORT));
      for (let i = 0; i < WARM_TRIES; i++) short();
      long();
      // A growth past the bound is measured again with more rounds before it counts: a pause of the
      // machine (a collection, another process, a compilation) in three of five rounds does not happen
      // in eight of fifteen.
      let grew: string | null = null;
      for (const times of [5, 15]) {
        const timed = rounds(long, short, times);
        if (Math.min(...timed.map((round) => round.longMs)) < FLOOR_MS) break;
        const middle = [...timed].sort((a, b) => growth(a) - growth(b))[Math.floor(timed.length / 2)]!;
        grew =
          growth(middle) > BOUND
            ? `${name} on ${kind}: ${(middle.shortMs / GROWTH).toFixed(2)} ms at ${SHORT}, ${middle.longMs.toFixed(1)} ms at ${LONG}`
            : null;
        if (!grew) break;
      }
      if (grew) superLinear.push(grew);
    }
  }
  return superLinear;
}
