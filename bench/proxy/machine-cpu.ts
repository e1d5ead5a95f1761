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

/**
 * CPU time (user + system) the calling thread has used, in µs; NaN off Linux.
 * Called on a server's main thread: the one thread a Node proxy cannot spread
 * over cores, so its busy share tells whether it was the bottleneck.
 */
export function threadBusyMicros(): number {
  let stat: string;
  try {
    stat = readFileSync('/proc/thread-self/stat', 'utf8');
  } catch {
    return Number.NaN;
  }
  // Fields after the parenthesised name: state is the 1st, utime the 12th, stime the 13th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * MICROS_PER_TICK;
}
