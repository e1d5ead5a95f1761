// Filters on logged fields, combined with AND. Parsed from untrusted input
// into typed rules once; compiled to SQL where only whitelisted column names
// and fixed operators appear, and every value is a bound parameter.
import { previewOf } from '../../lib/secret-token.js';
import { fieldNamed, type FieldInfo, type FieldName } from '../fields.js';

/** API Umbrella's query builder operators, in the order the filter form offers them, with their labels. */
export const OPERATORS = {
  equal: 'equals',
  not_equal: 'not equals',
  begins_with: 'begins with',
  not_begins_with: 'does not begin with',
  contains: 'contains',
  not_contains: 'does not contain',
  is_null: 'is empty',
  is_not_null: 'is not empty',
  less: '<',
  less_or_equal: '≤',
  greater: '>',
  greater_or_equal: '≥',
  between: 'between',
} as const;

export type Operator = keyof typeof OPERATORS;
export type RuleValue = string | number | readonly [number, number] | null;

export interface FilterRule {
  readonly field: FieldName;
  readonly operator: Operator;
  readonly value: RuleValue;
}

/**
 * The admin pages' default filter, when their URL has no `query`: hides
 * requests the gateway refused; the admin can remove it. The JSON and CSV
 * endpoints have none, as in API Umbrella (see ViewDefaults).
 */
export const DEFAULT_RULES: readonly FilterRule[] = [{ field: 'gatekeeper_denied_code', operator: 'is_null', value: null }];

/** Names API Umbrella's query builder and the wording use for the same operators. */
const ALIASES: Record<string, Operator> = { equals: 'equal', not_equals: 'not_equal', is_empty: 'is_null', is_not_empty: 'is_not_null', lt: 'less', gt: 'greater' };
const TEXT_ONLY = new Set<Operator>(['begins_with', 'not_begins_with', 'contains', 'not_contains']);
const NUMBER_ONLY = new Set<Operator>(['less', 'less_or_equal', 'greater', 'greater_or_equal', 'between']);
/** Each "not_" operator and the one it negates: API Umbrella wraps that one in must_not, so an entry without the field matches. */
const NEGATED = { not_equal: 'equal', not_begins_with: 'begins_with', not_contains: 'contains' } as const satisfies Partial<Record<Operator, Operator>>;
/**
 * Text compares whatever its ASCII case, as in API Umbrella, whose query
 * builder lowercases a filter's value (uppercases it for the country and
 * region) to match the case its index stores, except on these fields (its
 * CASE_SENSITIVE_FIELDS; its api_key is our api_key_preview).
 */
const CASE_SENSITIVE = new Set<FieldName>(['api_key_preview', 'request_ip_city']);
const NO_VALUE = new Set<Operator>(['is_null', 'is_not_null']);

export type RulesResult = { ok: true; rules: FilterRule[] } | { ok: false; error: string };

/** `[{"field","operator","value"}]`, or API Umbrella's `{"condition":"AND","rules":[…]}`. */
export function parseRules(input: unknown): RulesResult {
  const list = Array.isArray(input) ? input : isObject(input) && Array.isArray(input.rules) ? input.rules : null;
  if (list === null) return { ok: false, error: 'query must be a JSON list of filters: [{"field":…,"operator":…,"value":…}]' };
  if (isObject(input) && input.condition !== undefined && (typeof input.condition !== 'string' || input.condition.toUpperCase() !== 'AND')) {
    return { ok: false, error: 'Filters can only be combined with AND' };
  }
  const rules: FilterRule[] = [];
  for (const raw of list) {
    const parsed = parseRule(raw);
    if (typeof parsed === 'string') return { ok: false, error: parsed };
    rules.push(parsed);
  }
  return { ok: true, rules };
}

/** A rule, or the message saying what is wrong with it. */
export function parseRule(raw: unknown): FilterRule | string {
  if (!isObject(raw)) return 'Each filter must be an object with field, operator and value';
  // API Umbrella's filter builder can nest groups; here every filter is one rule of one AND list.
  if (raw.rules !== undefined || raw.condition !== undefined) return 'Filter groups cannot be nested: give one list of filters, combined with AND';
  const named = raw.field ?? raw.id;
  const onApiKey = named === API_KEY_FIELD;
  const info = fieldNamed(onApiKey ? 'api_key_preview' : named);
  if (info === undefined) return `Unknown filter field ${shown(named)}`;
  const operator = operatorNamed(raw.operator);
  if (operator === undefined) return `Unknown filter operator ${shown(raw.operator)}; use one of ${Object.keys(OPERATORS).join(', ')}`;
  if (TEXT_ONLY.has(operator) && info.kind !== 'string') return `"${OPERATORS[operator]}" needs a text field; ${info.name} is a number`;
  if (NUMBER_ONLY.has(operator) && info.kind !== 'number') return `"${OPERATORS[operator]}" needs a number field; ${info.name} is text`;
  const value = parseValue(info, operator, raw.value);
  if ('error' in value) return value.error;
  return { field: info.name, operator, value: onApiKey ? asPreview(operator, value.ok) : value.ok };
}

/**
 * API Umbrella's filter on `api_key`: it logs whole keys, Parasol only their
 * previews, so the filter is on the preview, and a whole key asked for (or
 * against) becomes its preview.
 */
const API_KEY_FIELD = 'api_key';

function asPreview(operator: Operator, value: RuleValue): RuleValue {
  const wholeKey = (operator === 'equal' || operator === 'not_equal') && typeof value === 'string' && !value.endsWith('...');
  return wholeKey ? previewOf(value) : value;
}

function parseValue(info: FieldInfo, operator: Operator, raw: unknown): { ok: RuleValue } | { error: string } {
  if (NO_VALUE.has(operator)) return { ok: null };
  if (operator === 'between') {
    const parts = Array.isArray(raw) ? raw : typeof raw === 'string' ? raw.split(',') : [];
    const numbers = parts.map(toNumber);
    if (numbers.length !== 2 || numbers.some((n) => n === null)) return { error: `"between" on ${info.name} needs two numbers, e.g. 100,500` };
    return { ok: [numbers[0]!, numbers[1]!] };
  }
  if (info.kind === 'number') {
    const number = toNumber(raw);
    return number === null ? { error: `${info.name} compares numbers; ${shown(raw)} is not a number` } : { ok: number };
  }
  if (typeof raw === 'number') return { ok: String(raw) };
  if (typeof raw !== 'string' || raw === '') return { error: `"${OPERATORS[operator]}" on ${info.name} needs a value` };
  return { ok: raw };
}

/** Own keys only: "toString" or "__proto__" would otherwise pass as operators and reach ruleSql. */
function operatorNamed(name: unknown): Operator | undefined {
  if (typeof name !== 'string') return undefined;
  if (Object.hasOwn(OPERATORS, name)) return name as Operator;
  return Object.hasOwn(ALIASES, name) ? ALIASES[name] : undefined;
}

/** Client input quoted in a message. JSON, because String() throws on an object such as {"toString":1}. */
function shown(value: unknown): string {
  return JSON.stringify(value ?? '');
}

/** A decimal number, as a form or JSON writes one: not JavaScript's other spellings ("0x1F4", "0b1", "Infinity"). */
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

function toNumber(raw: unknown): number | null {
  if (typeof raw === 'number') return Number.isFinite(raw) ? raw : null;
  if (typeof raw !== 'string' || !DECIMAL.test(raw.trim())) return null;
  const number = Number(raw.trim());
  return Number.isFinite(number) ? number : null;
}

export interface SqlCondition {
  readonly sql: string;
  readonly params: unknown[];
}

/**
 * One rule as SQL over analytics_logs; text "empty" means NULL or ''. A rule
 * on a field of the client's context picks the matching contexts instead
 * (inContexts). Column names and expressions come from the field whitelist only.
 */
export function ruleSql(rule: FilterRule): SqlCondition {
  const info = fieldNamed(rule.field)!;
  if (info.contextSql === null) return comparison(rule, info.sql, info);
  return inContexts(comparison(rule, info.contextSql, info));
}

/**
 * Entries whose context meets `condition` (SQL over analytics_contexts). The
 * contexts are picked once per query; looking up each row's context would
 * cost a lookup per row.
 */
export function inContexts(condition: SqlCondition): SqlCondition {
  return { sql: `context_id IN (SELECT id FROM analytics_contexts WHERE ${condition.sql})`, params: condition.params };
}

function comparison(rule: FilterRule, column: string, info: FieldInfo): SqlCondition {
  const text = info.kind === 'string';
  switch (rule.operator) {
    case 'equal':
      return text ? textMatch('equal', column, String(rule.value), CASE_SENSITIVE.has(info.name)) : { sql: `${column} = ?`, params: [rule.value] };
    case 'begins_with':
    case 'contains':
      return textMatch(rule.operator, column, String(rule.value), CASE_SENSITIVE.has(info.name));
    case 'not_equal':
    case 'not_begins_with':
    case 'not_contains': {
      // NULL (no value) and false alike; the column is read once.
      const matched = comparison({ ...rule, operator: NEGATED[rule.operator] }, column, info);
      return { sql: `(${matched.sql}) IS NOT TRUE`, params: matched.params };
    }
    case 'is_null':
      return { sql: text ? `(${column} IS NULL OR ${column} = '')` : `${column} IS NULL`, params: [] };
    case 'is_not_null':
      return { sql: text ? `(${column} IS NOT NULL AND ${column} <> '')` : `${column} IS NOT NULL`, params: [] };
    case 'less':
      return { sql: `${column} < ?`, params: [rule.value] };
    case 'less_or_equal':
      return { sql: `${column} <= ?`, params: [rule.value] };
    case 'greater':
      return { sql: `${column} > ?`, params: [rule.value] };
    case 'greater_or_equal':
      return { sql: `${column} >= ?`, params: [rule.value] };
    case 'between': {
      const [low, high] = rule.value as readonly [number, number];
      return { sql: `${column} BETWEEN ? AND ?`, params: [Math.min(low, high), Math.max(low, high)] };
    }
  }
}

/**
 * Text equal to, beginning with or containing the value. SQLite's NOCASE and
 * LIKE fold ASCII letters only, as Lua's string.lower does in API Umbrella.
 * With case: plain = and, not LIKE (which ignores case), substr() and instr();
 * lengths are SQLite's own, measured on the bound text, so they count what
 * substr counts.
 */
function textMatch(operator: 'equal' | 'begins_with' | 'contains', column: string, value: string, caseSensitive: boolean): SqlCondition {
  switch (operator) {
    case 'equal':
      return { sql: caseSensitive ? `${column} = ?` : `${column} = ? COLLATE NOCASE`, params: [value] };
    case 'begins_with':
      if (caseSensitive) return { sql: `substr(${column}, 1, length(?)) = ?`, params: [value, value] };
      return { sql: `${column} LIKE ? ESCAPE '\\'`, params: [`${escapeLike(value)}%`] };
    case 'contains':
      if (caseSensitive) return { sql: `instr(${column}, ?) > 0`, params: [value] };
      return { sql: `${column} LIKE ? ESCAPE '\\'`, params: [`%${escapeLike(value)}%`] };
  }
}

/** LIKE's wildcards in a value match themselves. */
export function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (char) => `\\${char}`);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
