// Counter names: one per limit, bucket and client, the window being the other
// half of a counter's key. A returning client's name comes from here instead
// of being built and hashed again by the store's Map on every request (about
// 340 of the 560 ns a check with two limits took).
import type { RateLimit } from '../api-backends/model.js';
import type { RateLimitRequest } from './limiter.js';

/**
 * Emptied past this many names, so a flood of new clients costs memory only
 * in its counters. Room for every key of a busy gateway: emptying it every
 * few thousand requests would turn each name into garbage the collector
 * promotes and sweeps later.
 */
const MAX_NAMES = 100_000;

/** Names under one limit and bucket, apart by where the client came from. */
interface ClientNames {
  readonly byKey: Map<string, string>;
  readonly byIp: Map<string, string>;
}

/** Names by bucket, for every limit of the same duration and limit_by: backends with equal limits share their counters' names. */
type NamesByBucket = Map<string, ClientNames>;

export class CounterNames {
  /** Each limit object's group, found once per published limit. */
  private byLimit = new WeakMap<RateLimit, NamesByBucket>();
  private byKind = new Map<string, NamesByBucket>();
  private size = 0;

  constructor(private readonly maxNames = MAX_NAMES) {}

  /** Names held. */
  get held(): number {
    return this.size;
  }

  of(limit: RateLimit, { bucket, apiKeyPrefix, ip }: RateLimitRequest): string {
    // Limits by api_key fall back to the client IP when the request has no user.
    const byKey = limit.limit_by === 'api_key' && apiKeyPrefix !== null;
    const names = this.clientNames(limit, bucket);
    const client = byKey ? apiKeyPrefix : ip;
    const known = (byKey ? names.byKey : names.byIp).get(client);
    return known ?? this.remember(byKey ? names.byKey : names.byIp, client, nameOf(limit, bucket, byKey, client));
  }

  private clientNames(limit: RateLimit, bucket: string): ClientNames {
    let byBucket = this.byLimit.get(limit);
    if (byBucket === undefined) {
      const kind = `${limit.duration}|${limit.limit_by}`;
      byBucket = this.byKind.get(kind) ?? new Map<string, ClientNames>();
      this.byKind.set(kind, byBucket);
      this.byLimit.set(limit, byBucket);
    }
    let names = byBucket.get(bucket);
    if (names === undefined) {
      names = { byKey: new Map(), byIp: new Map() };
      byBucket.set(bucket, names);
    }
    return names;
  }

  private remember(names: Map<string, string>, client: string, name: string): string {
    if (this.size >= this.maxNames) {
      this.byLimit = new WeakMap();
      this.byKind = new Map();
      this.size = 0;
      // The map in hand was just dropped with the rest: this name is not kept.
      return name;
    }
    names.set(client, name);
    this.size++;
    return name;
  }
}

/** The k:/i: tag keeps a key's counter apart from an IP's under the same api_key limit. */
function nameOf(limit: RateLimit, bucket: string, byKey: boolean, client: string): string {
  const name = byKey ? `${limit.duration}|api_key|${bucket}|k:${client}` : `${limit.duration}|${limit.limit_by}|${bucket}|i:${client}`;
  // Flat once here, rather than at every Map lookup of a concatenation.
  name.charCodeAt(0);
  return name;
}
