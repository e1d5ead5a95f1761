// The request target as the gateway reads it: path and query split once,
// the path made canonical before matching, query parameters read and edited
// without re-encoding the ones that stay.
import type { IncomingMessage } from 'node:http';

export interface RequestTarget {
  /** Canonical (normalizePath): what is matched, logged and sent upstream. */
  readonly path: string;
  /** Without the "?"; "" when there is none. */
  readonly query: string;
}

/**
 * null when the target is not an origin-form path or climbs above the root.
 * A "#" ends the target, as in nginx's parser: what follows is a fragment,
 * which upstreams drop from the path; kept, "/secret#x" would pass a check
 * anchored on "/secret" and be served as "/secret".
 */
export function parseRequestTarget(target: string): RequestTarget | null {
  if (target.charCodeAt(0) !== 0x2f /* / */) return null;
  const hashAt = target.indexOf('#');
  const url = hashAt < 0 ? target : target.slice(0, hashAt);
  const queryAt = url.indexOf('?');
  const rawPath = queryAt < 0 ? url : url.slice(0, queryAt);
  const path = normalizePath(rawPath);
  if (path === null) return null;
  return { path, query: queryAt < 0 ? '' : url.slice(queryAt + 1) };
}

const ROOT: RequestTarget = { path: '/', query: '' };

/** The target, or the root for one parseRequestTarget refuses: what an error answer needs to pick its format. */
export function targetOrRoot(url: string): RequestTarget {
  return parseRequestTarget(url) ?? ROOT;
}

/** An http(s) URI with a host and no userinfo, which RFC 9112 leaves out of a request target. */
const ABSOLUTE_FORM = /^https?:\/\/([^/?#@]+)([/?].*)?$/is;

/**
 * Makes a request target in absolute-form ("GET http://api.example.com/a?b",
 * as clients configured to use a proxy send it) origin-form ("/a?b"), its
 * host taking the Host header's place: RFC 9112 (section 3.2.2) has a server
 * use the target's host and ignore the header, and nginx does. Any other
 * target that is not origin-form ("*", an authority) stays, to be refused.
 */
export function toOriginForm(request: IncomingMessage): void {
  const url = request.url!;
  if (url.charCodeAt(0) === 0x2f /* / */) return;
  const absolute = ABSOLUTE_FORM.exec(url);
  if (absolute === null) return;
  const rest = absolute[2] ?? '';
  request.url = rest.charCodeAt(0) === 0x2f ? rest : `/${rest}`;
  request.headers.host = absolute[1]!;
}

/** What canonicalPath() may change: an escape, a doubled slash, a segment starting with a dot. */
const MAY_CHANGE = /%|\/\/|(^|\/)\./;
const ESCAPE = /%([0-9A-Fa-f]{2})/g;
const DOUBLED_SLASHES = /\/{2,}/g;
const DOT_SEGMENT = /(^|\/)\.\.?(\/|$)/;

/**
 * A Host (or trusted X-Forwarded-Host) value as RFC 9110 allows it: a name or
 * address, then maybe a port, or nothing (HTTP/1.0). nginx answers anything
 * else 400; passed on, "api.example.com/x" would log a host with a path in it.
 */
const HOST = /^(?:[\w.~!$&'()*+,;=%-]*|\[[\da-f:.]+\])(?::\d*)?$/i;

/**
 * Whether the request names its host as RFC 9112 (section 3.2) requires and
 * nginx enforces in front of API Umbrella: one Host line (none only in
 * HTTP/1.0), and `host` (that line's value, or a trusted X-Forwarded-Host) a
 * host name or address. Node keeps only the first of two Host lines in
 * `headers`, so they are counted in `rawHeaders`.
 */
export function namesOneHost(request: IncomingMessage, host: string): boolean {
  const lines = hostLines(request.rawHeaders);
  return (lines === 1 || (lines === 0 && request.httpVersion === '1.0')) && HOST.test(host);
}

function hostLines(rawHeaders: readonly string[]): number {
  let lines = 0;
  for (let index = 0; index < rawHeaders.length; index += 2) {
    const name = rawHeaders[index]!;
    if (name.length === 4 && name.toLowerCase() === 'host') lines++;
  }
  return lines;
}

/**
 * ":8443" for Parasol's own HTTPS listener on a port other than 443, to
 * follow a host name in an https URL made for a client (a redirect, the
 * HTTPS_REQUIRED message); none without one (a TLS terminator in front
 * answers on 443), nor for port 0 (any free port: tests).
 */
export function httpsPortSuffix(httpsPort: number | null): string {
  return httpsPort === null || httpsPort === 443 || httpsPort === 0 ? '' : `:${httpsPort}`;
}

/** A Host value without its port ("[::1]:8080" → "[::1]"). */
export function hostnameOf(host: string): string {
  const colon = host.lastIndexOf(':');
  return colon > host.lastIndexOf(']') ? host.slice(0, colon) : host;
}

/**
 * The one path the gateway matches backends, sub-settings and rewrites on,
 * logs, and sends upstream, so that no upstream reads a request other than
 * as it was checked: escapes of unreserved characters (RFC 3986 §2.3) and of
 * "/" decoded, runs of "/" merged, "." and ".." segments resolved — as nginx
 * makes the path API Umbrella matches on. Without it "/files//admin/x",
 * "/files/%61dmin/x" or "/files/admin%2Fx" passed the "/files/" backend's
 * checks and reached an upstream that serves them as "/files/admin/x".
 * Other escapes stay, their hex digits in capitals. null when a ".." climbs
 * above "/".
 */
export function normalizePath(path: string): string | null {
  if (!MAY_CHANGE.test(path)) return path;
  const canonical = (path.includes('%') ? path.replace(ESCAPE, decodedIfSafe) : path).replace(DOUBLED_SLASHES, '/');
  return DOT_SEGMENT.test(canonical) ? resolveDotSegments(canonical) : canonical;
}

function decodedIfSafe(escape: string, hex: string): string {
  const code = Number.parseInt(hex, 16);
  return isUnreserved(code) || code === 0x2f ? String.fromCharCode(code) : escape.toUpperCase();
}

/** A–Z, a–z, 0–9, "-", ".", "_", "~". */
function isUnreserved(code: number): boolean {
  return (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a) || (code >= 0x30 && code <= 0x39) || code === 0x2d || code === 0x2e || code === 0x5f || code === 0x7e;
}

function resolveDotSegments(path: string): string | null {
  const segments = path.split('/');
  const kept: string[] = [];
  // segments[0] is the empty string before the leading "/".
  for (let index = 1; index < segments.length; index++) {
    const segment = segments[index]!;
    const last = index === segments.length - 1;
    if (segment === '.') {
      if (last) kept.push('');
    } else if (segment === '..') {
      if (kept.length === 0) return null;
      kept.pop();
      if (last) kept.push('');
    } else {
      kept.push(segment);
    }
  }
  return `/${kept.join('/')}`;
}

/** The first non-empty value of a query parameter, decoded; null when there is none. */
export function firstQueryValue(query: string, name: string): string | null {
  if (query === '' || !query.includes(name)) return null;
  for (const pair of query.split('&')) {
    const equals = pair.indexOf('=');
    if (equals !== name.length || !pair.startsWith(name)) continue;
    const value = pair.slice(equals + 1);
    if (value !== '') return decodeQueryComponent(value);
  }
  return null;
}

/** A query name or value as a form encodes it: "+" a space, %XX escapes decoded (broken ones kept as sent). */
export function decodeQueryComponent(value: string): string {
  const spaced = value.includes('+') ? value.replace(/\+/g, ' ') : value;
  if (!spaced.includes('%')) return spaced;
  try {
    return decodeURIComponent(spaced);
  } catch {
    // Broken escapes are kept as sent; such a value simply matches nothing.
    return spaced;
  }
}

/** A query string to append, parsed once at publish. */
export interface QueryAppend {
  /** Client parameters with these names are replaced. */
  readonly names: ReadonlySet<string>;
  /** "a=1&b=2", appended as written. */
  readonly text: string;
}

export function parseQueryAppend(text: string | null): QueryAppend | null {
  if (text === null) return null;
  const trimmed = text.replace(/^[?&]+|&+$/g, '');
  if (trimmed === '') return null;
  return { names: new Set(trimmed.split('&').map(parameterName)), text: trimmed };
}

/**
 * The query the upstream gets: every api_key parameter removed (empty and
 * bare ones too), parameters replaced by `append` removed, the rest kept in
 * order and byte for byte, then `append` last.
 */
export function upstreamQuery(query: string, append: QueryAppend | null): string {
  if (append === null && !query.includes('api_key')) return query;
  const kept = query === '' ? [] : query.split('&').filter((pair) => isKept(pair, append));
  if (append !== null) kept.push(append.text);
  return kept.join('&');
}

function isKept(pair: string, append: QueryAppend | null): boolean {
  if (pair === '') return false;
  const name = parameterName(pair);
  return name !== 'api_key' && (append === null || !append.names.has(name));
}

function parameterName(pair: string): string {
  const equals = pair.indexOf('=');
  return equals < 0 ? pair : pair.slice(0, equals);
}
