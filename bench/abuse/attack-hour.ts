/**
 * What an attacker with 8, 64 or 1,024 addresses achieves against sign-in in an hour (issue 27):
 * SMS the service sends for strangers, SMS sent to the owner's phone, wrong guesses at the owner's
 * code, proofs of work solved, and whether the owner's recognised device (and a new device of the
 * owner) could still sign in at the end of each 15-minute window.
 *
 *   npx tsx bench/abuse/attack-hour.ts                    # 8, 64 and 1024 addresses, embedded PGlite
 *   npx tsx bench/abuse/attack-hour.ts --addresses 8,64   # some of them
 *   TURNOUT_TEST_DB=postgres DATABASE_URL=postgres://postgres@127.0.0.1:5432/test \
 *     REDIS_URL=redis://127.0.0.1:6379 npx tsx bench/abuse/attack-hour.ts
 *
 * The real app (every route, rule and counter) runs in this process on the production defaults. The
 * hour is four 15-minute windows on a shifted clock (Date is moved on between windows), so window and
 * hour counters, lockouts and code lifetimes expire as they would. Only the proof of work is made
 * trivial while the attack runs; its real price is measured separately (CPU seconds per solution at
 * the default difficulty) and multiplied by the solutions the attack needed.
 */
import { eq, inArray, isNotNull } from "drizzle-orm";
import { smsQueue, users, verificationCodes } from "../../server/src/db/schema.js";
import { SECURITY_DEFAULTS } from "../../server/src/db/security-defaults.js";
import { proofOfWorkChallenge } from "../../server/src/modules/auth/proof-of-work.js";
import { getSecuritySettings } from "../../server/src/shared/security/settings.js";
import { buildTestApp, setSecuritySettings, type TestApp } from "../../server/test/build-app.js";
import { createUser, signInDevice, uniquePhone } from "../../server/test/factories.js";
import { solveProofOfWork } from "../../server/test/proof-of-work.js";
import { machineLine } from "../support/machine.js";

const WINDOW_MS = 15 * 60_000;
const WINDOWS = 4;

// A clock the bench can move on: `Date.now()` and `new Date()` both follow it.
const RealDate = Date;
let shiftMs = 0;
class ShiftedDate extends RealDate {
  constructor(...args: unknown[]) {
    if (args.length === 0) super(RealDate.now() + shiftMs);
    else super(...(args as [string | number]));
  }
  static override now(): number {
    return RealDate.now() + shiftMs;
  }
}
globalThis.Date = ShiftedDate as DateConstructor;

type Plan = { registrations: number; requestsOwner: number; requestsOwn: number; guesses: number };

/**
 * Each address per window: as many registrations and code requests as one address is allowed
 * (registrations_per_ip 10, otp_requests_per_ip 20) and the wrong guesses that lock it out of the
 * owner's phone (5). With 1,024 addresses each does a share: together they are far past every
 * budget, and the run stays within minutes.
 */
function planFor(addresses: number): Plan {
  return addresses > 100
    ? { registrations: 2, requestsOwner: 2, requestsOwn: 2, guesses: 5 }
    : { registrations: 10, requestsOwner: 10, requestsOwn: 10, guesses: 5 };
}

type Result = {
  addresses: number;
  requests: number;
  strangerSms: number;
  smsToOwner: number;
  guesses: number;
  guessedRight: boolean;
  solves: number;
  ownerDevice: boolean[];
  ownerNewDevice: boolean[];
  seconds: number;
};

/** Code SMS queued so far, less those the owner's recognised device asked for (its own allowance). */
async function strangerSms(app: TestApp): Promise<{ total: number; to: Map<string, number> }> {
  const rows = await app.db
    .select({ to: smsQueue.toPhone })
    .from(smsQueue)
    .where(inArray(smsQueue.kind, ["otp", "activation"]));
  const owners = await app.db
    .select({ to: users.phone })
    .from(verificationCodes)
    .innerJoin(users, eq(users.id, verificationCodes.userId))
    .where(isNotNull(verificationCodes.credentialId));
  const to = new Map<string, number>();
  for (const r of rows) to.set(r.to, (to.get(r.to) ?? 0) + 1);
  for (const r of owners) to.set(r.to, (to.get(r.to) ?? 0) - 1);
  return { total: rows.length - owners.length, to };
}

async function attack(addresses: number): Promise<Result> {
  shiftMs = 0;
  const started = performance.now();
  const app = await buildTestApp({}, { abuseLimits: "defaults" });
  try {
    await setSecuritySettings(app, { pow_cost: 1, pow_max_tries: 3 });
    const owner = await createUser(app, { isAdmin: true });
    let credential = (await signInDevice(app, owner.phone, "owner-phone", { remoteAddress: "198.51.100.1" }))
      .credential;
    const before = await strangerSms(app);
    let requests = 0;
    let solves = 0;
    let guesses = 0;
    let guessedRight = false;
    const ownerDevice: boolean[] = [];
    const ownerNewDevice: boolean[] = [];
    const plan = planFor(addresses);
    const send = async (ip: string, url: string, payload: object, extra: Record<string, string> = {}) => {
      requests++;
      let res = await app.inject({ method: "POST", url, payload, headers: extra, remoteAddress: ip });
      if (res.statusCode === 428) {
        solves++;
        const pow = await solveProofOfWork(res.json().challenge);
        requests++;
        res = await app.inject({
          method: "POST",
          url,
          payload,
          headers: { ...extra, "x-altcha": pow },
          remoteAddress: ip,
        });
      }
      return res;
    };
    const registration = (phone: string) => ({
      first_name: "Mal",
      last_name: "Ory",
      phone,
      user_agency: "CFA",
      postcode: "3550",
      town_name: "Bendigo",
      state_name: "VIC",
    });

    for (let w = 0; w < WINDOWS; w++) {
      const own: string[][] = Array.from({ length: addresses }, () => []);
      const ipOf = (a: number) => `10.${(a >> 16) & 255}.${(a >> 8) & 255}.${a & 255}`;
      // Round-robin over the addresses, as a botnet spreads its load.
      const rounds = Math.max(plan.registrations, plan.requestsOwner, plan.requestsOwn, plan.guesses);
      for (let r = 0; r < rounds; r++) {
        for (let a = 0; a < addresses; a++) {
          const ip = ipOf(a + 1);
          if (r < plan.registrations) {
            const phone = uniquePhone();
            own[a]!.push(phone);
            await send(ip, "/api/auth/register", registration(phone));
          }
          if (r < plan.requestsOwner) await send(ip, "/api/auth/request-otp", { phone: owner.phone });
          if (r < plan.requestsOwn && own[a]!.length > 0) {
            await send(ip, "/api/auth/request-otp", { phone: own[a]![r % own[a]!.length]! });
          }
          if (r < plan.guesses) {
            guesses++;
            const res = await send(
              ip,
              "/api/auth/verify-otp",
              { phone: owner.phone, otp_code: String(100000 + ((a * 7919 + r * 104729 + w) % 900000)) },
              { "x-device-id": `attacker-${ip}` },
            );
            if (res.statusCode === 200) guessedRight = true;
          }
        }
      }
      // The end of the window: can the owner get in?
      try {
        credential = (
          await signInDevice(app, owner.phone, "owner-phone", { credential, remoteAddress: "10.0.0.1" })
        ).credential;
        ownerDevice.push(true);
      } catch {
        ownerDevice.push(false);
      }
      try {
        await signInDevice(app, owner.phone, `owner-new-${w}`, { remoteAddress: `198.51.100.${10 + w}` });
        ownerNewDevice.push(true);
      } catch {
        ownerNewDevice.push(false);
      }
      shiftMs += WINDOW_MS;
    }
    const after = await strangerSms(app);
    return {
      addresses,
      requests,
      strangerSms: after.total - before.total,
      smsToOwner: (after.to.get(owner.phone) ?? 0) - (before.to.get(owner.phone) ?? 0),
      guesses,
      guessedRight,
      solves,
      ownerDevice,
      ownerNewDevice,
      seconds: (performance.now() - started) / 1000,
    };
  } finally {
    await app.cleanup();
  }
}

/** CPU seconds one proof of work takes at the default difficulty (median of 5, this machine, Node). */
async function defaultSolveSeconds(): Promise<number> {
  const app = await buildTestApp({}, { abuseLimits: "defaults" });
  try {
    const settings = await getSecuritySettings(app.db);
    const times: number[] = [];
    for (let i = 0; i < 5; i++) {
      const challenge = await proofOfWorkChallenge(app.services, settings);
      const t = performance.now();
      await solveProofOfWork(challenge);
      times.push((performance.now() - t) / 1000);
    }
    return times.sort((a, b) => a - b)[2]!;
  } finally {
    await app.cleanup();
  }
}

const arg = process.argv.indexOf("--addresses");
const sizes = (arg > 0 ? process.argv[arg + 1]! : "8,64,1024").split(",").map(Number);

console.log(machineLine());
console.log(
  `defaults: strangers' SMS ${SECURITY_DEFAULTS.sms_unauth_budget_per_hour.value}/hour, per phone ${SECURITY_DEFAULTS.sms_phone_budget_per_day.value}/day, service ${SECURITY_DEFAULTS.sms_budget_per_hour.value}/hour; proof of work ${SECURITY_DEFAULTS.pow_cost.value} PBKDF2 iterations x up to ${SECURITY_DEFAULTS.pow_max_tries.value} tries`,
);
const solveSeconds = await defaultSolveSeconds();
console.log(`one proof of work at the defaults: ${solveSeconds.toFixed(2)} CPU s (median of 5, Node)`);
console.log("");
console.log(
  "| addresses | requests | stranger SMS | strangers' SMS to owner | guesses at owner | guessed | PoW solved (CPU h at defaults) | owner's device in, per window | owner's new device in | run s |",
);
console.log("| --: | --: | --: | --: | --: | :-: | --: | :-: | :-: | --: |");
for (const n of sizes) {
  const r = await attack(n);
  const yn = (xs: boolean[]) => xs.map((x) => (x ? "yes" : "no")).join(" ");
  console.log(
    `| ${r.addresses} | ${r.requests} | ${r.strangerSms} | ${r.smsToOwner} | ${r.guesses} | ${r.guessedRight ? "yes" : "no"} | ${r.solves} (${((r.solves * solveSeconds) / 3600).toFixed(2)}) | ${yn(r.ownerDevice)} | ${yn(r.ownerNewDevice)} | ${r.seconds.toFixed(0)} |`,
  );
}
