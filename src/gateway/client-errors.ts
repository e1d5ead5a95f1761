// Requests Node's HTTP parser refuses before any route sees them (headers
// too large, a byte a URL may not hold, a body framed two ways, a request
// too slow to arrive): answered in API Umbrella's error shapes and format,
// with the headers every gateway error has, instead of Fastify's own JSON.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { ConnectionError } from 'fastify';
import { negotiateFormat, renderErrorBody } from './errors.js';
import { codedTransfer, endsChunked } from './headers.js';
import { ERROR_HEADERS } from './respond.js';
import { answerGoingOut } from './pipelining.js';

interface Refusal {
  readonly status: number;
  readonly reason: string;
  readonly code: string;
  readonly message: string;
}

const MALFORMED: Refusal = { status: 400, reason: 'Bad Request', code: 'BAD_REQUEST', message: 'The request is malformed.' };

const TOO_SLOW: Refusal = { status: 408, reason: 'Request Timeout', code: 'REQUEST_TIMEOUT', message: 'The request took too long to arrive.' };

const REFUSALS: Readonly<Record<string, Refusal>> = {
  HPE_HEADER_OVERFLOW: { status: 431, reason: 'Request Header Fields Too Large', code: 'REQUEST_HEADERS_TOO_LARGE', message: 'The request headers are too large.' },
  HPE_INVALID_URL: { ...MALFORMED, message: 'The request URL is malformed.' },
  ERR_HTTP_REQUEST_TIMEOUT: TOO_SLOW,
};

/**
 * Header lines a request may have. Node keeps up to its maxHeadersCount and
 * drops the rest silently, a Content-Length or Transfer-Encoding among them
 * (the upstream then got a POST without its body), so the listeners keep one
 * more and a request that has it is refused 431, as API Umbrella refuses one
 * over its count. 1,000 is Node's own count.
 */
export const MAX_REQUEST_HEADERS = 1000;

/** The gateway's error headers as lines of a response head. */
const ERROR_HEADER_LINES = ERROR_HEADERS.reduce((lines, item, index) => (index % 2 === 0 ? `${lines}${item}: ` : `${lines}${item}\r\n`), '');

/** What of the refused request was read: enough for its path, query and Accept. */
const MAX_HEAD_READ = 16 * 1024;

/** Connections whose refusal waits for an answer to an earlier request on them to go out first. */
const answersFirst = new WeakSet<Socket>();

/**
 * For Fastify's clientErrorHandler (the HTTPS listener relays its errors
 * there too). Bytes that do not parse after a request whose answer is still
 * on its way (pipelined) are refused after that answer, as nginx does, not
 * in its place; bytes after a request that asked to close the connection
 * are ignored, as by nginx.
 */
export function answerClientError(error: ConnectionError, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const responding = answerGoingOut(socket);
  // A request whose own body would not parse is refused at once; bytes after a whole request wait for its answer.
  if (responding !== null && !responding.writableFinished && responding.req.complete) {
    if (error.code === 'HPE_CLOSED_CONNECTION' || answersFirst.has(socket)) return;
    answersFirst.add(socket);
    let done = false;
    const then = () => {
      if (done) return;
      done = true;
      answersFirst.delete(socket);
      answerClientError(error, socket);
    };
    responding.once('finish', then);
    responding.once('close', then);
    return;
  }
  if (error.code === 'HPE_CLOSED_CONNECTION') {
    socket.destroy();
    return;
  }
  // As Node's own handler: not into the middle of a response already going out on the connection.
  if (socket.writable && responding?.headersSent !== true) {
    // Node's rawPacket is a Buffer (Fastify's type says otherwise).
    const packet: unknown = error.rawPacket;
    const { method, path, query, accept, transferEncoding } = headOf(Buffer.isBuffer(packet) ? packet : undefined);
    writeRefusal(socket, refusalOf(error.code, transferEncoding), path, query, accept, method === 'HEAD');
  }
  socket.destroy();
}

const CONNECT_REFUSED: Refusal = { status: 405, reason: 'Method Not Allowed', code: 'METHOD_NOT_ALLOWED', message: 'The request method is not allowed.' };

/**
 * A CONNECT (a tunnel through the gateway) is not an API call: 405 in the
 * client's format, where Node, with no 'connect' listener, would close the
 * connection without a word. Its target names a host, not a path.
 */
export function refuseConnect(request: IncomingMessage, socket: Duplex): void {
  socket.on('error', () => undefined);
  writeRefusal(socket, CONNECT_REFUSED, '', '', request.headers.accept);
  socket.end();
}

/** A HEAD's answer (`headOnly`) states the body's length without the body, as any answer to a HEAD. */
function writeRefusal(socket: Duplex, refusal: Refusal, path: string, query: string, accept: string | undefined, headOnly = false): void {
  const { format, contentType } = negotiateFormat(path, query, accept);
  const body = renderErrorBody(format, refusal.code, refusal.message);
  socket.write(
    `HTTP/1.1 ${refusal.status} ${refusal.reason}\r\nContent-Type: ${contentType}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `${ERROR_HEADER_LINES}Connection: close\r\n\r\n` +
      (headOnly ? '' : body),
  );
}

/**
 * The parser refuses a Transfer-Encoding that does not end in chunked. One
 * that names no chunked at all (`gzip`, `test123`) asks for a coding the
 * gateway does not implement: 501, as nginx answers in front of API Umbrella.
 * A chunked out of place (`chunked, gzip`) is a malformed framing: 400.
 */
function refusalOf(code: string, transferEncoding: string): Refusal {
  if (code === 'HPE_INVALID_TRANSFER_ENCODING' && !transferEncoding.split(',').some((coding) => coding.trim() === 'chunked')) return UNSUPPORTED_CODING;
  return REFUSALS[code] ?? MALFORMED;
}

/** The request line's method, path and query, the Accept header and every Transfer-Encoding (lowercase, joined), as far as they arrived. */
function headOf(packet: Buffer | undefined): { method: string; path: string; query: string; accept: string | undefined; transferEncoding: string } {
  const head = packet === undefined ? '' : packet.subarray(0, MAX_HEAD_READ).toString('latin1');
  const accept = /\r\naccept:[ \t]*([^\r\n]*)/i.exec(head)?.[1];
  const transferEncoding = [...head.matchAll(/\r\ntransfer-encoding:[ \t]*([^\r\n]*)/gi)].map((match) => match[1]!.toLowerCase()).join(',');
  const requestLine = /^([A-Z]+) (\S+)/.exec(head);
  return { method: requestLine?.[1] ?? '', ...splitTarget(requestLine?.[2] ?? '/'), accept, transferEncoding };
}

function splitTarget(target: string): { path: string; query: string } {
  const queryAt = target.indexOf('?');
  return { path: queryAt < 0 ? target : target.slice(0, queryAt), query: queryAt < 0 ? '' : target.slice(queryAt + 1) };
}

/**
 * A request whose body stopped arriving (body-pauses.ts) gets the 408 of a
 * request whose headers stopped, and its connection closes: the rest of its
 * body will not be waited for. One already answered, or being answered,
 * only loses its connection.
 */
export function answerStalledBody(request: IncomingMessage, response: ServerResponse, socket: Socket): void {
  if (response.headersSent) socket.destroy();
  else refuse(request, response, TOO_SLOW);
}

const UNSUPPORTED_CODING: Refusal = {
  status: 501,
  reason: 'Not Implemented',
  code: 'NOT_IMPLEMENTED',
  message: 'The request body is sent in a Transfer-Encoding the gateway does not support; send it chunked, or with a Content-Length.',
};

/**
 * A body coded before it was chunked (`Transfer-Encoding: gzip, chunked`)
 * gets 501 (headers.ts, codedTransfer). Framings that do not end in chunked
 * are refused by the parser before this (refusalOf). An HTTP/1.0 request has
 * no Transfer-Encoding (RFC 9112 section 6.1 calls its framing faulty): 400,
 * as nginx answers.
 */
export function refuseTransferCoding(request: IncomingMessage, response: ServerResponse): boolean {
  const coding = request.headers['transfer-encoding'];
  if (coding === undefined) return false;
  if (request.httpVersionMinor === 0 && request.httpVersionMajor === 1) refuse(request, response, MALFORMED);
  else if (codedTransfer(coding) && endsChunked(coding)) refuse(request, response, UNSUPPORTED_CODING);
  else return false;
  return true;
}

/** Whether the request has more header lines than MAX_REQUEST_HEADERS (the listeners keep one more). */
export function hasTooManyHeaders(request: IncomingMessage): boolean {
  return request.rawHeaders.length > 2 * MAX_REQUEST_HEADERS;
}

/** 431, as for a header section too large, and the connection closes. */
export function refuseTooManyHeaders(request: IncomingMessage, response: ServerResponse): void {
  refuse(request, response, REFUSALS.HPE_HEADER_OVERFLOW!);
}

/** Answers `refusal` in the client's format and closes the connection: what is left of the request is not read. */
function refuse(request: IncomingMessage, response: ServerResponse, refusal: Refusal): void {
  const { path, query } = splitTarget(request.url ?? '/');
  const { format, contentType } = negotiateFormat(path, query, request.headers.accept);
  const body = renderErrorBody(format, refusal.code, refusal.message);
  response.writeHead(refusal.status, refusal.reason, [
    'Content-Type',
    contentType,
    'Content-Length',
    String(Buffer.byteLength(body)),
    ...ERROR_HEADERS,
    'Connection',
    'close',
  ]);
  response.end(request.method === 'HEAD' ? undefined : body);
}
