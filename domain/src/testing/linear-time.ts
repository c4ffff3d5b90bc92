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

const SHORT = 4000;
const LONG = 8 * SHORT;
/** Below this the long run is too quick to judge by its growth: it cannot stall anything. */
const FLOOR_MS = 5;

/** Tries of the short text before any is timed: enough for the JIT to optimise what it runs. */
const WARM_TRIES = 10;

/** One try of the long text and one of the short, timed one after the other. */
type Round = { longMs: number; shortMs: number };

/**
 * `times` rounds of a try of each text. A round's two tries run at the same tier of the JIT, mostly:
 * timed one size after the other, the long text's tries ran in the interpreter and the short one's in
 * optimised code, and a linear helper read 60x (5.7 ms at 32,000 against 0.09 ms at 4,000); and the
 * code tiers up and down between rounds on a busy machine, so two bests of different rounds still read
 * 35x. The growth is read within each round, and the median round's counts.
 */
function rounds(long: () => void, short: () => void, times: number): Round[] {
  const timed = (run: () => void) => {
    const started = now();
    run();
    return now() - started;
  };
  return Array.from({ length: times }, () => ({ longMs: timed(long), shortMs: timed(short) }));
}

const growth = ({ longMs, shortMs }: Round) => longMs / Math.max(shortMs, 0.05);

/**
 * The helper/text pairs whose work grows super-linearly: work linear in the text grows 8x when the
 * text does; a pair is reported when its median round grew past 32x (quadratic is 64x), and only when
 * the long text takes long enough to measure. A helper that throws has answered too: its time is what is measured.
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
      // A growth past the bound is measured again with more tries before it counts: a pause of the
      // machine (a collection, another process, a compilation) inside each of three tries of the long
      // text does not happen in all of nine.
      let grew: string | null = null;
      for (const times of [3, 9]) {
        const timed = rounds(long, short, times);
        if (Math.min(...timed.map((round) => round.longMs)) < FLOOR_MS) break;
        // The median round: a round whose tries ran at different tiers, or with a pause in one, reads
        // too high or too low, and fewer than half of them do.
        const middle = [...timed].sort((a, b) => growth(a) - growth(b))[Math.floor(timed.length / 2)]!;
        grew =
          growth(middle) > 32
            ? `${name} on ${kind}: ${middle.shortMs.toFixed(2)} ms at ${SHORT}, ${middle.longMs.toFixed(1)} ms at ${LONG}`
            : null;
        if (!grew) break;
      }
      if (grew) superLinear.push(grew);
    }
  }
  return superLinear;
}
