// The analytics entry of a finished exchange: what was asked, who asked,
// what came back and where the time went.
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { AnalyticsEntry } from '../analytics/log-entry.js';
import { redactApiKeys } from '../lib/log-redaction.js';
import type { Exchange } from './exchange.js';

export function analyticsEntry(exchange: Exchange): AnalyticsEntry {
  const endedAt = performance.now();
  const responseTime = endedAt - exchange.startedAt;
  const upstreamTime = exchange.upstreamStartedAt === 0 ? null : (exchange.upstreamEndedAt || endedAt) - exchange.upstreamStartedAt;
  const bytes = bytesSinceLastExchange(exchange.socket);
  const { user, headers } = exchange;
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
    request_referer: headers.referer ?? null,
    request_size: bytes.read,
    response_status: exchange.res.statusCode,
    response_size: bytes.written,
    response_time: roundMs(responseTime),
    upstream_time: upstreamTime === null ? null : roundMs(upstreamTime),
    gateway_overhead: roundMs(responseTime - (upstreamTime ?? 0)),
    api_backend_id: exchange.route.backend.id,
    user_id: user?.id ?? null,
    user_email: user?.email ?? null,
    api_key_preview: user?.api_key_preview ?? null,
    gatekeeper_denied_code: exchange.deniedCode,
  };
}

function roundMs(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

const COUNTED = Symbol('parasol.bytesCounted');

interface CountedSocket extends Socket {
  [COUNTED]?: { read: number; written: number };
}

/**
 * Bytes the connection read and wrote since the previous exchange on it
 * ended: request line, headers and body each way, as nginx counts them.
 * (With pipelining the next request's first bytes may count here.)
 */
function bytesSinceLastExchange(socket: CountedSocket): { read: number; written: number } {
  const totalRead = socket.bytesRead;
  const totalWritten = socket.bytesWritten;
  const previous = socket[COUNTED];
  if (previous === undefined) {
    socket[COUNTED] = { read: totalRead, written: totalWritten };
    return { read: totalRead, written: totalWritten };
  }
  const delta = { read: totalRead - previous.read, written: totalWritten - previous.written };
  previous.read = totalRead;
  previous.written = totalWritten;
  return delta;
}
