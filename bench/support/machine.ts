import { readFileSync } from "node:fs";
import os from "node:os";

/** The facts a results table needs about where it was measured. */
export function describeMachine(): {
  date: string;
  cpu: string;
  cores: number;
  memoryGiB: number;
  node: string;
} {
  let cpu = os.cpus()[0]?.model ?? "unknown";
  try {
    const model = /model name\s*:\s*(.+)/.exec(readFileSync("/proc/cpuinfo", "utf8"))?.[1];
    if (model) cpu = model.trim();
  } catch {
    // not Linux: os.cpus() is good enough
  }
  return {
    date: new Date().toISOString().slice(0, 10),
    cpu,
    cores: os.cpus().length,
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
  };
}

/** One line for the top of a benchmark's output. */
export function machineLine(): string {
  const m = describeMachine();
  return `${m.date} · ${m.cores} cores (${m.cpu}) · ${m.memoryGiB} GiB · Node ${m.node}`;
}
