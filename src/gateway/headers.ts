// Header names the gateway treats specially, lowercased as Node delivers them.
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';

/** Meaningful for one connection only (RFC 9110 §7.6.1); never forwarded either way. */
export const HOP_BY_HOP: ReadonlySet<string> = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  // HTTP/2's upgrade settings belong to one connection (RFC 9113 section 3.2.1), as do the others.
  'http2-settings',
]);

/**
 * What the gateway writes upstream itself: the framing, the identity of the
 * caller (the backend trusts it) and the forwarding headers, Expect, which
 * the gateway answers itself, and Accept-Encoding, which it normalizes.
 */
const WRITTEN_BY_GATEWAY: readonly string[] = [
  ...HOP_BY_HOP,
  'host',
  'expect',
  'accept-encoding',
  'x-api-user-id',
  'x-api-roles',
  'x-forwarded-for',
  'x-forwarded-proto',
  'x-forwarded-port',
  'x-forwarded-host',
  'x-api-umbrella-request-id',
];

/**
 * Client request headers never passed upstream: those the gateway writes (so
 * forged copies die here), the key, and an admin API token sent along (a
 * script's shared headers), which would hand a backend the admin's rights.
 */
export const NOT_FORWARDED: ReadonlySet<string> = new Set([...WRITTEN_BY_GATEWAY, 'x-api-key', 'x-admin-auth-token']);

/**
 * Names a backend's `headers` setting cannot set: the gateway writes them
 * itself (in API Umbrella nginx's proxy_set_header wins over the settings
 * too), and undici refuses a request whose framing headers it did not write.
 * X-Api-Key may be set: a backend's own key for its upstream.
 */
export const GATEWAY_OWNED: ReadonlySet<string> = new Set([...WRITTEN_BY_GATEWAY, 'content-length']);

export const REQUEST_ID_HEADER = 'X-Api-Umbrella-Request-Id';

/**
 * Response headers a backend's response header settings cannot set: the
 * framing, the body's coding (compression.ts decides it) and the request id.
 */
export const GATEWAY_OWNED_RESPONSE: ReadonlySet<string> = new Set([...HOP_BY_HOP, 'content-length', 'content-encoding', REQUEST_ID_HEADER.toLowerCase()]);

/**
 * Extra header names a Connection header lists as hop-by-hop, or null for
 * the usual "keep-alive" / "close".
 */
export function connectionListed(connection: string | undefined): ReadonlySet<string> | null {
  if (connection === undefined || connection === 'keep-alive' || connection === 'close') return null;
  const names = connection
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '' && name !== 'keep-alive' && name !== 'close');
  return names.length === 0 ? null : new Set(names);
}

/** Whether a request's headers announce a body. */
export function hasBody(headers: IncomingHttpHeaders): boolean {
  const length = headers['content-length'];
  return length === undefined ? headers['transfer-encoding'] !== undefined : length !== '0';
}

/**
 * Whether the client waits for a 100 Continue before sending its body. The
 * listeners take such requests themselves (plugin.ts) instead of Node
 * answering 100 at once: the gateway sends it only once it lets the request
 * through, as nginx sends it only when it reads the body, so a refused
 * upload is never sent.
 */
export function expectsContinue(request: IncomingMessage): boolean {
  const expect = request.headers.expect;
  return expect !== undefined && expect.toLowerCase() === '100-continue' && request.httpVersionMinor >= 1;
}

const CHUNKED = 'chunked';
const ENDS_CHUNKED = /(?:^|,)[ \t]*chunked[ \t]*$/i;

/** Whether a Transfer-Encoding's last coding is chunked, as a request's must be. */
export function endsChunked(value: string): boolean {
  return ENDS_CHUNKED.test(value);
}

/**
 * A Transfer-Encoding naming a coding besides chunked (`gzip, chunked`, or
 * `gzip` alone): the body is still coded once de-chunked, and the gateway,
 * which drops the header as hop-by-hop, would pass it on as if it were not.
 * nginx refuses such messages in front of API Umbrella (501 for a request,
 * 502 for a response).
 */
export function codedTransfer(value: string): boolean {
  // The common case, chunked alone, costs a comparison of lengths and one of text.
  if (value.length === CHUNKED.length && value.toLowerCase() === CHUNKED) return false;
  return value
    .toLowerCase()
    .split(',')
    .some((coding) => {
      const name = coding.trim();
      return name !== CHUNKED && name !== '';
    });
}
