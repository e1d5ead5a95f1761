// A response on its way into the response cache: copied chunk by chunk as
// it streams to the client, and stored once it is whole. The memory of all
// fills in progress is bounded with the cache's (ResponseCache.reserveFill),
// so a burst of large responses never holds more than a share of it.
import { freshLifetime, upstreamAge, varyNames, type CacheHeaders } from './cache-policy.js';
import { chooseCoding, type BodyHeaders } from './compression.js';
import { REQUEST_ID_HEADER } from './headers.js';
import type { CacheRequest, FetchOutcome, ResponseCache, StoredResponse } from './response-cache.js';

/**
 * Vary names no answer is kept for: the request id, which could never match
 * another request, and the caller's credentials, which the gateway takes out
 * before the backend (where Vary values are read), so that every caller would
 * seem the same: such an answer is each caller's own.
 */
const UNKEPT_VARY: ReadonlySet<string> = new Set([REQUEST_ID_HEADER.toLowerCase(), 'x-api-key', 'authorization']);
/** A client that does not take gzip, for what the cache may give one. */
const WITHOUT_GZIP = { method: 'GET', acceptsGzip: false } as const;

/** Why a response is not (or no longer) being kept, as the fetch it was for ends. */
export type FillRefusal = Exclude<FetchOutcome, 'stored'>;

/** What of the upstream's response a fill starts from: its head, noted while the headers were copied. */
export interface ResponseHead {
  readonly status: number;
  readonly statusText: string;
  readonly rawHeaders: readonly Buffer[];
  readonly caching: CacheHeaders;
  readonly body: BodyHeaders;
}

export class CacheFill {
  private readonly chunks: Buffer[] = [];
  private bytes = 0;
  /** Bytes reserved with the cache for this fill. */
  private reserved = 0;

  private constructor(
    private readonly cache: ResponseCache,
    private readonly key: string,
    private readonly response: Omit<StoredResponse, 'body' | 'storedAt'>,
    /** The body's memory when its length was announced; else the chunks are joined at the end. */
    private readonly body: Buffer | null,
  ) {}

  /**
   * A fill for the response; else why it cannot be kept: 'uncacheable' (not
   * fresh, stale already, too large), or 'failed' when fills in progress hold
   * their share of memory already (the next answer may well be kept).
   */
  static begin(cache: ResponseCache, key: string, head: ResponseHead, request: CacheRequest, compressBodies: boolean): CacheFill | FillRefusal {
    const lifetimeSeconds = freshLifetime(head.status, head.caching, cache.clock);
    const initialAge = upstreamAge(head.caching);
    // Already stale: kept, it would only make requests for its key wait.
    if (lifetimeSeconds <= initialAge) return 'uncacheable';
    const varied = varyNames(head.caching.vary);
    if (varied.some((name) => UNKEPT_VARY.has(name))) return 'uncacheable';
    // A 204 has no body, whatever length the upstream states (forward.ts ends it at its head).
    const length = head.status === 204 ? 0 : head.body.length === undefined ? Number.NaN : Number(head.body.length);
    const announced = Number.isSafeInteger(length);
    if (announced && length > cache.maxObjectBytes) return 'uncacheable';
    const coded = head.body.encoding !== undefined && head.body.encoding !== '';
    const response = {
      status: head.status,
      statusText: head.statusText,
      headerLines: headerLinesOf(head.rawHeaders),
      initialAge,
      lifetimeSeconds,
      vary: varied.map((name) => [name, request.upstreamHeader(name)] as const),
      coded,
      unzippable: coded && chooseCoding({ ...WITHOUT_GZIP, compressBodies }, head.status, head.body) === 'gunzip',
    };
    if (announced && !cache.reserveFill(length)) return 'failed';
    // undici's chunks may share memory it reuses: the body is copied, into memory of its own.
    const fill = new CacheFill(cache, key, response, announced ? Buffer.allocUnsafeSlow(length) : null);
    fill.reserved = announced ? length : 0;
    return fill;
  }

  /** Copies a chunk; else the fill is over: 'uncacheable' when the response turned out too large, 'failed' when fills ran out of memory. */
  add(chunk: Buffer): true | FillRefusal {
    const { body } = this;
    if (this.bytes + chunk.length > (body === null ? this.cache.maxObjectBytes : body.length)) return this.abandon('uncacheable');
    if (body === null) {
      if (!this.cache.reserveFill(chunk.length)) return this.abandon('failed');
      this.reserved += chunk.length;
      this.chunks.push(Buffer.from(chunk));
    } else {
      chunk.copy(body, this.bytes);
    }
    this.bytes += chunk.length;
    return true;
  }

  /** The response is whole: answers whether the cache took it. */
  finish(): boolean {
    this.release();
    let body = this.body;
    if (body === null) {
      body = Buffer.allocUnsafeSlow(this.bytes);
      let at = 0;
      for (const chunk of this.chunks) at += chunk.copy(body, at);
    } else if (this.bytes !== body.length) {
      // Shorter than announced: not a whole response.
      return false;
    }
    const { response } = this;
    // A streamed body's length is known now (Transfer-Encoding is hop-by-hop and goes anyway); a 204 has none.
    const headerLines = this.body === null && response.status !== 204 ? `${response.headerLines}Content-Length\n${body.length}\n` : response.headerLines;
    return this.cache.store(this.key, { ...response, headerLines, body, storedAt: this.cache.clock.now() });
  }

  /** Gives up: what was copied is let go. */
  abandon<Outcome extends FillRefusal>(outcome: Outcome): Outcome {
    this.release();
    this.chunks.length = 0;
    return outcome;
  }

  private release(): void {
    this.cache.releaseFill(this.reserved);
    this.reserved = 0;
  }
}

/** Headers a cached response is not replayed with: X-Cache and Age, which a hit sets afresh, and the Set-Cookie that strip_response_cookies took out of a response kept. */
const NOT_KEPT: ReadonlySet<string> = new Set(['x-cache', 'age', 'set-cookie']);

/** The header lines a cached response is replayed with. */
function headerLinesOf(rawHeaders: readonly Buffer[]): string {
  let lines = '';
  for (let index = 0; index < rawHeaders.length; index += 2) {
    const name = rawHeaders[index]!.toString('latin1');
    if (!NOT_KEPT.has(name.toLowerCase())) lines += `${name}\n${rawHeaders[index + 1]!.toString('latin1')}\n`;
  }
  return lines;
}
