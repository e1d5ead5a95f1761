/** Field → messages, the shape API Umbrella's admin API answers 422 with. */
export type FieldErrors = Record<string, string[]>;

export class ErrorCollector {
  readonly errors: FieldErrors = {};

  add(field: string, message: string): void {
    (this.errors[field] ??= []).push(message);
  }

  has(field: string): boolean {
    return Object.hasOwn(this.errors, field);
  }

  get isEmpty(): boolean {
    return !hasErrors(this.errors);
  }
}

export function hasErrors(errors: FieldErrors): boolean {
  return Object.keys(errors).length > 0;
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; errors: FieldErrors };

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Accepts numbers and numeric strings, as form posts and older clients send them. */
/** An integer a number keeps exactly (a longer one would be stored as something else: 400 digits as null). */
export function toInteger(value: unknown): number | undefined {
  const number = typeof value === 'string' && /^\s*-?\d+\s*$/.test(value) ? Number(value) : value;
  return typeof number === 'number' && Number.isSafeInteger(number) ? number : undefined;
}

/** Accepts booleans and the strings forms send ("1", "true", "on"). */
export function toBoolean(value: unknown): boolean | null {
  if (value === null || value === undefined || value === '') return null;
  if (typeof value === 'boolean') return value;
  if (value === 1 || value === '1' || value === 'true' || value === 'on') return true;
  if (value === 0 || value === '0' || value === 'false' || value === 'off') return false;
  return null;
}

/** Missing, null, or a string of nothing but whitespace. */
export function isBlank(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
}

export function blankToNull(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const trimmed = value.trim();
  return trimmed === '' ? null : trimmed;
}

// The readers below tell a field left empty (absent, null, blank: its empty
// value, as before) from one sent with the wrong type, which is an error on
// that field: read as empty, a number or an object sent by mistake would
// clear what was stored (roles, allowed IPs) with a success.

export const NOT_TEXT = 'must be text';
const NOT_TEXT_LIST = 'must be a list of text values';
const NOT_BOOLEAN = 'must be true or false';

/** Text trimmed; null when absent, null or blank; any other type is `message` on `field`. */
export function textField(raw: unknown, field: string, errors: ErrorCollector, message = NOT_TEXT): string | null {
  if (raw !== undefined && raw !== null && typeof raw !== 'string') errors.add(field, message);
  return blankToNull(raw);
}

/** Text that must be given: blank is `blankMessage`, another type NOT_TEXT (not "blank", which it was not). */
export function requiredText(raw: unknown, field: string, errors: ErrorCollector, blankMessage: string): string | null {
  if (isBlank(raw)) errors.add(field, blankMessage);
  return textField(raw, field, errors);
}

/**
 * A list of text values, trimmed, blanks left out: a list of strings, a
 * comma-separated string (as API Umbrella's admin sends roles), or form rows
 * ({"0": "a", "1": "b"}, the shape PHP, Rails and form-to-JSON converters
 * give a list); [] when absent or null. Another type is an error on `field`,
 * an item that is no string one on `field[index]`.
 */
export function stringListField(raw: unknown, field: string, errors: ErrorCollector): string[] {
  if (raw === undefined || raw === null) return [];
  const items = typeof raw === 'string' ? raw.split(',') : Array.isArray(raw) ? raw : isRows(raw) ? rowsInOrder(raw) : null;
  if (items === null) {
    errors.add(field, NOT_TEXT_LIST);
    return [];
  }
  items.forEach((item, index) => {
    if (typeof item !== 'string') errors.add(`${field}[${index}]`, NOT_TEXT);
  });
  return items.filter((item): item is string => typeof item === 'string').map((item) => item.trim()).filter((item) => item !== '');
}

/** An object whose keys are all row numbers, as a form's numbered fields are. */
function isRows(value: unknown): value is Record<string, unknown> {
  return isPlainObject(value) && Object.keys(value).every((key) => /^\d+$/.test(key));
}

/** The rows in number order, whatever order the object keeps its keys in ("01" after "9"). */
function rowsInOrder(rows: Record<string, unknown>): unknown[] {
  return Object.keys(rows).sort((a, b) => Number(a) - Number(b)).map((key) => rows[key]);
}

/** A boolean in any spelling toBoolean reads; null when absent or blank; anything else ("no", 12345, a list) is an error. */
export function booleanField(raw: unknown, field: string, errors: ErrorCollector): boolean | null {
  const value = toBoolean(raw);
  if (value === null && !isBlank(raw)) errors.add(field, NOT_BOOLEAN);
  return value;
}
