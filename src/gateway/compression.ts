// Response bodies gzipped as API Umbrella's nginx does it (gzip_comp_level 2,
// gzip_min_length 1000, its gzip_types, gzip_vary, gunzip on): text-like
// responses of 1,000 bytes or more, or of unknown length, are compressed for
// clients that accept gzip, and a backend that answers gzip regardless has
// its body unzipped for clients that do not. Upstreams are only ever asked
// for gzip or nothing, as API Umbrella's Traffic Server normalizes
// Accept-Encoding, so no other coding has to be undone.
import { constants, createGunzip, createGzip, type Gunzip, type Gzip } from 'node:zlib';

/** API Umbrella's gzip_types, and text/html, which nginx always compresses. */
const COMPRESSIBLE_TYPES: ReadonlySet<string> = new Set([
  'application/atom+xml',
  'application/javascript',
  'application/json',
  'application/rss+xml',
  'application/x-javascript',
  'application/xml',
  'text/css',
  'text/csv',
  'text/html',
  'text/javascript',
  'text/plain',
  'text/xml',
]);

/** Shorter bodies gain too little to be worth a compressor. */
const MIN_LENGTH = 1000;
/** nginx compresses these statuses only: other answers are usually short, or ranges. */
const COMPRESSED_STATUSES: ReadonlySet<number> = new Set([200, 403, 404]);
const LEVEL = 2;
const MAX_WINDOW_BITS = 15;
const MIN_WINDOW_BITS = 9;
const DEFAULT_MEM_LEVEL = 8;

/**
 * What the body becomes on its way to the client: compressed, unzipped, or
 * untouched (`vary` when a client that asked differently would have got
 * another coding, so caches must keep them apart).
 */
export type BodyCoding = 'gzip' | 'gunzip' | 'vary' | null;

/** The upstream's headers about its body, noted while they are copied. */
export class BodyHeaders {
  type: string | undefined;
  length: string | undefined;
  encoding: string | undefined;
  cacheControl: string | undefined;
  /** A Vary header already covers Accept-Encoding (or everything). */
  varied = false;
  /** The body is still coded once de-chunked (headers.ts, codedTransfer): it cannot be passed on. */
  transferCoded = false;

  reset(): void {
    this.type = this.length = this.encoding = this.cacheControl = undefined;
    this.varied = this.transferCoded = false;
  }

  /** Notes a header by its lowercase name; answers whether it was one of these. */
  note(name: string, value: string): boolean {
    switch (name) {
      case 'content-type':
        this.type = value;
        return true;
      case 'content-length':
        this.length = value;
        return true;
      case 'content-encoding':
        // Several headers are one list ("br" then "gzip" is "br, gzip"), which only a lone "gzip" can be undone from.
        this.encoding = this.encoding === undefined ? value : `${this.encoding}, ${value}`;
        return true;
      case 'cache-control':
        this.cacheControl = value;
        return true;
      case 'vary':
        this.varied ||= /(?:^|,)\s*(?:accept-encoding|\*)\s*(?:,|$)/i.test(value);
        return true;
      default:
        return false;
    }
  }

  /** A header a backend setting replaced says nothing about the body any more. */
  forget(name: string): void {
    if (name === 'content-type') this.type = undefined;
    else if (name === 'cache-control') this.cacheControl = undefined;
    else if (name === 'vary') this.varied = false;
  }
}

/**
 * The type of a body the upstream named none for (an empty Content-Type
 * names none): text/plain, nginx's default_type, as API Umbrella sends it,
 * and so gzipped as text/plain is. null when it has a type, or no content to
 * type: a 204, 205 or 304, or a Content-Length of 0.
 */
export function defaultType(status: number, body: BodyHeaders): string | null {
  if (body.type !== undefined || status === 204 || status === 205 || status === 304 || body.length === '0') return null;
  return 'text/plain';
}

/** Header names BodyHeaders.note() and recode() look at. */
export const BODY_HEADER_NAMES: readonly string[] = ['content-type', 'content-length', 'content-encoding', 'cache-control', 'vary', 'etag', 'accept-ranges'];

/** Whether an Accept-Encoding header takes gzip (or x-gzip) with a quality above 0, as nginx reads it. */
export function acceptsGzip(acceptEncoding: string | undefined): boolean {
  if (acceptEncoding === undefined) return false;
  for (const item of acceptEncoding.split(',')) {
    const [coding, ...params] = item.split(';');
    const name = coding!.trim().toLowerCase();
    if (name === 'gzip' || name === 'x-gzip') return quality(params) > 0;
  }
  return false;
}

/** The q parameter's value; 1 without one, 0 when it is not a number. */
function quality(params: readonly string[]): number {
  for (const param of params) {
    const [key, value] = param.split('=');
    if (key!.trim().toLowerCase() !== 'q') continue;
    const q = Number(value?.trim());
    return Number.isFinite(q) ? q : 0;
  }
  return 1;
}

export interface CodingRequest {
  readonly method: string;
  /** The client takes gzip (and speaks HTTP/1.1). */
  readonly acceptsGzip: boolean;
  /** proxy.gzip: false leaves every body as the upstream sent it. */
  readonly compressBodies: boolean;
}

/** What to do with an upstream body. */
export function chooseCoding(request: CodingRequest, status: number, body: BodyHeaders): BodyCoding {
  if (!request.compressBodies || request.method === 'HEAD' || status === 204 || status === 304) return null;
  if (body.encoding !== undefined && body.encoding !== '') {
    if (body.encoding.trim().toLowerCase() !== 'gzip') return null;
    // A range of a gzipped body does not unzip on its own.
    return request.acceptsGzip || forbidsTransform(body) || status === 206 ? 'vary' : 'gunzip';
  }
  if (!COMPRESSED_STATUSES.has(status) || !compressibleType(body.type) || tooShort(body.length)) return null;
  return request.acceptsGzip && !forbidsTransform(body) ? 'gzip' : 'vary';
}

function compressibleType(type: string | undefined): boolean {
  if (type === undefined) return false;
  const semicolon = type.indexOf(';');
  return COMPRESSIBLE_TYPES.has((semicolon < 0 ? type : type.slice(0, semicolon)).trim().toLowerCase());
}

function tooShort(length: string | undefined): boolean {
  return length !== undefined && Number(length) < MIN_LENGTH;
}

/** Cache-Control: no-transform: no intermediary may change the content (RFC 9111 §5.2.2.6). */
function forbidsTransform(body: BodyHeaders): boolean {
  return body.cacheControl !== undefined && /(?:^|,)\s*no-transform\s*(?:,|$)/i.test(body.cacheControl);
}

/**
 * The response headers for the chosen coding: the body's length, ranges and
 * strong validator no longer hold for a changed body, so Content-Length and
 * Accept-Ranges go and the ETag becomes weak, as nginx does.
 */
export function recode(headers: string[], coding: Exclude<BodyCoding, null>, body: BodyHeaders): string[] {
  let out = headers;
  if (coding !== 'vary') {
    out = [];
    for (let index = 0; index < headers.length; index += 2) {
      const name = headers[index]!.toLowerCase();
      const value = headers[index + 1]!;
      // An upstream Content-Encoding here is "gzip" being undone, or an empty one the new coding replaces.
      if (name === 'content-length' || name === 'accept-ranges' || name === 'content-encoding') continue;
      out.push(headers[index]!, name === 'etag' && !value.startsWith('W/') ? `W/${value}` : value);
    }
    if (coding === 'gzip') out.push('Content-Encoding', 'gzip');
  }
  if (!body.varied) out.push('Vary', 'Accept-Encoding');
  return out;
}

/**
 * The stream the body goes through. Each upstream chunk is flushed through
 * at once (Z_SYNC_FLUSH), so a streamed response keeps streaming; a body of
 * known length gets a window no larger than it needs, as nginx sizes it,
 * which keeps the memory of many small responses small.
 */
export function bodyCoder(coding: 'gzip' | 'gunzip', body: BodyHeaders): Gzip | Gunzip {
  if (coding === 'gunzip') return createGunzip({ flush: constants.Z_SYNC_FLUSH });
  let windowBits = MAX_WINDOW_BITS;
  let memLevel = DEFAULT_MEM_LEVEL;
  const length = body.length === undefined ? Number.NaN : Number(body.length);
  // 262: zlib's MIN_LOOKAHEAD, the window room deflate keeps free.
  while (windowBits > MIN_WINDOW_BITS && length < (1 << (windowBits - 1)) - 262) {
    windowBits--;
    memLevel--;
  }
  return createGzip({ level: LEVEL, windowBits, memLevel: Math.max(1, memLevel), flush: constants.Z_SYNC_FLUSH });
}
