// API Umbrella's keys (api-umbrella.yml) that an operator moving a config over
// may bring: where each went in Parasol, or why Parasol has none, so that the
// one line start-up stops with says what to do rather than only "unknown key".
import { isPlainObject } from '../lib/validation-errors.js';

/** Parasol's key for it, or what to do instead. */
export type UmbrellaKey = { readonly parasol: string } | { readonly note: string };

const parasol = (key: string): UmbrellaKey => ({ parasol: key });
const note = (text: string): UmbrellaKey => ({ note: text });

/** The same entry for several keys. */
const each = (keys: readonly string[], known: UmbrellaKey): [string, UmbrellaKey][] => keys.map((key) => [key, known]);

const RUNS_WITHOUT = note('a part of API Umbrella that Parasol runs without: remove the key');
const DATA_DIR = note('Parasol keeps its store, keys and cache in data_dir');
const RUNS_AS = note('the package runs Parasol as the user parasol; from source, as whoever starts it');
const OWN_ANALYTICS = note('Parasol keeps analytics in its own store');
const LOGS_TO_STDOUT = note('Parasol logs to its standard output, which the package appends to /var/log/parasol/parasol.log');
const ONE_PROCESS = note('Parasol serves the web admin and signup from its one Node process: remove the key');
const NO_PUBLIC_METRICS = note('Parasol has no public metrics summary; GET /admin/stats/summary.json answers admins (README, Moving from API Umbrella)');
const NO_CAPTCHA = note('Parasol asks signups for no CAPTCHA: it limits them per client IP (signup.rate_limit_per_minute, signup.rate_limit_per_hour) and sets a honeypot field');

const UMBRELLA_KEYS: ReadonlyMap<string, UmbrellaKey> = new Map([
  ['http_port', parasol('listen.port')],
  ['https_port', parasol('listen.https_port')],
  ['app_env', note('remove it')],
  ...each(['user', 'group'], RUNS_AS),
  ...each(['root_dir', 'etc_dir', 'var_dir', 'db_dir', 'run_dir', 'tmp_dir'], DATA_DIR),
  ['log_dir', LOGS_TO_STDOUT],
  ['log.destination', LOGS_TO_STDOUT],
  ['log_template_version', note('remove it')],
  ['rlimits', note("Parasol sets no process limits: the package's systemd unit raises the open-file limit (LimitNOFILE); elsewhere, ulimit -n where Parasol starts")],
  [
    'static_site',
    note('Parasol serves its own homepage at / (homepage.file for a page of yours) and signup at /signup/; other pages go behind an API backend with disable_api_key'),
  ],
  ['apis', note('Parasol keeps API backends in its store: add them with the admin API (POST /api-umbrella/v1/apis) or the web admin, then publish')],
  ['website_backends', note('Parasol has no website backends (README, Moving from API Umbrella)')],
  ...each(['services', 'nginx', 'envoy', 'trafficserver', 'fluent_bit', 'rsyslog', 'supervisord', 'redis', 'varnish', 'mongodb', 'postgresql', 'elasticsearch', 'opensearch'], RUNS_WITHOUT),
  ['apiSettings', parasol('default_api_backend_settings')],
  [
    'hosts',
    note(
      "a host with default: true is default_host; a host's real_ip_header is real_ip_header and its http_strict_transport_security tls.http_strict_transport_security, both for every host; Parasol has no other per-host settings",
    ),
  ],
  ['dns_resolver', note('Parasol looks up upstream names again every proxy.upstream_dns_refresh_ms')],
  ['router.trusted_proxies', parasol('trusted_proxies')],
  ['router.global_rate_limits', parasol('global_rate_limits')],
  [
    'router.api_backends',
    note('idle upstream connections close after proxy.keep_alive_timeout_ms (milliseconds); proxy.connections_per_server caps those in flight'),
  ],
  ['router.match_x_forwarded_host', note("a trusted proxy's X-Forwarded-Host always decides the host in Parasol")],
  ['gatekeeper.default_frontend_host', parasol('default_host')],
  ['gatekeeper.api_key_methods', note("Parasol takes a key from the X-Api-Key header, the api_key parameter and basic auth's user name, always")],
  ['geoip.maxmind_license_key', note('Parasol downloads no database: put a GeoLite2 City file in analytics.geoip_file')],
  ...each(['analytics.adapter', 'analytics.outputs'], OWN_ANALYTICS),
  ['web.contact_form_email', parasol('contact_email')],
  ['web.send_notify_email', parasol('signup.send_notify_email')],
  ['web.admin_notify_email', parasol('signup.notify_email')],
  ...each(['web.recaptcha_v2_secret_key', 'web.recaptcha_v3_secret_key'], NO_CAPTCHA),
  ...each(['web.analytics_v0_summary_required_role', 'web.analytics_v0_summary_start_time', 'web.analytics_v0_summary_end_time', 'web.analytics_v0_summary_filter'], NO_PUBLIC_METRICS),
  ...each(['web.puma', 'web.workers'], ONE_PROCESS),
  ['web.max_body_size', note("Parasol's admin API and pages take bodies up to 1 MiB, API Umbrella's default, not configurable")],
  // API Umbrella's smtp_settings' names, brought under Parasol's mailer.smtp.
  ['mailer.smtp.address', parasol('mailer.smtp.host')],
  ['mailer.smtp.user_name', parasol('mailer.smtp.username')],
  ['mailer.smtp.ssl', parasol('mailer.smtp.secure')],
  ['mailer.smtp.tls', parasol('mailer.smtp.secure')],
  ['mailer.smtp.authentication', note('Parasol signs in to the SMTP server with username and password when they are set')],
  ['mailer.smtp.enable_starttls_auto', note('Parasol uses STARTTLS whenever the server offers it (mailer.smtp.secure: true for TLS from the start)')],
  ['web.mailer.smtp_settings', note('mailer.smtp: host (API Umbrella\'s address), port, secure, username (user_name) and password')],
  ['web.admin.password_length_min', parasol('admin.password_min_length')],
  ['web.admin.initial_superusers', note('create the first admin with parasol admins create --email E --password P')],
  ['web.admin.username_is_email', note("Parasol's admins are known by their email")],
  ...each(['web.admin.login_header', 'web.admin.login_footer'], note("Parasol's sign-in page has no text of yours: remove the key")),
  [
    'web.admin.auth_strategies',
    note("API Umbrella's external admin sign-in; Parasol's admins sign in with their email and a password (README, Moving from API Umbrella)"),
  ],
]);

export interface UmbrellaHint {
  /** The key API Umbrella knows: the unknown one, or a key inside it. */
  readonly path: readonly string[];
  readonly known: UmbrellaKey;
}

/**
 * The unknown key at `path`, or the first key within its `value` (an
 * unknown `web:` mapping holds API Umbrella's `web.admin.…`), that is API
 * Umbrella's; null: none is.
 */
export function umbrellaKeyIn(path: readonly string[], value: unknown): UmbrellaHint | null {
  const known = UMBRELLA_KEYS.get(path.join('.'));
  if (known !== undefined) return { path, known };
  if (!isPlainObject(value)) return null;
  for (const [key, inner] of Object.entries(value)) {
    const found = umbrellaKeyIn([...path, key], inner);
    if (found !== null) return found;
  }
  return null;
}
