// Loads the configuration: built-in defaults, then the YAML file, then
// PARASOL_* environment variables. Any problem is one ConfigError whose
// message names the source, the key and what was expected.
import { deepFreeze } from '../lib/deep-freeze.js';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { isPlainObject } from '../lib/validation-errors.js';
import { ConfigError } from './config-error.js';
import { crossKeyProblem } from './cross-key-rules.js';
import { isField, Refusal, type Field, type Schema } from './fields.js';
import { describe, didYouMean, namesSpelledLike } from './messages.js';
import { configSchema, type Config } from './schema.js';
import { umbrellaKeyIn } from './umbrella-keys.js';

export { ConfigError, ConfigValueError } from './config-error.js';

export const DEFAULT_CONFIG_PATH = 'config/parasol.yml';
const ENV_PREFIX = 'PARASOL_';
/** PARASOL_* variables that are not config keys. */
const NON_KEY_VARIABLES = new Set(['PARASOL_CONFIG']);

export interface LoadOptions {
  /** From --config; wins over PARASOL_CONFIG. */
  readonly configPath?: string | undefined;
  readonly env?: NodeJS.ProcessEnv;
  readonly cwd?: string;
}

export interface LoadedConfig {
  readonly config: Config;
  /** The file that was read, or null when only defaults and the environment apply. */
  readonly path: string | null;
  /**
   * Where `keys` were set, as a config error names it ("FILE", "environment
   * PARASOL_A", "FILE with environment PARASOL_A"), for an error about them
   * found after loading (a ConfigValueError: a port in use, a data_dir that
   * cannot be made).
   */
  readonly sourceOf: (keys: readonly string[]) => string;
  /** Reads the config again as it was read this time (same file, the environment as it is now), for a reload. */
  readonly reload: () => LoadedConfig;
}

export function loadConfig(options: LoadOptions = {}): LoadedConfig {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const path = configFilePath(options.configPath ?? env.PARASOL_CONFIG, cwd);
  const fileValues = path === null ? {} : readYamlFile(path);
  const config = applySchema(configSchema, fileValues, [], path ?? 'defaults');
  const sources = new KeySources(path, fileValues, applyEnvironment(config, env));
  const problem = crossKeyProblem(config as unknown as Config);
  if (problem !== null) throw new ConfigError(`${sources.of(problem.keys)}: ${problem.message}`);
  // A file found where Parasol looks by default is the file from now on: gone at a reload, it is missed, not replaced by the defaults.
  const again: LoadOptions = path === null ? options : { ...options, configPath: path };
  return { config: deepFreeze(config) as unknown as Config, path, sourceOf: (keys) => sources.of(keys), reload: () => loadConfig(again) };
}

/**
 * The parser's first line, without the colon that introduces the source it
 * quotes next, and in an operator's words where it speaks to programmers.
 */
function yamlReason(error: unknown): string {
  const first = (error instanceof Error ? error.message : String(error)).split('\n')[0]!.replace(/:\s*$/, '');
  return first.replace(/^Source contains multiple documents; please use YAML\.parseAllDocuments\(\)/, 'more than one YAML document (a "---" line inside the file)');
}

function configFilePath(requested: string | undefined, cwd: string): string | null {
  if (requested !== undefined && requested !== '') {
    const path = resolve(cwd, requested);
    if (!existsSync(path)) throw new ConfigError(`${path}: config file not found`);
    return path;
  }
  const fallback = resolve(cwd, DEFAULT_CONFIG_PATH);
  return existsSync(fallback) ? fallback : null;
}

function readYamlFile(path: string): Record<string, unknown> {
  const text = readConfigText(path);
  let parsed: unknown;
  try {
    parsed = parseYaml(text);
  } catch (error) {
    throw new ConfigError(`${path}: not valid YAML: ${yamlReason(error)}`);
  }
  if (parsed === null || parsed === undefined) return {};
  if (!isPlainObject(parsed)) throw new ConfigError(`${path}: expected a mapping of keys at the top level`);
  return parsed;
}

/** The file's text; a file that cannot be read is said to be so, not to be bad YAML. */
function readConfigText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`${path}: ${whyUnreadable((error as NodeJS.ErrnoException).code ?? String(error))}`);
  }
}

function whyUnreadable(code: string): string {
  switch (code) {
    case 'EISDIR':
      return 'is a directory; expected a config file (YAML)';
    case 'EACCES':
    case 'EPERM':
      return `cannot read the config file: permission denied (${code})`;
    default:
      return `cannot read the config file (${code})`;
  }
}

type Mutable = Record<string, unknown>;

function applySchema(schema: Schema, raw: Record<string, unknown>, path: string[], source: string): Mutable {
  for (const key of Object.keys(raw)) {
    if (!Object.hasOwn(schema, key)) throw new ConfigError(`${source}: ${unknownKey([...path, key], raw[key], Object.keys(schema))}`);
  }
  const result: Mutable = {};
  for (const [key, node] of Object.entries(schema)) {
    const keyPath = [...path, key];
    const value = raw[key];
    if (isField(node)) {
      result[key] = value === undefined ? node.defaultValue : parseField(node, value, keyPath, source);
    } else if (value === undefined || value === null) {
      result[key] = applySchema(node, {}, keyPath, source);
    } else if (isPlainObject(value)) {
      result[key] = applySchema(node, value, keyPath, source);
    } else {
      throw new ConfigError(`${source}: ${keyPath.join('.')}: expected a mapping of keys, got ${describe(value)}`);
    }
  }
  return result;
}

/** Keys whose values an error message must not repeat: it goes to the terminal and the service's log. */
const SECRET_KEYS = new Set(['secret_key', 'mailer.smtp.password']);

function parseField(node: Field<unknown>, value: unknown, keyPath: string[], source: string): unknown {
  const parsed = node.parse(value);
  if (parsed instanceof Refusal) throw new ConfigError(`${source}: ${keyPath.join('.')}${parsed.at}: ${parsed.reason}`);
  if (parsed === undefined) {
    const key = keyPath.join('.');
    const got = SECRET_KEYS.has(key) ? 'something else (not shown: it is a secret)' : describeMismatch(node, value);
    throw new ConfigError(`${source}: ${key}: expected ${node.expected}, got ${got}`);
  }
  return parsed;
}

/**
 * Which source set each key, so that an error names the one to fix: the
 * file for keys it holds, `environment PARASOL_…` for keys a variable set
 * (it wins over the file).
 */
class KeySources {
  private readonly fileKeys: ReadonlySet<string>;

  /** `variables`: key path ("listen.port") → the variable that set it. */
  constructor(
    private readonly file: string | null,
    fileValues: Record<string, unknown>,
    private readonly variables: ReadonlyMap<string, string>,
  ) {
    this.fileKeys = new Set(fieldKeys().filter((keyPath) => valueAt(fileValues, keyPath) !== undefined).map((keyPath) => keyPath.join('.')));
  }

  /**
   * "FILE", "environment PARASOL_A, PARASOL_B" or "FILE with environment
   * PARASOL_A": where `keys` were set. Keys left at their defaults are
   * changed in the file, so when none was set, that is named (or "defaults").
   */
  of(keys: readonly string[]): string {
    const variables = [...new Set(keys.flatMap((key) => this.variables.get(key) ?? []))];
    if (variables.length === 0) return this.file ?? 'defaults';
    const environment = `environment ${variables.join(', ')}`;
    const alsoFromFile = keys.some((key) => this.fileKeys.has(key) && !this.variables.has(key));
    return alsoFromFile && this.file !== null ? `${this.file} with ${environment}` : environment;
  }
}

/**
 * PARASOL_LISTEN_PORT → listen.port; an unknown PARASOL_ variable is an
 * error, so typos do not pass silently. An empty one is unset (a compose
 * file's `PARASOL_ADMIN_HOSTS=${ADMIN_HOSTS}` with nothing in ADMIN_HOSTS
 * must not clear the file's admin.hosts). Answers each key set, with its
 * variable.
 */
function applyEnvironment(config: Mutable, env: NodeJS.ProcessEnv): Map<string, string> {
  const applied = new Map<string, string>();
  const known = envVariables();
  for (const [name, raw] of Object.entries(env)) {
    if (!name.startsWith(ENV_PREFIX) || NON_KEY_VARIABLES.has(name) || raw === undefined || raw.trim() === '') continue;
    const target = known.get(name);
    if (target === undefined) {
      const ending = envNamesEndingLike(name, known);
      throw new ConfigError(`environment ${name}: not a configuration key${didYouMean(ending.length > 0 ? ending : namesSpelledLike(name, [...known.keys()]))}`);
    }
    const [node, keyPath] = target;
    if (node.fromEnv === null) throw new ConfigError(`environment ${name}: ${keyPath.join('.')} (${node.expected}) can be set in the config file only`);
    const value = parseField(node, node.fromEnv(raw), keyPath, `environment ${name}`);
    setPath(config, keyPath, value);
    applied.set(keyPath.join('.'), name);
  }
  return applied;
}

function envVariables(): Map<string, [Field<unknown>, string[]]> {
  const names = new Map<string, [Field<unknown>, string[]]>();
  for (const [keyPath, node] of schemaKeys(configSchema, [])) {
    if (isField(node)) names.set(ENV_PREFIX + keyPath.join('_').toUpperCase(), [node, keyPath]);
  }
  return names;
}

/** The path of every key that holds a value (not a mapping of keys). */
function fieldKeys(): string[][] {
  return [...schemaKeys(configSchema, [])].flatMap(([keyPath, node]) => (isField(node) ? [keyPath] : []));
}

/** Every key of the schema with its node, mappings before the keys inside them. */
function* schemaKeys(schema: Schema, path: readonly string[]): Generator<[string[], Field<unknown> | Schema]> {
  for (const [key, node] of Object.entries(schema)) {
    const keyPath = [...path, key];
    yield [keyPath, node];
    if (!isField(node)) yield* schemaKeys(node, keyPath);
  }
}

/**
 * "unknown key …", with the keys it probably means: Parasol's for API
 * Umbrella's, keys of the same name elsewhere (`port` → `listen.port`), or a
 * key beside it it is a typo of (`proxxy` → `proxy`; `siblings`: the keys of
 * its mapping).
 */
function unknownKey(path: readonly string[], value: unknown, siblings: readonly string[]): string {
  const umbrella = umbrellaKeyIn(path, value);
  if (umbrella === null) {
    const named = sameNamedKeys(path);
    const parent = path.slice(0, -1);
    const spelledLike = namesSpelledLike(path[path.length - 1]!, siblings).map((name) => [...parent, name].join('.'));
    return `unknown key "${path.join('.')}"${didYouMean(named.length > 0 ? named : spelledLike)}`;
  }
  const { known } = umbrella;
  const hint = 'parasol' in known ? didYouMean([known.parasol]) : ` (${known.note})`;
  return `unknown key "${umbrella.path.join('.')}"${hint}`;
}

function sameNamedKeys(unknown: readonly string[]): string[] {
  const name = unknown[unknown.length - 1];
  return [...schemaKeys(configSchema, [])].filter(([path]) => path[path.length - 1] === name).map(([path]) => path.join('.'));
}

/** PARASOL_PORT → PARASOL_LISTEN_PORT, PARASOL_MAILER_SMTP_PORT: variables whose name ends in the unknown one's. */
function envNamesEndingLike(name: string, known: ReadonlyMap<string, unknown>): string[] {
  const ending = `_${name.slice(ENV_PREFIX.length)}`;
  return [...known.keys()].filter((variable) => variable.endsWith(ending));
}

function valueAt(values: Record<string, unknown>, keyPath: readonly string[]): unknown {
  let node: unknown = values;
  for (const key of keyPath) node = isPlainObject(node) ? node[key] : undefined;
  return node;
}

function setPath(target: Mutable, keyPath: string[], value: unknown): void {
  let node = target;
  for (const key of keyPath.slice(0, -1)) node = node[key] as Mutable;
  node[keyPath[keyPath.length - 1]!] = value;
}

/**
 * For a list given to a field of lists, the first entry the field refuses,
 * so a long list need not be searched by eye; a list given where a single
 * value belongs is just "a list". A field takes lists when it takes the empty one.
 */
function describeMismatch(node: Field<unknown>, value: unknown): string {
  const takesLists = Array.isArray(value) && node.parse([]) !== undefined;
  const refused = takesLists ? value.find((entry) => node.parse([entry]) === undefined) : undefined;
  return refused === undefined ? describe(value) : `${describe(refused)} in the list`;
}
