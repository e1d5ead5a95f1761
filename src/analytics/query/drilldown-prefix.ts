// API Umbrella's drilldown prefix: "depth/text". Depth 0 lists the hosts
// (text, if any, is the start of a host name); depth n lists what follows
// "host/" and n - 1 path segments, each ending in "/", which the text names.
import type { TimeZoneName } from '../../lib/time-zone.js';
import { parseLogQuery, type LogQuery, type ViewDefaults } from './log-query.js';

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

/** The parameters of a view and its level: the query, or the one message for a 400. */
export function parseDrilldownQuery(params: Record<string, unknown>, now: number, defaults?: ViewDefaults, zone?: TimeZoneName): { ok: true; query: DrilldownQuery } | { ok: false; error: string } {
  const parsed = parseLogQuery(params, now, defaults, zone);
  if (!parsed.ok) return parsed;
  const prefix = parseDrilldownPrefix(params.prefix);
  if (!prefix.ok) return prefix;
  return { ok: true, query: { ...parsed.query, prefix: prefix.prefix } };
}

export const ROOT_PREFIX = '0/';
/** Deeper than any path worth listing level by level; keeps the prefix short. Paths at this depth are listed as ends. */
export const MAX_DEPTH = 100;

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

export interface Breadcrumb {
  readonly crumb: string;
  readonly prefix: string;
}

/** API Umbrella's trail back up: All Hosts, then each whole segment the prefix names, with the prefix that lists what is under it. */
export function breadcrumbs(prefix: DrilldownPrefix): Breadcrumb[] {
  const trail = [{ crumb: 'All Hosts', prefix: ROOT_PREFIX }];
  const parts = prefix.text.split('/');
  parts.forEach((part, index) => {
    if (part !== '') trail.push({ crumb: part, prefix: `${index + 1}/${parts.slice(0, index + 1).join('/')}/` });
  });
  return trail;
}

/** The prefix that lists what is under `path` (a listed path that ends in "/"). */
export function childPrefix(depth: number, path: string): string {
  return `${depth + 1}/${path}`;
}
