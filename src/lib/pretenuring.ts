// Turns V8's allocation-site pretenuring off for the whole process.
//
// V8 counts, per object or array literal in the code (an "allocation site"),
// how many of its objects outlive a young-generation collection. When nearly
// all of them do while the young generation is full, it decides the site's
// objects are long-lived and from then on allocates them straight in the old
// generation, and the V8 of Node 20 never goes back on that decision.
//
// A proxy's literals are per request, and a request that happens to be in
// flight during a few collections of a busy start can tip a site over. From
// then on every request's object from that site is born old. It dies at once,
// but only a full collection frees it, and until then it keeps alive every
// young object it points at (a response's header buffers, an analytics
// entry's strings), which the young collections then copy and promote. Seen
// in 10 of 251 Parasol processes started under load: 1.2-4.2 MB survived each
// young collection instead of 0.3 MB, 52-290 MB was promoted in a 6 s load
// instead of 11-17, and the process ran slower for its whole life.
// Without pretenuring, objects that really live long are still promoted, after
// two young collections.
import { setFlagsFromString } from 'node:v8';

/** Call at startup, before load; V8 reads the flag at each collection, so it holds from the next one. */
export function turnOffPretenuring(): void {
  setFlagsFromString('--no-allocation-site-pretenuring');
}
