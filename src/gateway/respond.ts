// Writes the gateway's own error responses onto the raw Node response, in
// the format the client asked for, with the headers API Umbrella adds.
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config/schema.js';
import type { RateLimitHeaders } from '../rate-limit/limiter.js';
import { ERRORS, errorMessage, negotiateFormat, renderErrorBody, type ErrorCode, type ErrorFormat } from './errors.js';
import { renderCustomError, type ErrorResponses, type ErrorUrls, type RenderedError } from './error-templates.js';
import { REQUEST_ID_HEADER } from './headers.js';
import { nextRequestId } from './request-id.js';
import { hostnameOf, httpsPortSuffix, type RequestTarget } from './request-url.js';
import { baseUrl } from '../lib/base-url.js';
import { contactUrl } from '../contact/contact-url.js';

/** What an error response depends on in the request. */
export interface ErrorRequest {
  readonly method: string;
  readonly headers: IncomingHttpHeaders;
  /** As sent: "/path?query". */
  readonly url: string;
  readonly path: string;
  readonly query: string;
  readonly protocol: string;
  readonly host: string;
  readonly requestId: string;
  /** The backend's effective settings, once the request has one: its error_templates and error_data apply. */
  readonly settings?: { readonly errorResponses: ErrorResponses | null };
}

export interface ErrorExtras {
  readonly rateLimit?: RateLimitHeaders | null;
  readonly retryAfterSeconds?: number;
}

/** What every error of the gateway carries besides its body's headers, as API Umbrella's do: [name, value, …]. */
export const ERROR_HEADERS: readonly string[] = ['Access-Control-Allow-Origin', '*', 'X-Content-Type-Options', 'nosniff', 'X-Frame-Options', 'DENY'];

/** A request the gateway answers before it has an exchange (a refusal, a failure of its own), with a request id of its own. */
export function errorRequestOf(raw: IncomingMessage, target: RequestTarget, protocol: string, host: string): ErrorRequest {
  return { method: raw.method!, headers: raw.headers, url: raw.url!, path: target.path, query: target.query, protocol, host, requestId: nextRequestId() };
}

/** Answers the Content-Type it sent. */
export function writeError(res: ServerResponse, config: Config, request: ErrorRequest, code: ErrorCode, extras: ErrorExtras = {}): string {
  const negotiated = negotiateFormat(request.path, request.query, request.headers.accept);
  const { status, body } = renderError(config, request, code, negotiated.format);
  const { contentType } = negotiated;
  const headers = [
    'Content-Type',
    contentType,
    'Content-Length',
    String(Buffer.byteLength(body)),
    ...ERROR_HEADERS,
    REQUEST_ID_HEADER,
    request.requestId,
  ];
  if (extras.rateLimit) headers.push(...rateLimitHeaders(extras.rateLimit));
  if (extras.retryAfterSeconds !== undefined) headers.push('Retry-After', String(extras.retryAfterSeconds));
  res.writeHead(status, headers);
  res.end(request.method === 'HEAD' ? undefined : body);
  return contentType;
}

export function rateLimitHeaders(limit: RateLimitHeaders): string[] {
  return ['X-RateLimit-Limit', String(limit.limit), 'X-RateLimit-Remaining', String(Math.max(limit.remaining, 0))];
}

function renderError(config: Config, request: ErrorRequest, code: ErrorCode, format: ErrorFormat): RenderedError {
  const urls = messageUrls(config, request);
  const custom = request.settings?.errorResponses ?? null;
  if (custom !== null) return renderCustomError(custom, code, format, urls);
  return { status: ERRORS[code].status, body: renderErrorBody(format, code, errorMessage(code, urls)) };
}

/** base_url is public_url when set, else what the client called; signup and contact pages hang off it. */
export function messageUrls(config: Config, request: Pick<ErrorRequest, 'protocol' | 'host' | 'url'>): ErrorUrls {
  const base = baseUrl(config, request);
  return {
    base_url: base,
    signup_url: `${base}/signup/`,
    contact_url: contactUrl(config, base),
    https_url: `https://${hostnameOf(request.host)}${httpsPortSuffix(config.listen.https_port)}${request.url}`,
  };
}

/** The gateway's own refusal of a request no backend gets, in the client's format (the pages' hooks refuse with it too). */
export function refuseRequest(config: Config, request: FastifyRequest, reply: FastifyReply, code: ErrorCode, target: RequestTarget): void {
  reply.hijack();
  writeError(reply.raw, config, errorRequestOf(request.raw, target, request.protocol, request.host), code);
}
