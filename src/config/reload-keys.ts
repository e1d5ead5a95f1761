// What a reload (SIGHUP) can apply. Most keys are read by the app a reload
// builds anew; a few are read once by what the process keeps across reloads
// (the listeners, the store, the analytics writer), and a changed one keeps
// its running value until a restart.
import { deepFreeze } from '../lib/deep-freeze.js';
import type { Config } from './schema.js';

/**
 * Keys, or sections of keys, read at start only. A key added to a section
 * listed here waits for a restart too; analytics.timezone is the exception,
 * read by the analytics pages rather than by the writer.
 */
const READ_AT_START = ['listen', 'tls', 'data_dir', 'secret_key', 'proxy.max_header_size', 'analytics'];
const RELOADABLE_IN_SECTIONS = new Set(['analytics.timezone']);

export interface ConfigChange {
  /** Changed keys a reload applies (dotted paths: proxy.response_timeout_ms, ban.ips). */
  readonly applied: string[];
  /** Changed keys that keep their running values until a restart. */
  readonly needRestart: string[];
  /** The config to run with: the new one, with the running values of needRestart. */
  readonly config: Config;
}

export function configChange(running: Config, next: Config): ConfigChange {
  const changed = changedKeys(running, next, '');
  const needRestart = changed.filter(readAtStart);
  const applied = changed.filter((key) => !readAtStart(key));
  return { applied, needRestart, config: needRestart.length === 0 ? next : withValuesOf(running, next, needRestart) };
}

function readAtStart(key: string): boolean {
  if (RELOADABLE_IN_SECTIONS.has(key)) return false;
  return READ_AT_START.some((start) => key === start || key.startsWith(`${start}.`));
}

/** Paths of the values that differ; a list (ban.ips, tls.certificates) is one value. */
function changedKeys(running: unknown, next: unknown, path: string): string[] {
  if (isSection(running) && isSection(next)) {
    const keys = new Set([...Object.keys(running), ...Object.keys(next)]);
    return [...keys].flatMap((key) => changedKeys(running[key], next[key], path === '' ? key : `${path}.${key}`));
  }
  return JSON.stringify(running) === JSON.stringify(next) ? [] : [path];
}

function isSection(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `next` with the values `running` has at `keys`. */
function withValuesOf(running: Config, next: Config, keys: readonly string[]): Config {
  const merged = structuredClone(next) as unknown as Record<string, unknown>;
  for (const key of keys) {
    const parts = key.split('.');
    const last = parts.pop()!;
    const section = parts.reduce((at, part) => at[part] as Record<string, unknown>, merged);
    const value = parts.reduce((at, part) => at[part] as Record<string, unknown>, running as unknown as Record<string, unknown>)[last];
    section[last] = value;
  }
  // Frozen as the loader leaves a config: nothing may change one in use.
  return deepFreeze(merged) as unknown as Config;
}
