// One analytics entry per request that matched an API backend, allowed or denied.

export interface AnalyticsEntry {
  readonly request_id: string;
  /** Milliseconds since the epoch. */
  readonly request_at: number;
  readonly request_method: string;
  readonly request_scheme: string;
  readonly request_host: string;
  readonly request_path: string;
  /** Query string without "?", every api_key value replaced by [REDACTED]. */
  readonly request_url_query: string;
  readonly request_ip: string;
  /** This header and the next as Node reads them: a character per byte (stored as those bytes, so UTF-8 stays UTF-8). */
  readonly request_user_agent: string | null;
  readonly request_referer: string | null;
  /** The Origin header, which browsers send with cross-site calls. */
  readonly request_origin: string | null;
  readonly request_size: number;
  readonly response_status: number;
  readonly response_size: number;
  /** The Content-Type the client got (after the backend's header settings); null when the answer had none. */
  readonly response_content_type: string | null;
  /** Milliseconds, total time in the gateway. */
  readonly response_time: number;
  /** Milliseconds spent waiting on the upstream; null when it was not called. */
  readonly upstream_time: number | null;
  /** response_time minus upstream_time. */
  readonly gateway_overhead: number;
  readonly api_backend_id: string;
  readonly user_id: string | null;
  readonly user_email: string | null;
  readonly api_key_preview: string | null;
  /** Lowercase error code (api_key_missing, over_rate_limit, …) when the gateway refused the request. */
  readonly gatekeeper_denied_code: string | null;
  /** What the backend's X-Api-Umbrella-Analytics-Custom1..3 response headers said (API Umbrella's custom dimensions); not sent on to the client. */
  readonly response_custom1: string | null;
  readonly response_custom2: string | null;
  readonly response_custom3: string | null;
}

/** Where the proxy hands entries; it must return at once and never throw. */
export interface AnalyticsRecorder {
  /** false: record() keeps nothing, so the proxy need not build entries at all. */
  readonly enabled: boolean;
  record(entry: AnalyticsEntry): void;
}
