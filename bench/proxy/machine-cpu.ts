// CPU time the whole machine spent busy, from Linux's /proc/stat: every
// process of a bench run (load generator, upstream, proxy and its threads,
// the kernel's network work) in one figure. Time the host took back (steal)
// is not counted: it is no process's work.
import { readFileSync } from 'node:fs';

/** Linux reports /proc/stat in USER_HZ ticks, 100 per second on every architecture it runs on. */
const MICROS_PER_TICK = 10_000;

/** Busy CPU time of all CPUs since boot in µs; NaN where /proc/stat is missing. */
export function machineBusyMicros(): number {
  let line: string;
  try {
    line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!;
  } catch {
    return Number.NaN;
  }
  // cpu user nice system idle iowait irq softirq steal guest guest_nice (guest time is already in user).
  const [user, nice, system, , , irq, softirq] = line.trim().split(/\s+/).slice(1).map(Number);
  return (user! + nice! + system! + irq! + softirq!) * MICROS_PER_TICK;
}
