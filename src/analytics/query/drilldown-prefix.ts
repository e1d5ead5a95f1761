// API Umbrella's drilldown prefix: "depth/text". Depth 0 lists the hosts
// (text, if any, is the start of a host name); depth n lists what follows
// "host/" and n - 1 path segments, each ending in "/", which the text names.
import type { LogQuery } from './log-query.js';

export interface DrilldownPrefix {
  readonly depth: number;
  /** What the listed paths ("host/path") start with. */
  readonly text: string;
  /** The text up to its last "/": the part every listed path shares whole. */
  readonly base: string;
}

export interface DrilldownQuery extends LogQuery {
  readonly prefix: DrilldownPrefix;
}

export const ROOT_PREFIX = '0/';
/** Deeper than any path worth listing level by level; keeps the prefix short. */
const MAX_DEPTH = 100;

export type DrilldownPrefixResult = { ok: true; prefix: DrilldownPrefix } | { ok: false; error: string };

export function parseDrilldownPrefix(raw: unknown): DrilldownPrefixResult {
  const value = raw === undefined || raw === '' ? ROOT_PREFIX : raw;
  const match = typeof value === 'string' ? /^(\d{1,3})\/(.*)$/s.exec(value) : null;
  const depth = Number(match?.[1]);
  if (match === null || depth > MAX_DEPTH) return { ok: false, error: `prefix must be a depth and a path, such as ${ROOT_PREFIX} or 1/api.example.com/` };
  const text = match[2]!;
  const base = text.slice(0, text.lastIndexOf('/') + 1);
  if (slashes(base) !== depth) return { ok: false, error: `prefix ${value} does not name ${depth} level${depth === 1 ? '' : 's'}: its path has ${slashes(base)} "/"` };
  return { ok: true, prefix: { depth, text, base } };
}

function slashes(text: string): number {
  return text.split('/').length - 1;
}

/** The prefix that lists what is under `path` (a listed path that ends in "/"). */
export function childPrefix(depth: number, path: string): string {
  return `${depth + 1}/${path}`;
}
