// Conditional requests answered from the response cache, as Traffic Server
// answers them in API Umbrella: a client that already holds the cached
// answer (If-None-Match naming its ETag, or If-Modified-Since not before its
// Last-Modified) gets 304 Not Modified without the body (RFC 9110 §13.1).
import type { IncomingHttpHeaders } from 'node:http';
import type { StoredResponse } from './response-cache.js';

/** What a 304 carries of the stored response's headers (RFC 9110 §15.4.5); the gateway adds its own after. */
const NOT_MODIFIED_HEADERS: ReadonlySet<string> = new Set(['cache-control', 'content-location', 'date', 'etag', 'expires', 'vary']);

/** Whether the client's validators match the stored 200: If-None-Match decides when sent, else If-Modified-Since. */
export function notModified(request: IncomingHttpHeaders, response: StoredResponse): boolean {
  if (response.status !== 200) return false;
  const ifNoneMatch = request['if-none-match'];
  if (ifNoneMatch !== undefined) return matchesEtag(ifNoneMatch, storedHeader(response.headerLines, 'etag'));
  const ifModifiedSince = request['if-modified-since'];
  if (ifModifiedSince === undefined) return false;
  const since = Date.parse(ifModifiedSince);
  const lastModified = Date.parse(storedHeader(response.headerLines, 'last-modified') ?? '');
  return !Number.isNaN(since) && !Number.isNaN(lastModified) && lastModified <= since;
}

/** The stored header lines a 304 is sent with. */
export function notModifiedHeaderLines(headerLines: string): string {
  let kept = '';
  forEachHeader(headerLines, (name, value) => {
    if (NOT_MODIFIED_HEADERS.has(name.toLowerCase())) kept += `${name}\n${value}\n`;
  });
  return kept;
}

/** Weak comparison, as If-None-Match uses: W/"x" matches "x"; * matches any stored answer. */
function matchesEtag(ifNoneMatch: string, etag: string | undefined): boolean {
  if (ifNoneMatch.trim() === '*') return true;
  if (etag === undefined) return false;
  const stored = opaqueTag(etag);
  return ifNoneMatch.split(',').some((candidate) => opaqueTag(candidate) === stored);
}

function opaqueTag(entityTag: string): string {
  const tag = entityTag.trim();
  return tag.startsWith('W/') ? tag.slice(2) : tag;
}

function storedHeader(headerLines: string, wanted: string): string | undefined {
  let found: string | undefined;
  forEachHeader(headerLines, (name, value) => {
    if (found === undefined && name.toLowerCase() === wanted) found = value;
  });
  return found;
}

/** headerLines holds "name\nvalue\n" for each header, as the cache stores them. */
function forEachHeader(headerLines: string, visit: (name: string, value: string) => void): void {
  const lines = headerLines.split('\n');
  for (let index = 0; index + 1 < lines.length; index += 2) visit(lines[index]!, lines[index + 1]!);
}
