// With an HTTPS listener, the gateway's own pages and APIs are not used over
// plain HTTP, as in API Umbrella: the admin's password, admin API tokens and
// new API keys would cross the network in clear. Pages are redirected to
// HTTPS; the admin and signup APIs answer 400 HTTPS_REQUIRED, as a script
// that follows a redirect would send its token in clear first anyway.
//
// A client on this machine talking to the plain listener directly (a script
// on the host, a health check) is let through: nothing crosses a network.
// Behind a TLS terminator, a trusted proxy's X-Forwarded-Proto says HTTPS.
import type { FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import type { Config } from '../config/schema.js';
import { hostnameOf, httpsPortSuffix } from '../gateway/request-url.js';
import { peerAddress } from '../lib/peer-address.js';

const LOOPBACK = new Set(['127.0.0.1', '::1']);
/** A host name or address as a Host header may carry one: anything else is not put in a Location. */
const HOST_NAME = /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])$/;

/** For the pages: GET and HEAD move to HTTPS for good (301), other methods keep theirs (308). */
export function redirectPagesToHttps(config: Config): onRequestAsyncHookHandler | null {
  return overPlainHttpHook(config, async (request, reply, httpsUrl) => {
    if (httpsUrl === null) return refuse(reply, null);
    return reply.code(request.method === 'GET' || request.method === 'HEAD' ? 301 : 308).header('location', httpsUrl).send();
  });
}

/**
 * For the admin and signup APIs: API Umbrella's 400 HTTPS_REQUIRED. A CORS
 * preflight (OPTIONS) carries no secret and is answered: a browser then makes
 * the call and shows the embedding page why it was refused.
 */
export function refuseApisOverHttp(config: Config): onRequestAsyncHookHandler | null {
  return overPlainHttpHook(config, async (request, reply, httpsUrl) => (request.method === 'OPTIONS' ? undefined : refuse(reply, httpsUrl)));
}

/**
 * A hook that answers requests over plain HTTP from another machine with
 * `answer`, given the same URL over HTTPS (null when the Host is not one to
 * put in a URL), unless it answers undefined; null without an HTTPS listener.
 */
function overPlainHttpHook(
  config: Config,
  answer: (request: FastifyRequest, reply: FastifyReply, httpsUrl: string | null) => Promise<FastifyReply | undefined>,
): onRequestAsyncHookHandler | null {
  const { https_port: httpsPort } = config.listen;
  if (httpsPort === null) return null;
  return async (request, reply) => {
    if (!overPlainHttp(request)) return;
    const hostname = hostnameOf(request.host);
    return answer(request, reply, HOST_NAME.test(hostname) ? `https://${hostname}${httpsPortSuffix(httpsPort)}${request.url}` : null);
  };
}

function overPlainHttp(request: FastifyRequest): boolean {
  if (request.protocol === 'https') return false;
  const { headers } = request;
  const direct = headers['x-forwarded-for'] === undefined && headers['x-forwarded-proto'] === undefined;
  return !(direct && LOOPBACK.has(peerAddress(request.socket)));
}

function refuse(reply: FastifyReply, httpsUrl: string | null): FastifyReply {
  const message = httpsUrl === null ? 'Requests must be made over HTTPS.' : `Requests must be made over HTTPS. Try accessing the API at: ${httpsUrl}`;
  return reply.code(400).send({ error: { code: 'HTTPS_REQUIRED', message } });
}
