// The data plane: every request that is not for the gateway's own endpoints
// goes through one catch-all route into the gateway.
import { METHODS, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { OpenWork } from '../lib/open-work.js';
import { holdTickEntryShape } from '../lib/tick-shape.js';
import { Bans } from './bans.js';
import type { BodyPauseWatch } from './body-pauses.js';
import { ClientLimits } from './client-limits.js';
import { hasTooManyHeaders, refuseTransferCoding, refuseTooManyHeaders } from './client-errors.js';
import { Gateway, type PageHandler } from './gateway.js';
import { builtInHomepage } from './homepage.js';
import { expectsContinue, hasBody } from './headers.js';
import { afterAnswer, answerToWaitFor } from './pipelining.js';
import { toOriginForm } from './request-url.js';
import { responseOnUpgrade } from './upgrade-tunnel.js';

export interface GatewayPluginOptions {
  /** Serves GET/HEAD "/" when no backend matches it; a plain built-in page when absent. */
  readonly homepage?: PageHandler;
  /** Counts what the app serves, for a reload to retire it once idle; a count of its own when absent. */
  readonly work?: OpenWork;
}

export function gatewayPlugin(context: AppContext, options: GatewayPluginOptions = {}) {
  return async (app: FastifyInstance): Promise<void> => {
    const work = options.work ?? new OpenWork();
    const gateway = new Gateway(context, options.homepage ?? builtInHomepage(context.config), work);
    // Every proxied request makes several ticks: keep their entries on V8's fast path (see tick-shape.ts).
    holdTickEntryShape();
    app.addHook('onClose', () => gateway.close());
    // A pino child logger per request would be built and never used: the gateway logs through analytics.
    app.setChildLoggerFactory((logger) => logger);
    // Bodies are streamed to the upstream untouched, never parsed.
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', (_request, _payload, done) => done(null));
    // Fastify knows only the common methods; the gateway forwards WebDAV and the rest as well.
    for (const method of METHODS) {
      if (method !== 'CONNECT' && !app.supportedMethods.includes(method)) app.addHttpMethod(method, { hasBody: true });
    }
    app.all('/*', (request, reply) => gateway.handle(request, reply));
    const bodies = context.bodyWatch;
    const bans = Bans.compile(context.config.ban, context.proxyTrust);
    const limits = ClientLimits.compile(context.config, context.proxyTrust, context.clientLimitCounts);
    app.addHook('onClose', () => limits?.stop());
    takeMatchedRequestsFirst(app, gateway, { bodies, bans, limits, work });
    app.server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
      toOriginForm(request);
      if (bans?.refuses(request)) {
        // Node's HTTP server let go of the connection: an error on it must not reach the process.
        socket.on('error', () => socket.destroy());
        bans.answer(request, responseOnUpgrade(request, socket));
      } else if (hasTooManyHeaders(request)) {
        socket.on('error', () => socket.destroy());
        refuseTooManyHeaders(request, responseOnUpgrade(request, socket));
      } else if (limits === null || limits.admitUpgrade(request, socket)) gateway.upgrade(request, socket, head);
    });
    app.addHook('preClose', () => gateway.beginClosing());
  };
}

/** What every request meets first, whoever answers it. */
interface Gatekeeping {
  /** Watches every request with a body for a body that stops arriving. */
  readonly bodies: BodyPauseWatch;
  /** Refuses banned clients; null when there are none. */
  readonly bans: Bans | null;
  /** Refuses clients over the global per-IP limits; null when none is set. */
  readonly limits: ClientLimits | null;
  /** Counts the requests Fastify answers (the gateway counts its exchanges, so one Fastify hands it counts twice, which is harmless). */
  readonly work: OpenWork;
}

/**
 * Requests a backend will take go straight to the gateway; Fastify's request
 * listener gets the rest, and every request once the server starts closing.
 * Fastify is created with its listener as the server's only 'request'
 * listener; this one takes its place.
 */
function takeMatchedRequestsFirst(app: FastifyInstance, gateway: Gateway, { bodies, bans, limits, work }: Gatekeeping): void {
  const listeners = app.server.listeners('request');
  if (listeners.length !== 1) throw new Error(`The gateway expects Fastify's server to have one request listener, not ${listeners.length}`);
  const fastifyListener = listeners[0] as (request: IncomingMessage, response: ServerResponse) => void;
  app.server.removeListener('request', fastifyListener);
  const listener = (request: IncomingMessage, response: ServerResponse): void => {
    const earlier = answerToWaitFor(request, response);
    if (earlier !== null) return afterAnswer(earlier, () => listener(request, response));
    toOriginForm(request);
    // A banned client gets the ban's answer whatever its request is like.
    if (bans?.refuses(request)) return bans.answer(request, response);
    if (limits !== null && !limits.admit(request, response)) return;
    if (hasTooManyHeaders(request)) return refuseTooManyHeaders(request, response);
    if (refuseTransferCoding(request, response)) return;
    if (hasBody(request.headers)) bodies.watch(request, response);
    if (gateway.handleDirect(request, response)) return;
    work.track(response, request.socket);
    // The gateway's own pages and API read what they are sent.
    if (expectsContinue(request)) response.writeContinue();
    fastifyListener(request, response);
  };
  app.server.on('request', listener);
  // Taken here, Node answers neither 100 Continue at once (the gateway sends it once it lets the request through) nor 417 to
  // another expectation, which nginx ignores in front of API Umbrella (Expect is not sent upstream).
  app.server.on('checkContinue', listener);
  app.server.on('checkExpectation', listener);
}
