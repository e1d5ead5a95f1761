// Holds one of Node's process.nextTick queue entries for the life of the
// process.
//
// nextTick builds each queue entry with an object literal, and a proxied
// request makes several of them. V8 keeps the hidden classes ("maps") of
// those entries only while an entry is alive; a full GC at a moment when the
// queue is empty lets them go, and the next entries get new ones, which the
// literal's inline cache then has to take in. In about half of the Parasol
// processes started under load, nextTick ended up optimised on such a cache
// and every entry went through V8's runtime: 2.3-2.5 µs per request in a
// perf profile, 7 % of the proxy's throughput. With one entry held (its maps
// cannot go), none of the starts measured did.
import { executionAsyncResource } from 'node:async_hooks';

let held: object | null = null;

/** Call once at startup; the entry is taken from inside its own callback, where it is the current async resource. */
export function holdTickEntryShape(): void {
  if (held !== null) return;
  process.nextTick(() => {
    held = executionAsyncResource();
  });
}

/** The entry held (tests). */
export function heldTickEntry(): object | null {
  return held;
}
