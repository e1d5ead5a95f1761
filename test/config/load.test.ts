import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ConfigError, loadConfig } from '../../src/config/load.js';
import { configSchema } from '../../src/config/schema.js';
import { isField, type Schema } from '../../src/config/fields.js';
import { packagePath } from '../../src/lib/package-path.js';
import { tempDir } from '../helpers/config.js';
import { CERT_FILE, IP_ONLY_CERT_FILE, IP_ONLY_KEY_FILE, KEY_FILE, OTHER_KEY_FILE, SITES_CERT_FILE, SITES_KEY_FILE } from '../helpers/tls.js';

function writeConfig(dir: string, text: string, name = 'parasol.yml'): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

function inDirectory(dir: string, run: () => void): void {
  const before = process.cwd();
  process.chdir(dir);
  try {
    run();
  } finally {
    process.chdir(before);
  }
}

function loadError(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('config precedence', () => {
  it('uses the built-in defaults when there is no file', () => {
    const { config, path } = loadConfig({ env: {}, cwd: tempDir() });
    expect(path).toBeNull();
    expect(config.listen).toEqual({ host: null, port: 8080, https_port: null });
    expect(config.tls).toEqual({ cert_file: null, key_file: null, certificates: [], http_strict_transport_security: null });
    expect(config.data_dir).toBe('./data');
    expect(config.secret_key).toBeNull();
    expect(config.proxy.response_timeout_ms).toBe(60_000);
  });

  it('reads config/parasol.yml from the working directory when nothing else is named', () => {
    const cwd = tempDir();
    mkdirSync(join(cwd, 'config'));
    writeConfig(join(cwd, 'config'), 'listen:\n  port: 9001\n');
    expect(loadConfig({ env: {}, cwd }).config.listen.port).toBe(9001);
  });

  it('reloads the file it found there, and refuses the reload while that file is gone rather than fall back to the defaults', () => {
    const cwd = tempDir();
    mkdirSync(join(cwd, 'config'));
    const path = writeConfig(join(cwd, 'config'), 'admin:\n  hosts: [admin.example]\n');
    const loaded = loadConfig({ env: {}, cwd });
    expect(loaded.reload().config.admin.hosts).toEqual(['admin.example']);
    renameSync(path, `${path}.editing`);
    expect(loadError(() => loaded.reload())).toBe(`${path}: config file not found`);
  });

  it('prefers PARASOL_CONFIG over config/parasol.yml, and --config over PARASOL_CONFIG', () => {
    const cwd = tempDir();
    mkdirSync(join(cwd, 'config'));
    writeConfig(join(cwd, 'config'), 'listen:\n  port: 9001\n');
    const fromEnv = writeConfig(cwd, 'listen:\n  port: 9002\n', 'env.yml');
    const fromFlag = writeConfig(cwd, 'listen:\n  port: 9003\n', 'flag.yml');
    expect(loadConfig({ env: { PARASOL_CONFIG: fromEnv }, cwd }).config.listen.port).toBe(9002);
    expect(loadConfig({ configPath: fromFlag, env: { PARASOL_CONFIG: fromEnv }, cwd }).config.listen.port).toBe(9003);
  });

  it('lets PARASOL_ variables win over the file, for every scalar type', () => {
    const cwd = tempDir();
    const path = writeConfig(cwd, 'listen:\n  port: 9001\ndata_dir: /from/file\n');
    const { config } = loadConfig({
      configPath: path,
      cwd,
      env: {
        PARASOL_LISTEN_PORT: '9000',
        PARASOL_DATA_DIR: '/var/lib/parasol',
        PARASOL_ANALYTICS_ENABLED: 'false',
        PARASOL_TRUSTED_PROXIES: '10.0.0.1, 10.0.0.2',
        PARASOL_MAILER_SMTP_HOST: 'smtp.example.com',
        PARASOL_PUBLIC_URL: '',
      },
    });
    expect(config.listen.port).toBe(9000);
    expect(config.data_dir).toBe('/var/lib/parasol');
    expect(config.analytics.enabled).toBe(false);
    expect(config.trusted_proxies).toEqual(['10.0.0.1', '10.0.0.2']);
    expect(config.mailer.smtp.host).toBe('smtp.example.com');
    expect(config.public_url).toBeNull();
  });

  it('sets the HTTPS listener from PARASOL_LISTEN_HTTPS_PORT and PARASOL_TLS_*', () => {
    const cwd = tempDir();
    const path = writeConfig(cwd, `listen:\n  https_port: 8443\ntls:\n  cert_file: ${CERT_FILE}\n  key_file: ${KEY_FILE}\n`);
    expect(loadConfig({ configPath: path, env: {}, cwd }).config.listen.https_port).toBe(8443);
    const { config } = loadConfig({ cwd, env: { PARASOL_LISTEN_HTTPS_PORT: '443', PARASOL_TLS_CERT_FILE: CERT_FILE, PARASOL_TLS_KEY_FILE: KEY_FILE } });
    expect(config.listen.https_port).toBe(443);
    expect(config.tls).toEqual({ cert_file: CERT_FILE, key_file: KEY_FILE, certificates: [], http_strict_transport_security: null });
  });

  it('takes a list key left empty (its entries commented out) as no entries, for every list', () => {
    const cwd = tempDir();
    const path = writeConfig(cwd, 'trusted_proxies:\n  # - 10.0.0.1\nban:\n  ips:\n  user_agents:\nadmin:\n  hosts:\nstrip_cookies:\ntls:\n  certificates:\n');
    const { config } = loadConfig({ configPath: path, cwd, env: {} });
    expect([config.trusted_proxies, config.ban.ips, config.ban.user_agents, config.admin.hosts, config.strip_cookies, config.tls.certificates]).toEqual([[], [], [], [], [], []]);
  });

  it("takes an empty variable as unset: the file's value stays, so an unset variable interpolated into a compose file clears no setting", () => {
    const cwd = tempDir();
    const path = writeConfig(cwd, 'listen:\n  host: 127.0.0.1\n  https_port: 8443\nadmin:\n  hosts: [admin.example]\ntrusted_proxies: [10.0.0.1]\n');
    const empty = { PARASOL_LISTEN_HOST: '', PARASOL_LISTEN_HTTPS_PORT: ' ', PARASOL_ADMIN_HOSTS: '', PARASOL_TRUSTED_PROXIES: '', PARASOL_DATA_DIR: '' };
    const { config } = loadConfig({ configPath: path, cwd, env: { ...empty, PARASOL_TLS_CERT_FILE: CERT_FILE, PARASOL_TLS_KEY_FILE: KEY_FILE } });
    expect([config.listen.host, config.listen.https_port, config.admin.hosts, config.trusted_proxies, config.data_dir]).toEqual(['127.0.0.1', 8443, ['admin.example'], ['10.0.0.1'], './data']);
  });

  it('takes analytics.timezone in any case or by an alias, spelled as Intl spells it; UTC by default', () => {
    const cwd = tempDir();
    expect(loadConfig({ env: {}, cwd }).config.analytics.timezone).toBe('UTC');
    expect(loadConfig({ configPath: writeConfig(cwd, 'analytics:\n  timezone: america/denver\n'), env: {}, cwd }).config.analytics.timezone).toBe('America/Denver');
    expect(loadConfig({ env: { PARASOL_ANALYTICS_TIMEZONE: 'US/Mountain' }, cwd }).config.analytics.timezone).toBe('America/Denver');
  });

  it('returns a frozen config', () => {
    const { config } = loadConfig({ env: {}, cwd: tempDir() });
    expect(Object.isFrozen(config.listen)).toBe(true);
  });
});

describe('config errors name the source, the key and what was expected', () => {
  const cases: [string, string, RegExp][] = [
    ['unknown key', 'listen:\n  prot: 80\n', /parasol\.yml: unknown key "listen\.prot" \(did you mean "listen\.port"\?\)$/],
    ['a misspelt key inside a section', 'proxy:\n  response_timout_ms: 5000\n', /parasol\.yml: unknown key "proxy\.response_timout_ms" \(did you mean "proxy\.response_timeout_ms"\?\)$/],
    ['a misspelt section', 'proxxy:\n  response_timeout_ms: 5000\n', /parasol\.yml: unknown key "proxxy" \(did you mean "proxy"\?\)$/],
    ['unknown top-level key', 'colour: blue\n', /parasol\.yml: unknown key "colour"$/],
    ['a key at the wrong level', 'port: 80\n', /parasol\.yml: unknown key "port" \(did you mean "listen\.port" or "mailer\.smtp\.port"\?\)$/],
    ['a mapping at the wrong level', 'listen:\n  smtp:\n    host: mail\n', /parasol\.yml: unknown key "listen\.smtp" \(did you mean "mailer\.smtp"\?\)$/],
    ["API Umbrella's name for a key", 'http_port: 80\n', /parasol\.yml: unknown key "http_port" \(did you mean "listen\.port"\?\)$/],
    ["API Umbrella's key inside a mapping Parasol does not have", 'web:\n  admin:\n    password_length_min: 16\n', /parasol\.yml: unknown key "web\.admin\.password_length_min" \(did you mean "admin\.password_min_length"\?\)$/],
    ["API Umbrella's key with no counterpart", 'web:\n  admin:\n    auth_strategies:\n      enabled: [google]\n', /parasol\.yml: unknown key "web\.admin\.auth_strategies" \(API Umbrella's external admin sign-in; Parasol's admins sign in with their email and a password/],
    ["API Umbrella's key inside a mapping Parasol has", 'analytics:\n  adapter: opensearch\n', /parasol\.yml: unknown key "analytics\.adapter" \(Parasol keeps analytics in its own store\)$/],
    ["API Umbrella's SMTP setting's name under mailer.smtp", 'mailer:\n  smtp:\n    address: mail.example.com\n', /parasol\.yml: unknown key "mailer\.smtp\.address" \(did you mean "mailer\.smtp\.host"\?\)$/],
    ['a Strict-Transport-Security value that is none', 'tls:\n  http_strict_transport_security: "1 year"\n', /parasol\.yml: tls\.http_strict_transport_security: expected a Strict-Transport-Security value such as "max-age=31536000; includeSubDomains", or null, got "1 year"$/],
    ["API Umbrella's body limit", 'web:\n  max_body_size: 2m\n', /parasol\.yml: unknown key "web\.max_body_size" \(Parasol's admin API and pages take bodies up to 1 MiB/],
    ["API Umbrella's backends in the file", 'apis:\n  - name: Example\n', /parasol\.yml: unknown key "apis" \(Parasol keeps API backends in its store: add them with the admin API/],
    ["a mapping of API Umbrella's holding none Parasol knows", 'web:\n  request_timeout: 30\n', /parasol\.yml: unknown key "web"$/],
    ["API Umbrella's public metrics role", 'web:\n  analytics_v0_summary_required_role: api-umbrella-public-metrics\n', /unknown key "web\.analytics_v0_summary_required_role" \(Parasol has no public metrics summary; GET \/admin\/stats\/summary\.json answers admins/],
    ["API Umbrella's reCAPTCHA secret", 'web:\n  recaptcha_v3_secret_key: s3cret\n', /unknown key "web\.recaptcha_v3_secret_key" \(Parasol asks signups for no CAPTCHA: it limits them per client IP/],
    ["API Umbrella's admin sign-in header", 'web:\n  admin:\n    login_header: Welcome\n', /unknown key "web\.admin\.login_header" \(Parasol's sign-in page has no text of yours: remove the key\)$/],
    ["API Umbrella's signup notices", 'web:\n  send_notify_email: true\n', /unknown key "web\.send_notify_email" \(did you mean "signup\.send_notify_email"\?\)$/],
    ["API Umbrella's web app processes (puma)", 'web:\n  puma:\n    workers: 2\n', /unknown key "web\.puma" \(Parasol serves the web admin and signup from its one Node process: remove the key\)$/],
    ["API Umbrella's web app processes (workers)", 'web:\n  workers: 2\n', /unknown key "web\.workers" \(Parasol serves the web admin and signup from its one Node process/],
    ["API Umbrella's default frontend host", 'gatekeeper:\n  default_frontend_host: api.example.com\n', /unknown key "gatekeeper\.default_frontend_host" \(did you mean "default_host"\?\)$/],
    ["API Umbrella's upstream keepalive", 'router:\n  api_backends:\n    keepalive_connections: 20\n', /unknown key "router\.api_backends" \(idle upstream connections close after proxy\.keep_alive_timeout_ms/],
    ["API Umbrella's process limits", 'rlimits:\n  nofile: 100000\n', /unknown key "rlimits" \(Parasol sets no process limits: the package's systemd unit raises the open-file limit/],
    ["API Umbrella's static site", 'static_site:\n  port: 14013\n', /unknown key "static_site" \(Parasol serves its own homepage at \/ \(homepage\.file for a page of yours\)/],
    ["API Umbrella's log destination", 'log:\n  destination: console\n', /unknown key "log\.destination" \(Parasol logs to its standard output/],
    ["API Umbrella's log template version", 'log_template_version: v2\n', /unknown key "log_template_version" \(remove it\)$/],
    ['wrong type', 'listen:\n  port: http\n', /parasol\.yml: listen\.port: expected an integer from 0 to 65535, got "http"$/],
    ['out of range', 'listen:\n  port: 70000\n', /listen\.port: expected an integer from 0 to 65535, got 70000$/],
    ["YAML's infinity", 'listen:\n  port: .inf\n', /listen\.port: expected an integer from 0 to 65535, got Infinity$/],
    ['a list where a mapping belongs', 'proxy: [1, 2]\n', /parasol\.yml: proxy: expected a mapping of keys, got a list$/],
    ['a bad enum', 'log_level: loud\n', /log_level: expected fatal, error, warn, info, debug, trace or silent, got "loud"$/],
    ['a list where a string belongs', 'site_name: [a]\n', /parasol\.yml: site_name: expected a string, got a list$/],
    ['an empty homepage file path', 'homepage:\n  file: ""\n', /parasol\.yml: homepage\.file: expected a file path or null, got an empty string$/],
    ['an empty GeoIP file path', 'analytics:\n  geoip_file: ""\n', /parasol\.yml: analytics\.geoip_file: expected a file path or null, got an empty string$/],
    ['an unknown time zone', 'analytics:\n  timezone: Mars/Olympus\n', /parasol\.yml: analytics\.timezone: expected an IANA time zone name, such as UTC or America\/Denver, got "Mars\/Olympus"$/],
    ['an offset for a time zone', 'analytics:\n  timezone: "-07:00"\n', /parasol\.yml: analytics\.timezone: expected an IANA time zone name, such as UTC or America\/Denver, got "-07:00"$/],
    ['an empty certificate file path', 'tls:\n  cert_file: ""\n', /parasol\.yml: tls\.cert_file: expected a file path or null, got an empty string$/],
    ['an empty data_dir', 'data_dir: ""\n', /parasol\.yml: data_dir: expected a directory path, got an empty string$/],
    ['a cookie pattern that does not compile', "strip_cookies: ['^_ga$', '(unclosed']\n", /parasol\.yml: strip_cookies: expected a list of regular expressions \(cookie names\), got /],
    ['a cookie pattern in PCRE-only syntax', "strip_cookies: ['\\A_ga\\z']\n", /parasol\.yml: strip_cookies: expected a list of regular expressions/],
    ['a response cookie pattern that does not compile', "strip_response_cookies: ['[a-']\n", /parasol\.yml: strip_response_cookies: expected a list of regular expressions \(cookie names\), got /],
    ['a ban pattern that does not compile', "ban:\n  user_agents: ['~*(unclosed']\n", /parasol\.yml: ban\.user_agents: expected a list of User-Agent patterns \("~\*regex" any case, "~regex", or the exact User-Agent\), got /],
    ['a ban pattern in PCRE-only syntax', "ban:\n  user_agents: ['~\\Abot']\n", /parasol\.yml: ban\.user_agents: expected a list of User-Agent patterns/],
    ['a banned IP that is no address', 'ban:\n  ips: [7.4.2.2, somewhere]\n', /parasol\.yml: ban\.ips: expected a list of IP addresses and CIDR ranges, got "somewhere" in the list$/],
    ['a ban status that is no HTTP status', 'ban:\n  response:\n    status_code: 99\n', /parasol\.yml: ban\.response\.status_code: expected an integer from 200 to 599, got 99$/],
    ['a real-IP header that is no header name', 'real_ip_header: "True Client IP"\n', /parasol\.yml: real_ip_header: expected an HTTP header name or null, got "True Client IP"$/],
    ['a default host with a port', 'default_host: api.example.com:8080\n', /parasol\.yml: default_host: expected a host name \(without a port\) or null, got "api\.example\.com:8080"$/],
    ['a negative cache size', 'cache:\n  max_size_mb: -1\n', /parasol\.yml: cache\.max_size_mb: expected an integer from 0 to 1048576, got -1$/],
    ['a contact address that is not one', 'contact_email: ops at example.com\n', /parasol\.yml: contact_email: expected an email address or null, got "ops at example\.com"$/],
    ['a public_url without a scheme', 'public_url: api.example.com\n', /parasol\.yml: public_url: expected an http or https URL or null, got "api\.example\.com"$/],
    ['a contact_url that is no URL', 'contact_url: the help desk\n', /parasol\.yml: contact_url: expected an http, https or mailto URL or null, got "the help desk"$/],
    ['a terms_url that is neither a URL nor a path', 'signup:\n  terms_url: terms.html\n', /signup\.terms_url: expected an http or https URL, a path starting with \/, or null, got "terms\.html"$/],
    ['a sender without an address', 'mailer:\n  from: Weather API\n', /parasol\.yml: mailer\.from: expected an email address, or "Name <address>", or null, got "Weather API"$/],
    ['a trusted proxy that is no address', 'trusted_proxies: [10.0.0.1, loadbalancer]\n', /parasol\.yml: trusted_proxies: expected a list of IP addresses and CIDR ranges, got "loadbalancer" in the list$/],
    ['a homepage file that is a directory', 'homepage:\n  file: /\n', /parasol\.yml: homepage\.file: cannot read \/: it is a directory \(EISDIR\)$/],
    ['a GeoIP database that cannot be read', 'analytics:\n  geoip_file: /nonexistent/city.mmdb\n', /parasol\.yml: analytics\.geoip_file: cannot read \/nonexistent\/city\.mmdb: no such file \(ENOENT\)$/],
    ['a GeoIP database that is not one', `analytics:\n  geoip_file: ${KEY_FILE}\n`, /parasol\.yml: analytics\.geoip_file: cannot read \S+localhost-key\.pem: not a MaxMind-format \(\.mmdb\) database: /],
    ['an upstream CA file that cannot be read', 'proxy:\n  upstream_ca_file: /nonexistent/ca.pem\n', /parasol\.yml: proxy\.upstream_ca_file: cannot read \/nonexistent\/ca\.pem: no such file \(ENOENT\)$/],
    ['an upstream CA file without certificates', `proxy:\n  upstream_ca_file: ${KEY_FILE}\n`, /parasol\.yml: proxy\.upstream_ca_file: \S+localhost-key\.pem holds no PEM certificate/],
    ['unparsable YAML', 'listen: [unclosed\n', /parasol\.yml: not valid YAML: /],
    ['a key twice, the line named without a dangling colon', 'listen:\n  port: 1\nlisten:\n  port: 2\n', /parasol\.yml: not valid YAML: Map keys must be unique at line 3, column 1$/],
    ['two YAML documents', 'listen:\n  port: 1\n---\nlisten:\n  port: 2\n', /parasol\.yml: not valid YAML: more than one YAML document \(a "---" line inside the file\) at line 3, column 1$/],
    ['a scalar document', 'just text\n', /parasol\.yml: expected a mapping of keys at the top level$/],
    ['a homepage file that cannot be read', 'homepage:\n  file: /nonexistent/home.html\n', /parasol\.yml: homepage\.file: cannot read \/nonexistent\/home\.html: no such file \(ENOENT\)$/],
    ['an HTTPS port out of range', 'listen:\n  https_port: 70000\n', /parasol\.yml: listen\.https_port: expected an integer from 0 to 65535, or null, got 70000$/],
    ['an HTTPS port that is the HTTP port', 'listen:\n  port: 8080\n  https_port: 8080\n', /parasol\.yml: listen\.https_port: 8080 is listen\.port already: HTTPS needs a port of its own$/],
    ['an HTTPS port without a certificate', `listen:\n  https_port: 443\ntls:\n  key_file: ${KEY_FILE}\n`, /parasol\.yml: tls\.cert_file: listen\.https_port needs a certificate file \(PEM\)$/],
    ['an HTTPS port without a key', `listen:\n  https_port: 443\ntls:\n  cert_file: ${CERT_FILE}\n`, /parasol\.yml: tls\.key_file: listen\.https_port needs a private key file \(PEM\)$/],
    ['a certificate without an HTTPS port', `tls:\n  cert_file: ${CERT_FILE}\n  key_file: ${KEY_FILE}\n`, /parasol\.yml: tls\.cert_file: set, but listen\.https_port is not/],
    ['a key file without an HTTPS port', `tls:\n  key_file: ${KEY_FILE}\n`, /parasol\.yml: tls\.key_file: set, but listen\.https_port is not/],
    [
      'a key file that cannot be read',
      `listen:\n  https_port: 443\ntls:\n  cert_file: ${CERT_FILE}\n  key_file: /nonexistent/privkey.pem\n`,
      /parasol\.yml: tls\.key_file: cannot read \/nonexistent\/privkey\.pem: no such file \(ENOENT\)$/,
    ],
    ['a certificate file that is a directory', `listen:\n  https_port: 443\ntls:\n  cert_file: /\n  key_file: ${KEY_FILE}\n`, /parasol\.yml: tls\.cert_file: cannot read \/: it is a directory \(EISDIR\)$/],
    [
      'a certificate file with no certificate in it',
      `listen:\n  https_port: 443\ntls:\n  cert_file: ${KEY_FILE}\n  key_file: ${KEY_FILE}\n`,
      /parasol\.yml: tls\.cert_file: no PEM certificate in \S+localhost-key\.pem \(no start line\)$/,
    ],
    [
      'a key file with no key in it',
      `listen:\n  https_port: 443\ntls:\n  cert_file: ${CERT_FILE}\n  key_file: ${CERT_FILE}\n`,
      /parasol\.yml: tls\.key_file: no usable PEM private key \(unencrypted\) in \S+localhost-cert\.pem \(unsupported\)$/,
    ],
    [
      'a key that is not the certificate\'s',
      `listen:\n  https_port: 443\ntls:\n  cert_file: ${CERT_FILE}\n  key_file: ${OTHER_KEY_FILE}\n`,
      /parasol\.yml: tls\.key_file: \S+other-key\.pem is not the private key of the certificate in tls\.cert_file \(key values mismatch\)$/,
    ],
    [
      'more certificates without an HTTPS port',
      `tls:\n  certificates:\n    - cert_file: ${SITES_CERT_FILE}\n      key_file: ${SITES_KEY_FILE}\n`,
      /parasol\.yml: tls\.certificates: set, but listen\.https_port is not/,
    ],
    [
      'a certificate list entry that is not a pair of paths',
      `listen:\n  https_port: 443\ntls:\n  cert_file: ${CERT_FILE}\n  key_file: ${KEY_FILE}\n  certificates:\n    - cert_file: ${SITES_CERT_FILE}\n`,
      /parasol\.yml: tls\.certificates\[0\]\.key_file: missing \(expected a file path\)$/,
    ],
    [
      'a certificate list entry with a key it does not know',
      `tls:\n  certificates:\n    - { cert_file: ${SITES_CERT_FILE}, key_file: ${SITES_KEY_FILE}, hosts: [a.example] }\n`,
      /parasol\.yml: tls\.certificates\[0\]: unknown key "hosts"$/,
    ],
    ['a certificate list that is no list', 'tls:\n  certificates: /etc/certs\n', /parasol\.yml: tls\.certificates: expected a list of \{cert_file, key_file\} \(paths\), got "\/etc\/certs"$/],
    [
      'a key in tls.certificates that is not its certificate\'s',
      `listen:\n  https_port: 443\ntls:\n  cert_file: ${CERT_FILE}\n  key_file: ${KEY_FILE}\n  certificates:\n    - cert_file: ${SITES_CERT_FILE}\n      key_file: ${SITES_KEY_FILE}\n    - cert_file: ${SITES_CERT_FILE}\n      key_file: ${KEY_FILE}\n`,
      /parasol\.yml: tls\.certificates\[1\]\.key_file: \S+localhost-key\.pem is not the private key of the certificate in tls\.certificates\[1\]\.cert_file \(key values mismatch\)$/,
    ],
    [
      'a certificate in tls.certificates that names no host',
      `listen:\n  https_port: 443\ntls:\n  cert_file: ${CERT_FILE}\n  key_file: ${KEY_FILE}\n  certificates:\n    - cert_file: ${IP_ONLY_CERT_FILE}\n      key_file: ${IP_ONLY_KEY_FILE}\n`,
      /parasol\.yml: tls\.certificates\[0\]\.cert_file: the certificate in \S+ip-only-cert\.pem names no host \(no DNS subjectAltName\)$/,
    ],
    [
      'unique emails without a mailer to send keys',
      'signup:\n  allow_duplicate_emails: false\n',
      /parasol\.yml: signup\.allow_duplicate_emails: false needs mailer\.smtp\.host: keys are then sent only by email/,
    ],
  ];
  for (const [name, text, expected] of cases) {
    it(name, () => {
      const cwd = tempDir();
      const message = loadError(() => loadConfig({ configPath: writeConfig(cwd, text), env: {}, cwd }));
      expect(message).toMatch(expected);
      expect(message).not.toContain('\n');
    });
  }

  it('a missing named file', () => {
    expect(loadError(() => loadConfig({ configPath: '/nonexistent/parasol.yml', env: {} }))).toBe('/nonexistent/parasol.yml: config file not found');
  });

  it('an unknown time zone from the environment names the variable', () => {
    expect(loadError(() => loadConfig({ env: { PARASOL_ANALYTICS_TIMEZONE: 'Denver' }, cwd: tempDir() }))).toBe(
      'environment PARASOL_ANALYTICS_TIMEZONE: analytics.timezone: expected an IANA time zone name, such as UTC or America/Denver, got "Denver"',
    );
  });

  it('a bad environment value names the variable', () => {
    expect(loadError(() => loadConfig({ env: { PARASOL_LISTEN_PORT: 'abc' }, cwd: tempDir() }))).toBe(
      'environment PARASOL_LISTEN_PORT: listen.port: expected an integer from 0 to 65535, got "abc"',
    );
    expect(loadError(() => loadConfig({ env: { PARASOL_ANALYTICS_ENABLED: 'maybe' }, cwd: tempDir() }))).toMatch(/expected true or false/);
  });

  it('a rule over several keys names the variable that set one of them, not the file that set none', () => {
    const file = writeConfig(tempDir(), 'site_name: Example\n');
    expect(loadError(() => loadConfig({ configPath: file, env: { PARASOL_SIGNUP_VERIFY_EMAIL: 'true' } }))).toBe(
      'environment PARASOL_SIGNUP_VERIFY_EMAIL: signup.verify_email: true needs mailer.smtp.host: keys are then sent only by email',
    );
  });

  it('a rule over several keys names the file and the variables when each set one of them', () => {
    const file = writeConfig(tempDir(), 'mailer:\n  smtp:\n    host: null\n');
    expect(loadError(() => loadConfig({ configPath: file, env: { PARASOL_SIGNUP_VERIFY_EMAIL: 'true', PARASOL_LISTEN_PORT: '9000' } }))).toBe(
      `${file} with environment PARASOL_SIGNUP_VERIFY_EMAIL: signup.verify_email: true needs mailer.smtp.host: keys are then sent only by email`,
    );
  });

  it('a data_dir that cannot be used is blamed on the variable that set it, not on every variable given', () => {
    const cwd = tempDir();
    const notADirectory = writeConfig(cwd, 'a file\n', 'data');
    expect(loadError(() => loadConfig({ env: { PARASOL_DATA_DIR: notADirectory, PARASOL_LISTEN_PORT: '9000' }, cwd }))).toBe(
      `environment PARASOL_DATA_DIR: data_dir ${notADirectory} is not a directory`,
    );
    const file = writeConfig(cwd, `data_dir: ${notADirectory}\n`);
    expect(loadError(() => loadConfig({ configPath: file, env: { PARASOL_LISTEN_PORT: '9000' }, cwd }))).toBe(`${file}: data_dir ${notADirectory} is not a directory`);
  });

  it('a key left at its default is blamed on the file, where it would be set, or on the defaults when there is none', () => {
    const cwd = tempDir();
    writeConfig(cwd, 'a file where the default data_dir would go\n', 'data');
    const file = writeConfig(cwd, 'site_name: Example\n');
    // data_dir is used, and checked, relative to the process's working directory.
    inDirectory(cwd, () => {
      expect(loadError(() => loadConfig({ env: { PARASOL_LISTEN_PORT: '9000' }, cwd }))).toBe('defaults: data_dir ./data is not a directory');
      expect(loadError(() => loadConfig({ configPath: file, env: {}, cwd }))).toBe(`${file}: data_dir ./data is not a directory`);
    });
  });

  it('tells code that finds a problem after loading (a port in use) where the keys it names were set', () => {
    const file = writeConfig(tempDir(), 'listen:\n  host: 127.0.0.1\n');
    const { sourceOf } = loadConfig({ configPath: file, env: { PARASOL_LISTEN_PORT: '9000' } });
    expect([sourceOf(['listen.port']), sourceOf(['listen.host']), sourceOf(['listen.host', 'listen.port']), sourceOf(['data_dir'])]).toEqual([
      'environment PARASOL_LISTEN_PORT',
      file,
      `${file} with environment PARASOL_LISTEN_PORT`,
      file,
    ]);
  });

  it('an HTTPS port set by a variable, without a certificate, names that variable', () => {
    expect(loadError(() => loadConfig({ env: { PARASOL_LISTEN_HTTPS_PORT: '8443' }, cwd: tempDir() }))).toBe(
      'environment PARASOL_LISTEN_HTTPS_PORT: tls.cert_file: listen.https_port needs a certificate file (PEM)',
    );
  });

  it('a bad secret is named but never repeated', () => {
    const cwd = tempDir();
    const message = loadError(() => loadConfig({ configPath: writeConfig(cwd, 'mailer:\n  smtp:\n    password: 987654321\n'), env: {}, cwd }));
    expect(message).toMatch(/parasol\.yml: mailer\.smtp\.password: expected .*, got something else \(not shown: it is a secret\)$/);
    expect(message).not.toContain('987654321');
    expect(loadError(() => loadConfig({ configPath: writeConfig(cwd, 'secret_key: 12345678901234567890\n'), env: {}, cwd }))).not.toContain('1234567890');
  });

  it('accepts URLs, a sender with a name and address ranges where they belong', () => {
    const cwd = tempDir();
    const text = [
      'public_url: https://api.example.com',
      "contact_url: 'mailto:api@example.com'",
      'signup:\n  terms_url: /docs/terms/',
      'mailer:\n  from: "Weather API <keys@weather.example>"',
      'trusted_proxies: [10.0.0.1, 10.0.0.0/8, "2001:db8::/32"]',
    ].join('\n');
    const { config } = loadConfig({ configPath: writeConfig(cwd, `${text}\n`), env: {}, cwd });
    expect(config).toMatchObject({ public_url: 'https://api.example.com', contact_url: 'mailto:api@example.com', signup: { terms_url: '/docs/terms/' }, mailer: { from: 'Weather API <keys@weather.example>' } });
    expect(loadError(() => loadConfig({ env: { PARASOL_TRUSTED_PROXIES: '10.0.0.1,10.0.0.300' }, cwd }))).toBe(
      'environment PARASOL_TRUSTED_PROXIES: trusted_proxies: expected a list of IP addresses and CIDR ranges, got "10.0.0.300" in the list',
    );
  });

  it('an unknown PARASOL_ variable is an error, so typos do not pass silently, naming the variable it is spelt like', () => {
    expect(loadError(() => loadConfig({ env: { PARASOL_LISTEN_PROT: '80' }, cwd: tempDir() }))).toBe(
      'environment PARASOL_LISTEN_PROT: not a configuration key (did you mean "PARASOL_LISTEN_PORT"?)',
    );
    expect(loadError(() => loadConfig({ env: { PARASOL_COLOUR: 'blue' }, cwd: tempDir() }))).toBe('environment PARASOL_COLOUR: not a configuration key');
  });

  it('an unknown PARASOL_ variable that ends like known ones names them', () => {
    expect(loadError(() => loadConfig({ env: { PARASOL_SMTP_HOST: 'mail' }, cwd: tempDir() }))).toBe(
      'environment PARASOL_SMTP_HOST: not a configuration key (did you mean "PARASOL_MAILER_SMTP_HOST"?)',
    );
  });

  it('a list of structured entries is a key of the file only, and the environment says so', () => {
    expect(loadError(() => loadConfig({ env: { PARASOL_TLS_CERTIFICATES: '/a.pem' }, cwd: tempDir() }))).toBe(
      'environment PARASOL_TLS_CERTIFICATES: tls.certificates (a list of {cert_file, key_file} (paths)) can be set in the config file only',
    );
  });
});

describe('the config file itself', () => {
  it('a directory is said to be one, not bad YAML', () => {
    const dir = tempDir();
    expect(loadError(() => loadConfig({ configPath: dir, env: {} }))).toBe(`${dir}: is a directory; expected a config file (YAML)`);
  });

  // root reads a file whatever its mode.
  it.skipIf(process.getuid?.() === 0)('a file this user may not read is said to be so, not bad YAML', () => {
    const path = writeConfig(tempDir(), 'site_name: Example\n');
    chmodSync(path, 0o000);
    expect(loadError(() => loadConfig({ configPath: path, env: {} }))).toBe(`${path}: cannot read the config file: permission denied (EACCES)`);
  });

  it('refuses an empty or spaced host, which would listen on every interface or send mail to localhost', () => {
    const cwd = tempDir();
    expect(loadError(() => loadConfig({ configPath: writeConfig(cwd, 'listen:\n  host: ""\n'), cwd, env: {} }))).toMatch(/listen\.host: expected a host name or IP address, or null, got/);
    expect(loadError(() => loadConfig({ configPath: writeConfig(cwd, 'mailer:\n  smtp:\n    host: " smtp.example.com"\n'), cwd, env: {} }))).toMatch(
      /mailer\.smtp\.host: expected a host name or IP address, or null, got/,
    );
  });
});

describe('default_api_backend_settings.rate_limits: each entry is checked, and an error names it and its key', () => {
  const KEY = 'default_api_backend_settings.rate_limits';
  function rateLimitsError(entries: string[]): string {
    const cwd = tempDir();
    const text = `default_api_backend_settings:\n  rate_limits:\n${entries.map((entry) => `    - ${entry}\n`).join('')}`;
    return loadError(() => loadConfig({ configPath: writeConfig(cwd, text), env: {}, cwd }));
  }
  const GOOD = '{ duration: 1000, limit_by: ip, limit: 50, response_headers: false }';

  const cases: [string, string, string][] = [
    ['a misspelt key, with the one it means', '{ duration: 60000, limit_by: api_key, limit: 3, response_header: true }', 'unknown key "response_header" (did you mean "response_headers"?)'],
    ['a key of no meaning here', '{ duration: 60000, limit_by: api_key, limit: 3, extra: 1 }', 'unknown key "extra"'],
    ['a setting of backends and users, not of a limit', '{ duration: 60000, limit_by: api_key, limit: 3, limit_mode: x }', 'unknown key "limit_mode"'],
    ["both limit and API Umbrella's limit_to", '{ duration: 60000, limit_by: api_key, limit: 3, limit_to: 3 }', ': both "limit" and "limit_to" (the same key); give one'],
    ['a duration of 0', '{ duration: 0, limit_by: ip, limit: 5 }', '.duration: expected an integer from 1 to 31622400000 (milliseconds, 366 days at most), got 0'],
    ['a duration past 366 days, which the admin API refuses too', '{ duration: 1e30, limit_by: ip, limit: 5 }', '.duration: expected an integer from 1 to 31622400000 (milliseconds, 366 days at most), got 1e+30'],
    ['a limit_by of neither', '{ duration: 60000, limit_by: user, limit: 5 }', '.limit_by: expected ip or api_key, got "user"'],
    ['a negative limit', '{ duration: 60000, limit_by: ip, limit: -5 }', '.limit: expected an integer from 0 to 2147483647 (requests), got -5'],
    ['response_headers that is not true or false', '{ duration: 60000, limit_by: ip, limit: 5, response_headers: maybe }', '.response_headers: expected true or false, got "maybe"'],
    ['a missing limit', '{ duration: 60000, limit_by: ip }', '.limit: missing (expected an integer from 0 to 2147483647 (requests))'],
    ['an entry that is no mapping', '60000', ': expected a mapping {duration, limit_by, limit, response_headers}, got 60000'],
  ];
  for (const [name, entry, problem] of cases) {
    it(name, () => {
      // The second entry, so the index is seen to be the entry's own.
      const separator = problem.startsWith('unknown') ? ': ' : '';
      expect(rateLimitsError([GOOD, entry])).toMatch(new RegExp(`parasol\\.yml: ${escape(`${KEY}[1]${separator}${problem}`)}$`));
    });
  }

  it('two entries counting the same window are both named', () => {
    const entries = [GOOD, '{ duration: 60000, limit_by: api_key, limit: 100 }', '{ duration: 60000, limit_by: api_key, limit: 5 }'];
    expect(rateLimitsError(entries)).toMatch(
      new RegExp(`${escape(`${KEY}[2]: counts the same window as entry [1] (api_key per 60000 ms); expected one limit for each limit_by and duration`)}$`),
    );
  });

  it('takes entries as documented, response_headers false when left out', () => {
    const cwd = tempDir();
    const text = 'default_api_backend_settings:\n  rate_limits:\n    - { duration: 60000, limit_by: api_key, limit: 3, response_headers: true }\n    - { duration: 60000, limit_by: ip, limit: 10 }\n';
    expect(loadConfig({ configPath: writeConfig(cwd, text), env: {}, cwd }).config.default_api_backend_settings.rate_limits).toEqual([
      { duration: 60_000, limit_by: 'api_key', limit: 3, response_headers: true },
      { duration: 60_000, limit_by: 'ip', limit: 10, response_headers: false },
    ]);
  });

  it("takes API Umbrella's spellings, as the admin API does (limit_to, limit_by: apiKey), and an empty list as no limits", () => {
    const cwd = tempDir();
    const text = 'default_api_backend_settings:\n  rate_limits:\n    - { duration: 60000, limit_by: apiKey, limit_to: 3 }\n';
    expect(loadConfig({ configPath: writeConfig(cwd, text), env: {}, cwd }).config.default_api_backend_settings.rate_limits).toEqual([
      { duration: 60_000, limit_by: 'api_key', limit: 3, response_headers: false },
    ]);
    const none = loadConfig({ configPath: writeConfig(cwd, 'default_api_backend_settings:\n  rate_limits:\n'), env: {}, cwd });
    expect(none.config.default_api_backend_settings.rate_limits).toEqual([]);
  });

  it("takes API Umbrella's distributed and accuracy on a limit, as its shipped config has them, and leaves them out", () => {
    const cwd = tempDir();
    const text =
      'default_api_backend_settings:\n  rate_limits:\n' +
      '    - { duration: 1000, accuracy: 500, limit_by: ip, limit_to: 50, distributed: false, response_headers: false }\n' +
      '    - { duration: 3600000, accuracy: 60000, limit_by: apiKey, limit_to: 1000, distributed: true, response_headers: true }\n';
    expect(loadConfig({ configPath: writeConfig(cwd, text), env: {}, cwd }).config.default_api_backend_settings.rate_limits).toEqual([
      { duration: 1000, limit_by: 'ip', limit: 50, response_headers: false },
      { duration: 3_600_000, limit_by: 'api_key', limit: 1000, response_headers: true },
    ]);
  });

  it('still refuses a distributed or accuracy of the wrong kind, naming the entry and key', () => {
    expect(rateLimitsError([GOOD, '{ duration: 60000, limit_by: ip, limit: 5, distributed: yes please }'])).toMatch(
      new RegExp(`parasol\\.yml: ${escape(`${KEY}[1].distributed: expected true or false, got "yes please"`)}$`),
    );
    expect(rateLimitsError([GOOD, '{ duration: 60000, limit_by: ip, limit: 5, accuracy: 0 }'])).toMatch(
      new RegExp(`parasol\\.yml: ${escape(`${KEY}[1].accuracy: expected an integer of 1 or more (milliseconds), got 0`)}$`),
    );
  });
});

describe('admin.hosts', () => {
  function hostsOf(text: string, env: NodeJS.ProcessEnv = {}): readonly string[] {
    const cwd = tempDir();
    return loadConfig({ configPath: writeConfig(cwd, text), env, cwd }).config.admin.hosts;
  }

  it('is empty by default, lowercases names and writes IPv6 addresses as a URL does, from the file or a comma-separated variable', () => {
    expect(loadConfig({ env: {}, cwd: tempDir() }).config.admin.hosts).toEqual([]);
    expect(hostsOf('admin:\n  hosts: [Admin.Example.com, 10.0.0.5, "::1", "[2001:DB8:0::1]"]\n')).toEqual(['admin.example.com', '10.0.0.5', '[::1]', '[2001:db8::1]']);
    expect(hostsOf('site_name: x\n', { PARASOL_ADMIN_HOSTS: 'admin.example.com, Admin2.example.com' })).toEqual(['admin.example.com', 'admin2.example.com']);
  });

  it('refuses a port, a wildcard or anything else that is no host, quoting it, in one line naming the key', () => {
    const expected = 'admin.hosts: expected a list of host names or IP addresses (without a port or wildcard), got';
    for (const [entry, quoted] of [['admin.example.com:8443', '"admin.example.com:8443"'], ['"*.example.com"', '"*.example.com"'], ['"*"', '"*"'], ['https://admin.example.com', '"https://admin.example.com"'], ['"[::1]:8080"', '"[::1]:8080"']]) {
      const cwd = tempDir();
      const path = writeConfig(cwd, `admin:\n  hosts: [ok.example.com, ${entry}]\n`);
      expect(loadError(() => loadConfig({ configPath: path, env: {}, cwd }))).toBe(`${path}: ${expected} ${quoted} in the list`);
    }
    expect(loadError(() => loadConfig({ env: { PARASOL_ADMIN_HOSTS: 'admin.example.com:8443' }, cwd: tempDir() }))).toBe(
      `environment PARASOL_ADMIN_HOSTS: ${expected} "admin.example.com:8443" in the list`,
    );
  });
});

describe('default_api_backend_settings.rate_limit_mode', () => {
  function modeOf(text: string, env: NodeJS.ProcessEnv = {}): unknown {
    const cwd = tempDir();
    return loadConfig({ configPath: writeConfig(cwd, text), env, cwd }).config.default_api_backend_settings.rate_limit_mode;
  }

  it("is null by default, and takes API Umbrella's unlimited (a gateway-wide unlimited default) and custom", () => {
    expect(loadConfig({ env: {}, cwd: tempDir() }).config.default_api_backend_settings.rate_limit_mode).toBeNull();
    expect(modeOf('default_api_backend_settings:\n  rate_limit_mode: unlimited\n')).toBe('unlimited');
    expect(modeOf('default_api_backend_settings:\n  rate_limit_mode: custom\n')).toBe('custom');
    expect(modeOf('default_api_backend_settings:\n  rate_limit_mode: null\n')).toBeNull();
    expect(modeOf('site_name: x\n', { PARASOL_DEFAULT_API_BACKEND_SETTINGS_RATE_LIMIT_MODE: 'unlimited' })).toBe('unlimited');
  });

  it('refuses any other value in one line naming the key', () => {
    const cwd = tempDir();
    const path = writeConfig(cwd, 'default_api_backend_settings:\n  rate_limit_mode: none\n');
    expect(loadError(() => loadConfig({ configPath: path, env: {}, cwd }))).toBe(
      `${path}: default_api_backend_settings.rate_limit_mode: expected custom, unlimited or null, got "none"`,
    );
  });
});

describe('default_api_backend_settings.require_https', () => {
  it("is null by default, takes API Umbrella's optional and required_return_error, and refuses anything else naming the key", () => {
    const cwd = tempDir();
    expect(loadConfig({ env: {}, cwd }).config.default_api_backend_settings.require_https).toBeNull();
    const required = writeConfig(cwd, 'default_api_backend_settings:\n  require_https: required_return_error\n');
    expect(loadConfig({ configPath: required, env: {}, cwd }).config.default_api_backend_settings.require_https).toBe('required_return_error');
    const wrong = writeConfig(tempDir(), 'default_api_backend_settings:\n  require_https: always\n');
    expect(loadError(() => loadConfig({ configPath: wrong, env: {}, cwd }))).toBe(
      `${wrong}: default_api_backend_settings.require_https: expected optional, required_return_error or null, got "always"`,
    );
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

describe('config/default.yml', () => {
  it('documents every key with its built-in default', () => {
    const documented = parse(readFileSync(packagePath('config', 'default.yml'), 'utf8')) as Record<string, unknown>;
    const defaults = loadConfig({ env: {}, cwd: tempDir() }).config;
    expect(documented).toEqual(JSON.parse(JSON.stringify(defaults)));
    expect(keyPaths(configSchema).length).toBeGreaterThan(30);
  });

  it('loads as a config file without errors', () => {
    expect(() => loadConfig({ configPath: packagePath('config', 'default.yml'), env: {} })).not.toThrow();
  });
});

function keyPaths(schema: Schema, prefix = ''): string[] {
  return Object.entries(schema).flatMap(([key, node]) => (isField(node) ? [prefix + key] : keyPaths(node, `${prefix}${key}.`)));
}
