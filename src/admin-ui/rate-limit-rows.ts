// Rate limits as the admin forms show them: a duration in a readable unit
// instead of milliseconds. Shared by API backend and API user forms.
import type { LimitBy, RateLimit } from '../api-backends/model.js';
import type { Embedded } from '../lib/record-ids.js';
import { toInteger, type FieldErrors } from '../lib/validation-errors.js';
import { textOf, type FormTree } from '../lib/nested-form.js';

export const DURATION_UNITS = [
  { value: 'milliseconds', label: 'milliseconds', ms: 1 },
  { value: 'seconds', label: 'seconds', ms: 1000 },
  { value: 'minutes', label: 'minutes', ms: 60_000 },
  { value: 'hours', label: 'hours', ms: 3_600_000 },
  { value: 'days', label: 'days', ms: 86_400_000 },
] as const;

export interface RateLimitRow {
  /** The limit's id, kept through an edit (a hidden field); '' for a new row. */
  readonly id: string;
  readonly duration_value: string;
  readonly duration_unit: string;
  readonly limit_by: string;
  readonly limit: string;
  readonly response_headers: boolean;
}

export const BLANK_RATE_LIMIT_ROW: RateLimitRow = { id: '', duration_value: '', duration_unit: 'minutes', limit_by: 'api_key', limit: '', response_headers: false };

/** The largest unit that states the duration exactly (milliseconds always do). */
export function rowFromRateLimit(limit: Embedded<RateLimit>): RateLimitRow {
  const unit = [...DURATION_UNITS].reverse().find((candidate) => limit.duration % candidate.ms === 0) ?? DURATION_UNITS[0];
  return {
    id: limit.id,
    duration_value: String(limit.duration / unit.ms),
    duration_unit: unit.value,
    limit_by: limit.limit_by,
    limit: String(limit.limit),
    response_headers: limit.response_headers,
  };
}

export function rowFromForm(tree: FormTree): RateLimitRow {
  return {
    id: textOf(tree, 'id'),
    duration_value: textOf(tree, 'duration_value').trim(),
    duration_unit: textOf(tree, 'duration_unit'),
    limit_by: textOf(tree, 'limit_by'),
    limit: textOf(tree, 'limit').trim(),
    response_headers: textOf(tree, 'response_headers') !== '',
  };
}

export function isBlankRow(row: RateLimitRow): boolean {
  return row.duration_value === '' && row.limit === '';
}

function unitOf(row: RateLimitRow) {
  return DURATION_UNITS.find((candidate) => candidate.value === row.duration_unit);
}

/**
 * The API shape parseRateLimits() checks; a duration that is not a whole
 * number stays invalid. A row without a known unit (a tampered or stale form)
 * is refused by rateLimitRowsInput and never saved: its amount goes as it is.
 */
export function rateLimitInput(row: RateLimitRow): Record<string, unknown> {
  const unit = unitOf(row) ?? DURATION_UNITS[0];
  const amount = toInteger(row.duration_value);
  return {
    id: row.id,
    duration: amount === undefined ? row.duration_value : amount * unit.ms,
    limit_by: row.limit_by as LimitBy,
    limit: row.limit,
    response_headers: row.response_headers,
  };
}

/** What the Rate Limit select says when limits were typed under another mode. */
export const ROWS_NEED_CUSTOM_MODE = 'Choose "Custom rate limits" to use the rate limits below, or remove them.';

/**
 * The limits a form's rows send, where "Custom" is chosen (`at`: the
 * settings' path, errors going to `${at}.rate_limit_mode` and
 * `${at}.rate_limits[i]…`). Only one limit can show in the headers (API
 * Umbrella's form offers it as a radio button): a second ticked box is an
 * error beside it, where the gateway would quietly report the first.
 * Under another mode none is sent: the saved rows (those with an id) go, as
 * switching away from Custom means; a row added in this edit is an error on
 * the mode, since saving would drop what was just typed (the page's script
 * shows the rows only under Custom, as API Umbrella's form does).
 */
export function rateLimitRowsInput(mode: string, rows: readonly RateLimitRow[], at: string, errors: FieldErrors): Record<string, unknown>[] {
  if (mode.trim() !== 'custom') {
    if (rows.some((row) => row.id === '' && !isBlankRow(row))) errors[`${at}.rate_limit_mode`] = [ROWS_NEED_CUSTOM_MODE];
    return [];
  }
  const shown = rows.flatMap((row, index) => (row.response_headers ? [index] : []));
  for (const index of shown.slice(1)) errors[`${at}.rate_limits[${index}].response_headers`] = ['only one rate limit can show in the headers'];
  // Read as milliseconds, "100 per hour" with its unit lost would be saved as 100 per millisecond.
  rows.forEach((row, index) => {
    if (unitOf(row) === undefined && !isBlankRow(row)) errors[`${at}.rate_limits[${index}].duration_unit`] = ['must be one of the units listed'];
  });
  return rows.map(rateLimitInput);
}

/** Validation speaks milliseconds; the form speaks units. Other messages (a window taken twice) are the form's as they are. */
export function formMessage(field: string, message: string): string {
  if (!field.endsWith('.duration')) return message;
  if (message.startsWith('must be at most')) return 'must be at most 366 days';
  if (message.startsWith('must be a positive')) return 'must be a positive whole number';
  return message;
}
