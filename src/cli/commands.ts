// The CLI's commands. Each prints one JSON line on success so scripts can read it.
import { resolve } from 'node:path';
import { passwordProblem } from '../admins/password.js';
import type { LoadedConfig } from '../config/load.js';
import { secretKeyFile } from '../config/secret-key.js';
import { createContext, createLogger, type AppContext } from '../context.js';
import { KEY_CREATOR_ROLE } from '../api-users/model.js';
import { isEmailAddress } from '../lib/email-address.js';
import { emailProblem } from '../admins/accounts.js';
import { serveUntilSignalled } from '../serve.js';
import { BackupError, backupStore } from '../store/backup.js';
import { storePath } from '../store/db.js';
import { runningInstancePid } from '../store/instance-lock.js';
import { restoreStore } from '../store/restore.js';
import { UNPROVEN_SECRET } from '../store/secret-key-check.js';
import type { Invocation } from './arguments.js';
import { checkHealth, healthUrlOf, healthWaitOf } from './health-check.js';
import { startUpProblem } from './start-up-checks.js';
import { UsageError } from './usage-error.js';

export { UsageError };

export const USAGE = `Usage: parasol [--config PATH] COMMAND

Commands:
  serve                                        run the gateway (what npm start runs)
  reload                                       check the config, then have the gateway running on its data_dir apply it (SIGHUP)
  health [--wait-for-status S [--wait-timeout N]]
                                               ask the gateway on listen.port for its health; exit 0 unless red (with S, keep
                                               asking while it does not answer, up to N seconds, default 50)
  status                                       whether a gateway runs on the config's data_dir; exit 0 if so, 3 if not
  stop                                         stop the gateway running on the config's data_dir (SIGTERM) and wait until it has
  config check                                 validate the configuration; exit 0 or 1
  admins create --email E --password P         create a superuser admin; prints its API token once
  admins reset-password --email E --password P set an admin's password
  users create-signup-key --email E            create an API key with the role ${KEY_CREATOR_ROLE}
  users delete --id ID                         delete an API user and its key (a running gateway stops taking it within two seconds)
  backup --to FILE                             copy the store to FILE (a new file), also while serving
  restore --from FILE                          put a backup in place of the store (Parasol stopped); the store it replaces is kept beside it

The config is read from --config, PARASOL_CONFIG or config/parasol.yml; PARASOL_* variables override it.
parasol --version (or version) prints the version; parasol --help (or help), this.
Any other option or argument is refused (exit 2).
`;

/** Returns the exit code, or -1 for a command that keeps running. */
export async function runCommand(invocation: Invocation, loaded: LoadedConfig): Promise<number> {
  switch (invocation.command) {
    case 'serve':
      await serveUntilSignalled(loaded);
      return -1;
    case 'reload':
      return reload(loaded);
    case 'health':
      return health(loaded, invocation.options);
    case 'status':
      return status(loaded);
    case 'stop':
      return stop(loaded);
    case 'config check':
      return checkConfig(loaded);
    // What the arguments alone show is refused before the store is opened (or made, on a fresh data_dir).
    case 'admins create':
      checkNewEmail(invocation.options.email);
      checkPassword(loaded, invocation.options.password);
      return withContext(loaded, (context) => createAdmin(context, invocation.options));
    case 'admins reset-password':
      checkPassword(loaded, invocation.options.password);
      return withContext(loaded, (context) => resetPassword(context, invocation.options));
    case 'users create-signup-key':
      checkNewEmail(invocation.options.email);
      return withContext(loaded, (context) => createSignupKey(context, invocation.options));
    case 'users delete':
      return withContext(loaded, (context) => deleteUser(context, invocation.options));
    case 'backup':
      return backup(loaded, invocation.options);
    case 'restore':
      return restore(loaded, invocation.options);
  }
}

async function withContext(loaded: LoadedConfig, work: (context: AppContext) => Promise<number>): Promise<number> {
  const context = createContext(loaded.config, { logger: createLogger(loaded.config, 2) });
  try {
    return await work(context);
  } finally {
    context.close();
  }
}

/** The loader refused what it can see in the config; this refuses what start-up would find beyond it (a host, the store). */
async function checkConfig(loaded: LoadedConfig): Promise<number> {
  const problem = await startUpProblem(loaded.config);
  if (problem !== null) throw problem;
  print({ ok: true, config_file: loaded.path });
  return 0;
}

/** LSB's "program is not running", which API Umbrella's reload exits with when there is nothing to reload. */
const NOT_RUNNING = 7;
/** LSB's "program is not running" for a status, API Umbrella's `status` exit code too. */
const STATUS_NOT_RUNNING = 3;
/** What `stop` waits for beyond the gateway's own drain: the analytics it still holds written, the store closed. */
const STOP_MARGIN_MS = 30_000;

/**
 * API Umbrella's `api-umbrella reload`, for a Parasol the packages' service
 * does not run (from source, in a container): the checks of `config check`,
 * then SIGHUP to the Parasol that holds the data_dir's lock. What it applied
 * is in that Parasol's log.
 */
async function reload(loaded: LoadedConfig): Promise<number> {
  const problem = await startUpProblem(loaded.config);
  if (problem !== null) throw problem;
  const pid = runningInstancePid(loaded.config.data_dir);
  if (pid === null || !signal(pid, 'SIGHUP')) {
    process.stderr.write(`parasol: no Parasol is running with data_dir ${loaded.config.data_dir}; nothing to reload\n`);
    return NOT_RUNNING;
  }
  print({ reload_requested: true, pid, config_file: loaded.path });
  return 0;
}

/** API Umbrella's `api-umbrella health`: prints the status, and exits 0 only when the gateway answered one better than red. */
async function health(loaded: LoadedConfig, options: { 'wait-for-status'?: string; 'wait-timeout'?: string }): Promise<number> {
  const wait = healthWaitOf(options);
  const url = healthUrlOf(loaded.config);
  const result = await checkHealth(url, wait);
  if (result.problem !== null) process.stderr.write(`parasol: ${result.problem}\n`);
  print({ status: result.status, url: url.href });
  return result.healthy ? 0 : 1;
}

/** API Umbrella's `api-umbrella status`, by the data_dir's lock rather than a pid file's say-so. */
function status(loaded: LoadedConfig): number {
  const { data_dir: dataDir } = loaded.config;
  const pid = runningInstancePid(dataDir);
  print(pid === null ? { running: false, data_dir: dataDir } : { running: true, pid, data_dir: dataDir });
  return pid === null ? STATUS_NOT_RUNNING : 0;
}

/**
 * API Umbrella's `api-umbrella stop`, for a Parasol no service manager runs
 * (one the packages' service runs is stopped with systemctl, which would
 * otherwise not know): SIGTERM, then wait until it has let go of the
 * data_dir, so that a start right after finds it free.
 */
function stop(loaded: LoadedConfig): number {
  const { data_dir: dataDir, proxy } = loaded.config;
  const pid = runningInstancePid(dataDir);
  if (pid === null || !signal(pid, 'SIGTERM')) {
    print({ stopped: true, was_running: false, data_dir: dataDir });
    return 0;
  }
  const waitMs = proxy.shutdown_timeout_ms + STOP_MARGIN_MS;
  if (runningInstancePid(dataDir, waitMs) === pid) {
    process.stderr.write(`parasol: the Parasol with pid ${pid} still runs ${waitMs / 1000} s after SIGTERM; its log says what it waits for\n`);
    return 1;
  }
  print({ stopped: true, was_running: true, pid, data_dir: dataDir });
  return 0;
}

/** False when the process has ended meanwhile; a process of another user is a clear error, not Node's EPERM. */
function signal(pid: number, name: 'SIGHUP' | 'SIGTERM'): boolean {
  try {
    process.kill(pid, name);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ESRCH') return false;
    if (code === 'EPERM') throw new UsageError(`the Parasol with pid ${pid} runs as another user; run this as that user (or root)`);
    throw error;
  }
}

async function createAdmin(context: AppContext, { email, password }: { email: string; password: string }): Promise<number> {
  if (context.admins.findByEmail(email) !== null) throw new UsageError(`an admin with the email ${email} already exists`);
  const created = (await context.admins.create({ email, password, superuser: true }))!;
  print({ id: created.admin.id, email: created.admin.email, admin_auth_token: created.authToken });
  return 0;
}

async function resetPassword(context: AppContext, { email, password }: { email: string; password: string }): Promise<number> {
  const admin = context.admins.findByEmail(email);
  if (admin === null) throw new UsageError(`no admin with the email ${email}`);
  await context.admins.setPassword(admin.id, password);
  print({ id: admin.id, email: admin.email, password_reset: true });
  return 0;
}

async function createSignupKey(context: AppContext, { email }: { email: string }): Promise<number> {
  const { user, apiKey } = context.users.create(
    {
      email,
      first_name: 'Signup',
      last_name: 'Form',
      website: null,
      use_description: 'Key for an embedded signup form',
      roles: [KEY_CREATOR_ROLE],
      enabled: true,
      email_verified: true,
      throttle_by_ip: false,
      settings: { rate_limit_mode: null, rate_limits: [], allowed_ips: [], allowed_referers: [] },
      expires_at: null,
      registration_source: 'cli',
    },
    'cli',
  );
  print({ id: user.id, email: user.email, roles: user.roles, api_key: apiKey });
  return 0;
}

async function deleteUser(context: AppContext, { id }: { id: string }): Promise<number> {
  if (!context.users.delete(id, 'cli')) throw new UsageError(`no API user with the id ${id}`);
  print({ id, deleted: true });
  return 0;
}

function backup(loaded: LoadedConfig, { to }: { to: string }): number {
  const target = resolve(to);
  let bytes: number;
  try {
    bytes = backupStore(loaded.config.data_dir, target);
  } catch (error) {
    if (error instanceof BackupError) throw new UsageError(error.message);
    throw error;
  }
  // Keys are checked with the secret: a restored store's keys are useless without it.
  print({ backup: target, bytes, secret_key_file: secretKeyFile(loaded.config) });
  return 0;
}

function restore(loaded: LoadedConfig, { from }: { from: string }): number {
  const source = resolve(from);
  const { schemaVersion, previous, secretKeyChecked } = restoreStore(loaded.config, source, new Date());
  print({ restored: source, store: storePath(loaded.config.data_dir), schema_version: schemaVersion, previous, secret_key_checked: secretKeyChecked });
  if (!secretKeyChecked) process.stderr.write(`parasol: ${UNPROVEN_SECRET}\n`);
  return 0;
}

/** An account made here gets an address the web forms would have taken; a typo is caught before anything is stored. */
/** As the admin API checks it (255 characters at most, for admins and API users alike): a record the CLI makes can be saved back through the API. */
function checkNewEmail(email: string): void {
  if (!isEmailAddress(email)) throw new UsageError(`--email: ${JSON.stringify(email)} is not a valid email address`);
  const problem = emailProblem(email);
  if (problem !== null) throw new UsageError(`--email ${problem}`);
}

function checkPassword(loaded: LoadedConfig, password: string): void {
  const problem = passwordProblem(password, loaded.config.admin.password_min_length);
  if (problem !== null) throw new UsageError(`password ${problem}`);
}

function print(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}
