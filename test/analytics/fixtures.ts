// Analytics entries for tests, and a fresh real store to put them in.
import { join } from 'node:path';
import type { AnalyticsEntry } from '../../src/analytics/log-entry.js';
import { openStore, type Db } from '../../src/store/db.js';
import { tempDir } from '../helpers/config.js';

export const T0 = Date.UTC(2026, 0, 15, 12, 0, 0);
export const DAY = 86_400_000;

let sequence = 0;

/** The entry as the proxy records it: its header fields as Node reads a header's bytes, a character per byte. */
export function asReceived(recorded: AnalyticsEntry): AnalyticsEntry {
  const header = (value: string | null) => (value === null ? null : Buffer.from(value, 'utf8').toString('latin1'));
  return {
    ...recorded,
    request_user_agent: header(recorded.request_user_agent),
    request_referer: header(recorded.request_referer),
    request_origin: header(recorded.request_origin),
    response_content_type: header(recorded.response_content_type),
    response_custom1: header(recorded.response_custom1),
    response_custom2: header(recorded.response_custom2),
    response_custom3: header(recorded.response_custom3),
  };
}

export function entry(overrides: Partial<AnalyticsEntry> = {}): AnalyticsEntry {
  sequence++;
  return {
    request_id: `req-${sequence}`,
    request_at: T0,
    request_method: 'GET',
    request_scheme: 'http',
    request_host: 'api.example.com',
    request_path: '/weather/forecast',
    request_url_query: 'city=Paris',
    request_ip: '192.0.2.1',
    request_user_agent: 'curl/8.5.0',
    request_referer: null,
    request_origin: null,
    request_size: 120,
    response_status: 200,
    response_size: 512,
    response_content_type: 'application/json',
    response_time: 12,
    upstream_time: 10,
    gateway_overhead: 2,
    api_backend_id: 'backend-1',
    user_id: 'user-1',
    user_email: 'one@example.com',
    api_key_preview: 'abcd…',
    gatekeeper_denied_code: null,
    response_custom1: null,
    response_custom2: null,
    response_custom3: null,
    ...overrides,
  };
}

export function tempStore(): Db {
  return openStore(join(tempDir('parasol-analytics-'), 'data'));
}

export function storedCount(db: Db): number {
  return (db.prepare('SELECT count(*) AS n FROM analytics_logs').get() as { n: number }).n;
}
