// Form bodies arrive flat ("servers[0][host]=a"); the admin's forms, and the
// admin API's form bodies, mirror the JSON shapes, so they are decoded into
// nested objects here, once.
import { isPlainObject } from './validation-errors.js';

export type FormTree = { [key: string]: FormValue };
export type FormValue = string | FormTree;

const KEY_PATH = /^([^[\]]+)((?:\[[^[\]]*\])*)$/;
// Keys that would reach Object.prototype if a body named them.
const UNSAFE_KEYS = new Set(['__proto__', 'prototype', 'constructor']);
const MAX_DEPTH = 8;

/**
 * `{"a[b][0][c]": "x"}` → `{a: {b: {"0": {c: "x"}}}}`. Row groups stay objects
 * keyed by their (possibly browser-made) index, in the order they were sent;
 * rowsOf() turns them into lists. A repeated field keeps its last value.
 */
export function decodeNestedForm(body: unknown): FormTree {
  const root: FormTree = Object.create(null) as FormTree;
  if (!isPlainObject(body)) return root;
  for (const [name, raw] of Object.entries(body)) {
    const path = keyPath(name);
    const value = Array.isArray(raw) ? raw[raw.length - 1] : raw;
    if (path === null || typeof value !== 'string') continue;
    assign(root, path, value);
  }
  return root;
}

function keyPath(name: string): string[] | null {
  const match = KEY_PATH.exec(name);
  if (match === null) return null;
  const path = [match[1]!, ...[...match[2]!.matchAll(/\[([^[\]]*)\]/g)].map((part) => part[1]!)];
  if (path.length > MAX_DEPTH || path.some((key) => key === '' || UNSAFE_KEYS.has(key))) return null;
  return path;
}

function assign(root: FormTree, path: string[], value: string): void {
  let node = root;
  for (const key of path.slice(0, -1)) {
    const next = node[key];
    if (typeof next === 'string') return;
    node = next ?? (node[key] = Object.create(null) as FormTree);
  }
  const last = path[path.length - 1]!;
  if (typeof node[last] !== 'object') node[last] = value;
}

/** A nested group as text ('' when absent or not text). */
export function textOf(tree: FormTree | undefined, key: string): string {
  const value = tree?.[key];
  return typeof value === 'string' ? value : '';
}

/**
 * Text from a textarea, its line endings LF: browsers post a textarea's lines
 * with CRLF (HTML's form encoding), while what the admin API and API
 * Umbrella store, and what the form shows back, has LF. Read as sent, an
 * unchanged save would rewrite the text (a backend's error templates then a
 * change to publish, and the live error bodies changed).
 */
export function textareaOf(tree: FormTree | undefined, key: string): string {
  return withLineFeeds(textOf(tree, key));
}

/** CRLF and lone CR as LF. */
export function withLineFeeds(text: string): string {
  return text.replace(/\r\n?/g, '\n');
}

export function treeOf(tree: FormTree | undefined, key: string): FormTree {
  const value = tree?.[key];
  return typeof value === 'object' ? value : (Object.create(null) as FormTree);
}

/** The rows of a repeatable group, in the order the form sent them. */
export function rowsOf(tree: FormTree | undefined, key: string): FormTree[] {
  return Object.values(treeOf(tree, key)).filter((row): row is FormTree => typeof row === 'object');
}
