// The shared response cache, in memory, as API Umbrella's Traffic Server
// is: responses its backends mark as fresh (cache-policy.ts) are answered
// from here, to every user alike, after the key, role and rate-limit checks
// that every request goes through. Bounded by bytes; the least recently used
// key goes first.
//
// Requests for a key the cache has held arrive together when its response
// goes stale; they wait (at most COLLAPSE_WAIT_MS) for the one that fetches
// it, rather than all reaching the backend at once. Requests for a key it
// has never held do not wait for each other: holding them until the first
// response shows whether it may be kept would slow every burst of requests
// that are never cacheable.
import type { IncomingHttpHeaders } from 'node:http';
import type { Clock } from '../lib/clock.js';

/** How long a request waits for another one fetching its key before it goes to the backend itself (Traffic Server's read-while-writer retries: about 2 s). */
export const COLLAPSE_WAIT_MS = 2000;
/** One response may take at most this share of the cache, so one large body cannot empty it. */
const MAX_OBJECT_SHARE = 8;
/** Bytes counted per response on top of its body and headers: the objects that hold them. */
const ENTRY_OVERHEAD = 300;

export interface StoredResponse {
  readonly status: number;
  readonly statusText: string;
  /** The upstream's header lines, without X-Cache and Age, which a hit sets afresh. */
  readonly rawHeaders: readonly Buffer[];
  readonly body: Buffer;
  /** clock.now() when it was stored. */
  readonly storedAt: number;
  /** Its Age when it was stored (a cache behind the backend may have held it), in seconds. */
  readonly initialAge: number;
  readonly lifetime: number;
  /** The request headers the backend's Vary names (lowercase), with the values they had. */
  readonly vary: readonly (readonly [string, string | undefined])[];
  /** The body is coded in a way only a client that takes gzip may get. */
  readonly needsGzipClient: boolean;
}

/** What of a request picks one of a key's responses. */
export interface CacheRequest {
  readonly headers: IncomingHttpHeaders;
  readonly acceptsGzip: boolean;
}

export interface CacheHit {
  readonly response: StoredResponse;
  /** Seconds, for the Age header. */
  readonly age: number;
}

/** Told whether the fetch it waited for stored a response. */
export type FetchWaiter = (stored: boolean) => void;

interface KeyEntry {
  responses: StoredResponse[];
  bytes: number;
  /** Requests waiting for the fetch in progress; null when none is. */
  waiters: Set<FetchWaiter> | null;
}

export class ResponseCache {
  private readonly keys = new Map<string, KeyEntry>();
  private bytes = 0;
  readonly maxObjectBytes: number;

  constructor(
    private readonly maxBytes: number,
    private readonly clock: Clock,
  ) {
    this.maxObjectBytes = Math.floor(maxBytes / MAX_OBJECT_SHARE);
  }

  /** The cache's time (ms): when a response is stored and how old it is. */
  now(): number {
    return this.clock.now();
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
      if (age >= response.lifetime || !matches(response, request)) continue;
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
    const waiters = this.keys.get(key)?.waiters;
    if (waiters === null || waiters === undefined) return null;
    waiters.add(waiter);
    return () => waiters.delete(waiter);
  }

  /** The caller fetches a key the cache has held: requests for it wait. Answers whether it does. */
  beginFetch(key: string): boolean {
    const entry = this.keys.get(key);
    if (entry === undefined || entry.waiters !== null) return false;
    entry.waiters = new Set();
    return true;
  }

  /** The fetch begun is over: `stored` if it stored a response; `uncacheable` if the backend's answer may not be kept, which ends the waiting for that key. */
  endFetch(key: string, outcome: 'stored' | 'uncacheable' | 'failed'): void {
    const entry = this.keys.get(key);
    if (entry === undefined || entry.waiters === null) return;
    const waiters = entry.waiters;
    entry.waiters = null;
    if (outcome === 'uncacheable') this.forget(key, entry);
    for (const waiter of waiters) waiter(outcome === 'stored');
  }

  store(key: string, response: StoredResponse): void {
    const bytes = sizeOf(key, response);
    if (bytes > this.maxObjectBytes) return;
    const entry = this.keys.get(key) ?? { responses: [], bytes: 0, waiters: null };
    // A response for the same Vary values replaces the one before; expired ones go too.
    const now = this.clock.now();
    const kept = entry.responses.filter((other) => ageOf(other, now) < other.lifetime && !sameVariant(other, response));
    const keptBytes = kept.reduce((sum, other) => sum + sizeOf(key, other), 0);
    this.bytes += keptBytes + bytes - entry.bytes;
    entry.responses = [response, ...kept];
    entry.bytes = keptBytes + bytes;
    this.keys.delete(key);
    this.keys.set(key, entry);
    this.evict();
  }

  private forget(key: string, entry: KeyEntry): void {
    this.bytes -= entry.bytes;
    this.keys.delete(key);
  }

  private evict(): void {
    for (const [key, entry] of this.keys) {
      if (this.bytes <= this.maxBytes) return;
      // A fetch in progress keeps its key: its waiters are told when it ends.
      if (entry.waiters === null) this.forget(key, entry);
    }
  }
}

function ageOf(response: StoredResponse, now: number): number {
  return response.initialAge + Math.max(0, Math.floor((now - response.storedAt) / 1000));
}

function matches(response: StoredResponse, request: CacheRequest): boolean {
  if (response.needsGzipClient && !request.acceptsGzip) return false;
  for (const [name, value] of response.vary) if (headerValue(request.headers, name) !== value) return false;
  return true;
}

function sameVariant(a: StoredResponse, b: StoredResponse): boolean {
  return a.needsGzipClient === b.needsGzipClient && a.vary.length === b.vary.length && a.vary.every(([name, value], at) => b.vary[at]![0] === name && b.vary[at]![1] === value);
}

/** A request header as one string (Node keeps a few as lists). */
export function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

function sizeOf(key: string, response: StoredResponse): number {
  let bytes = ENTRY_OVERHEAD + 2 * key.length + response.body.length;
  for (const line of response.rawHeaders) bytes += line.length;
  return bytes;
}
