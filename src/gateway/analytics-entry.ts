// The analytics entry of a finished exchange: what was asked, who asked,
// what came back and where the time went.
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { AnalyticsEntry } from '../analytics/log-entry.js';
import { redactApiKeys } from '../lib/log-redaction.js';
import { previewOf } from '../lib/secret-token.js';
import type { Exchange } from './exchange.js';

/** nginx's status for a client that left before the answer's headers (which would otherwise log the 200 it never got). */
const CLIENT_CLOSED_REQUEST = 499;

export function analyticsEntry(exchange: Exchange): AnalyticsEntry {
  const endedAt = performance.now();
  const responseTime = endedAt - exchange.startedAt;
  const upstreamTime = exchange.upstreamStartedAt === 0 ? null : (exchange.upstreamEndedAt || endedAt) - exchange.upstreamStartedAt;
  // Bytes the connection read and wrote since its previous exchange ended: request line, headers and body each way, as nginx counts them.
  const { socket, user, headers } = exchange;
  const marks = byteMarksOf(socket);
  const requestSize = socket.bytesRead - marks.read;
  const responseSize = socket.bytesWritten - marks.written;
  marks.read += requestSize;
  marks.written += responseSize;
  return {
    request_id: exchange.requestId,
    request_at: exchange.requestAt,
    request_method: exchange.method,
    request_scheme: exchange.protocol,
    request_host: exchange.host,
    request_path: exchange.path,
    request_url_query: redactApiKeys(exchange.query),
    request_ip: exchange.ip,
    request_user_agent: headers['user-agent'] ?? null,
    // A page whose address holds its key (…?api_key=…) names it in the Referer of every call it makes.
    request_referer: headers.referer === undefined ? null : redactApiKeys(headers.referer),
    request_origin: headers.origin ?? null,
    request_size: requestSize,
    response_status: exchange.res.headersSent || exchange.switchedProtocols ? exchange.res.statusCode : CLIENT_CLOSED_REQUEST,
    response_size: responseSize,
    response_content_type: exchange.responseContentType,
    response_time: roundMs(responseTime),
    upstream_time: upstreamTime === null ? null : roundMs(upstreamTime),
    gateway_overhead: roundMs(responseTime - (upstreamTime ?? 0)),
    api_backend_id: exchange.route.backend.id,
    user_id: user?.id ?? null,
    user_email: user?.email ?? null,
    // An unknown key's preview too, as API Umbrella logs the key it refused: how an operator finds the client sending a wrong or old one.
    api_key_preview: user?.api_key_preview ?? (exchange.apiKey === null ? null : previewOf(exchange.apiKey)),
    gatekeeper_denied_code: exchange.deniedCode,
    response_custom1: exchange.responseCustom?.[0] ?? null,
    response_custom2: exchange.responseCustom?.[1] ?? null,
    response_custom3: exchange.responseCustom?.[2] ?? null,
  };
}

function roundMs(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

const COUNTED = Symbol('parasol.bytesCounted');

/** A connection's byte totals when its previous exchange ended. */
interface ByteMarks {
  read: number;
  written: number;
}

interface CountedSocket extends Socket {
  [COUNTED]?: ByteMarks;
}

/**
 * The connection's marks, made (at zero) by its first exchange and updated
 * in place by each one after, so no exchange allocates its own. (With
 * pipelining the next request's first bytes may count in this one.)
 */
function byteMarksOf(socket: CountedSocket): ByteMarks {
  return (socket[COUNTED] ??= { read: 0, written: 0 });
}
