// How config errors word what they found and what they suggest, the same
// for every key, so that one operator's reading of one message carries over.
import { editDistance } from '../lib/spelling.js';

/** A value as an error shows it: JSON for a scalar, the kind of a list or mapping (they may be long). */
export function describe(value: unknown): string {
  if (value === null) return 'null';
  // `got ""` is easy to misread as a quoting slip.
  if (value === '') return 'an empty string';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  // YAML's .inf and .nan, which JSON would write as null.
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  return JSON.stringify(value);
}

/** "a", "a or b", "a, b or c". */
export function orList(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} or ${items[items.length - 1]!}`;
}

/** More places than this is no hint. */
const MAX_SUGGESTIONS = 3;

/** ` (did you mean "a" or "b"?)`, or nothing when there is no candidate or too many to help. */
export function didYouMean(candidates: readonly string[]): string {
  if (candidates.length === 0 || candidates.length > MAX_SUGGESTIONS) return '';
  return ` (did you mean ${orList(candidates.map((candidate) => `"${candidate}"`))}?)`;
}

/** A typo is a letter or two added, dropped or changed (response_header → response_headers); more is another word. */
const MAX_TYPO_EDITS = 2;

/** The names `name` is probably a typo of. */
export function namesSpelledLike(name: string, names: readonly string[]): string[] {
  return names.filter((candidate) => editDistance(name, candidate) <= MAX_TYPO_EDITS);
}

/** A rule broken: "key: reason", and the keys whose values it read, so that the error can name where they were set. */
export interface KeyProblem {
  readonly keys: readonly string[];
  readonly message: string;
}

/** A problem found in the value of `keys`, or null. */
export function about(keys: readonly string[], message: string | null): KeyProblem | null {
  return message === null ? null : { keys, message };
}

/** The common reasons a file cannot be read, in words, the code kept for a search. */
const READ_FAILURES: Readonly<Record<string, string>> = {
  ENOENT: 'no such file (ENOENT)',
  EISDIR: 'it is a directory (EISDIR)',
  EACCES: 'permission denied (EACCES)',
  EPERM: 'permission denied (EPERM)',
};

/** "key: cannot read PATH: why", for a file a key names: the reason in words, else its code, else what the reader found wrong. */
export function unreadableFile(key: string, path: string, error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  const why = (code === undefined ? undefined : READ_FAILURES[code]) ?? code ?? (error as Error).message ?? String(error);
  return `${key}: cannot read ${path}: ${why}`;
}
