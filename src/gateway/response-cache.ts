// The shared response cache, in memory, as API Umbrella's Traffic Server
// is: responses its backends mark as fresh (cache-policy.ts) are answered
// from here, to every user alike, after the key, role and rate-limit checks
// that every request goes through. Bounded by bytes; the least recently used
// key goes first.
//
// Requests for a key the cache does not hold fresh (never fetched, evicted,
// lost in a restart, or gone stale) wait (at most COLLAPSE_WAIT_MS) for the
// one already fetching it, rather than all reaching the backend at once, as
// Traffic Server's read-while-writer makes them in API Umbrella. Waiting
// lasts until that fetch's headers show whether its answer may be kept. So
// that requests which are never cacheable do not pay for it:
// - a key never held waits only once its backend has sent an answer the
//   cache may keep (a backend that never does has no herd to hold back, and
//   its requests skip the bookkeeping);
// - a key whose answer turned out not to be kept while others waited is
//   remembered (the last MAX_UNCACHEABLE_KEYS), and its later bursts go to
//   the backend together.
import type { Clock } from '../lib/clock.js';

/** How long a request waits for another one fetching its key before it goes to the backend itself (Traffic Server's read-while-writer retries: about 2 s). */
export const COLLAPSE_WAIT_MS = 2000;
/** One response may take at most this share of the cache, so one large body cannot empty it. */
const MAX_OBJECT_SHARE = 8;
/** Responses being copied in may hold at most this share of it on top. */
const MAX_FILLING_SHARE = 4;
/** Responses kept per key for different Vary values (Traffic Server's max_alts): a client cannot make a key's list long. */
const MAX_VARIANTS = 5;
/** Bytes counted per response on top of its body, headers and key: the objects that hold them (a 5-byte answer with 8 headers grew RSS by about 1,650 bytes). */
const ENTRY_OVERHEAD = 1300;
/** Keys remembered as answered with what may not be kept, so their requests no longer wait (as hashes: about 1 MB). */
export const MAX_UNCACHEABLE_KEYS = 10_000;
/** Backends remembered as sending answers the cache may keep; past this many (servers changed by many publishes), it starts over. */
const MAX_KEEPING_ORIGINS = 10_000;

export interface StoredResponse {
  readonly status: number;
  readonly statusText: string;
  /** The upstream's header names and values (latin1), each followed by a line feed, without X-Cache and Age, which a hit sets afresh: one string rather than a buffer per line. */
  readonly headerLines: string;
  /** In memory of its own, not a slice of a shared pool that it would keep alive. */
  readonly body: Buffer;
  /** clock.now() when it was stored. */
  readonly storedAt: number;
  /** Its Age when it was stored (a cache behind the backend may have held it), in seconds. */
  readonly initialAge: number;
  readonly lifetimeSeconds: number;
  /** The upstream request headers the backend's Vary names (lowercase), with the values they had. */
  readonly vary: readonly (readonly [string, string | undefined])[];
  /** The body has a Content-Encoding. */
  readonly coded: boolean;
  /** …which the gateway can undo for a client that does not take gzip (gzip, proxy.gzip on, no no-transform). */
  readonly unzippable: boolean;
}

/** What of a request picks one of a key's responses. */
export interface CacheRequest {
  readonly method: string;
  readonly acceptsGzip: boolean;
  /** The value the upstream gets for a header (as Vary names it), gateway-written headers and strip_cookies included. */
  upstreamHeader(name: string): string | undefined;
}

export interface CacheHit {
  readonly response: StoredResponse;
  /** Seconds, for the Age header. */
  readonly age: number;
}

/** How a fetch other requests may wait for ended. */
export type FetchOutcome = 'stored' | 'uncacheable' | 'failed';

/** A request waiting for another one's fetch of its key. */
export interface FetchWaiter {
  /** Told once, whether the fetch stored a response. */
  fetchEnded(stored: boolean): void;
}

interface KeyEntry {
  responses: StoredResponse[];
  bytes: number;
  /** A request is fetching the key: others wait for it. */
  fetching: boolean;
  /** Requests waiting for that fetch; null until the first. */
  waiters: Set<FetchWaiter> | null;
}

export class ResponseCache {
  private readonly keys = new Map<string, KeyEntry>();
  /** Keys answered with what may not be kept while requests waited (see UncacheableKeys). */
  private readonly uncacheable = new UncacheableKeys(MAX_UNCACHEABLE_KEYS);
  /** The origins (a backend and where it sends requests: its keys' prefix) that have sent an answer the cache may keep. */
  private readonly keepingOrigins = new Set<string>();
  private bytes = 0;
  private fillingBytes = 0;
  readonly maxObjectBytes: number;

  constructor(
    private readonly maxBytes: number,
    /** When a response is stored and how old it is. */
    readonly clock: Clock,
  ) {
    this.maxObjectBytes = Math.floor(maxBytes / MAX_OBJECT_SHARE);
  }

  /** Room for a response being copied in; false when fills in progress hold their share already. */
  reserveFill(bytes: number): boolean {
    if (this.fillingBytes + bytes > this.maxBytes / MAX_FILLING_SHARE) return false;
    this.fillingBytes += bytes;
    return true;
  }

  releaseFill(bytes: number): void {
    this.fillingBytes -= bytes;
  }

  /** Bytes held, as counted against the bound. */
  get size(): number {
    return this.bytes;
  }

  /** A fresh response for the request, or null. */
  find(key: string, request: CacheRequest): CacheHit | null {
    const entry = this.keys.get(key);
    if (entry === undefined) return null;
    const now = this.clock.now();
    for (const response of entry.responses) {
      const age = ageOf(response, now);
      if (age >= response.lifetimeSeconds || !matches(response, request)) continue;
      // Used last, goes last.
      this.keys.delete(key);
      this.keys.set(key, entry);
      return { response, age };
    }
    return null;
  }

  /**
   * When another request is fetching the key, `waiter` is told once it is
   * done, and this answers a function that stops the wait; else null.
   */
  waitFor(key: string, waiter: FetchWaiter): (() => void) | null {
    const entry = this.keys.get(key);
    if (entry === undefined || !entry.fetching) return null;
    const waiters = (entry.waiters ??= new Set());
    waiters.add(waiter);
    return () => waiters.delete(waiter);
  }

  /** Holds nothing and no fetch: it answers no request, and no request waits. */
  get empty(): boolean {
    return this.keys.size === 0;
  }

  /** The origin has sent an answer the cache may keep (see noteKeepable). */
  keepsFrom(origin: string): boolean {
    return this.keepingOrigins.has(origin);
  }

  /** The origin (its keys' prefix) sent an answer the cache may keep: from now on requests for its keys never held wait for each other. */
  noteKeepable(origin: string): void {
    if (this.keepingOrigins.has(origin)) return;
    if (this.keepingOrigins.size >= MAX_KEEPING_ORIGINS) this.keepingOrigins.clear();
    this.keepingOrigins.add(origin);
  }

  /**
   * The caller fetches a key of `origin` the cache holds no fresh response
   * for: requests for it wait. Answers whether they do: not for a key never
   * held of an origin that has sent nothing to keep, nor for a key
   * remembered as uncacheable, nor while the key holds a fresh response for
   * other Vary values (the caller's answer may not serve the others).
   */
  beginFetch(key: string, origin: string): boolean {
    const entry = this.keys.get(key);
    if (entry === undefined) {
      if (!this.keepsFrom(origin) || this.uncacheable.has(key)) return false;
      this.keys.set(key, { responses: [], bytes: 0, fetching: true, waiters: null });
      return true;
    }
    if (entry.fetching || fresh(entry.responses, this.clock.now()).length > 0) return false;
    entry.fetching = true;
    return true;
  }

  /**
   * The fetch begun is over: `stored` if it stored a response; `uncacheable`
   * if the backend's answer may not be kept, which drops the key's expired
   * responses, so requests for it stop waiting for each other.
   */
  endFetch(key: string, outcome: FetchOutcome): void {
    const entry = this.keys.get(key);
    if (entry === undefined || !entry.fetching) return;
    const { waiters } = entry;
    entry.fetching = false;
    entry.waiters = null;
    // Remembered only when requests waited for it: a key requested one at a time costs no memory.
    if (outcome === 'uncacheable' && waiters !== null) this.uncacheable.add(key);
    // A key fetched for the first time holds nothing if its fetch stored nothing, and goes.
    this.keepOnly(key, entry, outcome === 'uncacheable' ? fresh(entry.responses, this.clock.now()) : entry.responses);
    if (waiters !== null) for (const waiter of waiters) waiter.fetchEnded(outcome === 'stored');
  }

  /** Drops what the key holds (a write to its target succeeded); a fetch in progress goes on. */
  invalidate(key: string): void {
    const entry = this.keys.get(key);
    if (entry !== undefined) this.keepOnly(key, entry, []);
  }

  /** False when it is too large to keep (then nothing changes). */
  store(key: string, response: StoredResponse): boolean {
    if (sizeOf(key, response) > this.maxObjectBytes) return false;
    this.uncacheable.delete(key);
    const entry = this.keys.get(key) ?? { responses: [], bytes: 0, fetching: false, waiters: null };
    // A response for the same Vary values replaces the one before; expired ones go, and the oldest past MAX_VARIANTS.
    const others = fresh(entry.responses, this.clock.now()).filter((other) => !sameVariant(other, response));
    this.keepOnly(key, entry, [response, ...others].slice(0, MAX_VARIANTS));
    this.keys.delete(key);
    this.keys.set(key, entry);
    this.evict();
    return true;
  }

  /** Sets a key's responses; a key left with none and no fetch is forgotten. */
  private keepOnly(key: string, entry: KeyEntry, responses: StoredResponse[]): void {
    const bytes = responses.reduce((sum, response) => sum + sizeOf(key, response), 0);
    this.bytes += bytes - entry.bytes;
    entry.responses = responses;
    entry.bytes = bytes;
    if (responses.length === 0 && !entry.fetching) this.keys.delete(key);
    else if (!this.keys.has(key)) this.keys.set(key, entry);
  }

  private evict(): void {
    for (const [key, entry] of this.keys) {
      if (this.bytes <= this.maxBytes) return;
      // A fetch in progress keeps its key: its waiters are told when it ends.
      if (!entry.fetching) {
        this.bytes -= entry.bytes;
        this.keys.delete(key);
      }
    }
  }
}

/** Infinite (stale) when stored after what the clock now reads: stepped back an hour, it would keep a 5-second answer fresh for that hour. */
function ageOf(response: StoredResponse, now: number): number {
  return now < response.storedAt ? Infinity : response.initialAge + Math.floor((now - response.storedAt) / 1000);
}

function fresh(responses: readonly StoredResponse[], now: number): StoredResponse[] {
  return responses.filter((response) => ageOf(response, now) < response.lifetimeSeconds);
}

/**
 * A coded body goes to a client that does not take gzip only when the
 * gateway unzips it, which it does not for HEAD: the headers would still
 * say gzip.
 */
function matches(response: StoredResponse, request: CacheRequest): boolean {
  if (response.coded && !request.acceptsGzip && (!response.unzippable || request.method === 'HEAD')) return false;
  for (const [name, value] of response.vary) if (request.upstreamHeader(name) !== value) return false;
  return true;
}

function sameVariant(a: StoredResponse, b: StoredResponse): boolean {
  return a.coded === b.coded && a.vary.length === b.vary.length && a.vary.every(([name, value], at) => b.vary[at]![0] === name && b.vary[at]![1] === value);
}

function sizeOf(key: string, response: StoredResponse): number {
  return ENTRY_OVERHEAD + 2 * key.length + response.headerLines.length + response.body.length;
}

/**
 * The last `max` keys added, the oldest forgotten first, kept as 32-bit
 * hashes: a key holds its whole URL (up to the header size limit), and
 * 10,000 of them could otherwise take hundreds of MB the cache's bound does
 * not count. Two keys sharing a hash only means one of them is not waited
 * for. A ring rather than an insertion-ordered Set: finding a Set's oldest
 * item walks past every one deleted before it.
 */
class UncacheableKeys {
  /** Hash → its place in the ring. */
  private readonly places = new Map<number, number>();
  private readonly ring: Float64Array;
  private next = 0;

  constructor(private readonly max: number) {
    this.ring = new Float64Array(max).fill(Number.NaN);
  }

  has(key: string): boolean {
    return this.places.has(hashOf(key));
  }

  add(key: string): void {
    const hash = hashOf(key);
    if (this.places.has(hash)) return;
    const oldest = this.ring[this.next]!;
    if (this.places.get(oldest) === this.next) this.places.delete(oldest);
    this.ring[this.next] = hash;
    this.places.set(hash, this.next);
    this.next = (this.next + 1) % this.max;
  }

  delete(key: string): void {
    this.places.delete(hashOf(key));
  }
}

/** FNV-1a over the key's UTF-16 code units. */
function hashOf(key: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < key.length; index++) hash = Math.imul(hash ^ key.charCodeAt(index), 0x01000193);
  return hash >>> 0;
}
