// Validation errors as a form shows them: next to each field, and as a
// summary above the form with readable field names. And the error of an edit
// form saved after another admin changed its record.
import { isDeepStrictEqual } from 'node:util';
import { formatTime } from '../lib/time-format.js';
import { isPlainObject, type FieldErrors } from '../lib/validation-errors.js';
import { formString } from './account-fields.js';

export class FormErrors {
  constructor(
    private readonly errors: FieldErrors = {},
    private readonly label: (field: string) => string = (field) => field,
  ) {}

  get any(): boolean {
    return Object.keys(this.errors).length > 0;
  }

  /** Messages for exactly this field. */
  at(field: string): string[] {
    return this.errors[field] ?? [];
  }

  /** Messages for this field and everything inside it (e.g. every header line). */
  under(prefix: string): string[] {
    return Object.entries(this.errors)
      .filter(([field]) => field === prefix || field.startsWith(`${prefix}.`) || field.startsWith(`${prefix}[`))
      .flatMap(([, messages]) => messages);
  }

  /** One line per message, named by its field unless it is a sentence already ("Provide your email address."). */
  summary(): string[] {
    return Object.entries(this.errors).flatMap(([field, messages]) =>
      messages.map((message) => (/^[A-Z]/.test(message) ? message : `${this.label(field)} ${message}`)),
    );
  }
}

/**
 * The hidden field of an edit form naming the version of the record it was
 * filled from. A form posts every field as the page showed it, so a save
 * after another admin changed the record (disabled a key, took a role away)
 * would undo that unseen: a version no longer the record's is refused (409,
 * nothing saved). The admin API keeps API Umbrella's contract and checks none.
 */
const RECORD_VERSION = 'record_version';

/** The version the form was filled from; null for a post without one (a page from before, a script), which saves as before. */
export function postedVersion(body: unknown): string | null {
  return formString(body, RECORD_VERSION) || null;
}

export interface EditConflict {
  /** The record in a sentence, e.g. "API user". */
  readonly record: string;
  /** The email of the admin who changed it last; null when unknown. */
  readonly by: string | null;
  /** When (ISO 8601). */
  readonly at: string;
  /** The labels of the fields whose saved value is not the form's. */
  readonly fields: readonly string[];
}

/** A refused save's message (under "base", atop the form that keeps what was typed); `viewer`: the email of the admin saving. */
export function editConflictErrors(conflict: EditConflict, viewer: string): FieldErrors {
  const who = conflict.by === null ? 'Another admin' : conflict.by === viewer ? 'You' : conflict.by;
  const fields = [...new Set(conflict.fields)];
  const what =
    fields.length === 0
      ? `The saved ${conflict.record} matches your form: save again to keep it.`
      : `The saved ${conflict.record} now differs from your form in: ${fields.join(', ')}. Check those fields, then save again to keep your values.`;
  return { base: [`${who} changed this ${conflict.record} at ${formatTime(conflict.at)} after you opened this page, and nothing was saved. ${what}`] };
}

/**
 * The fields of the posted form whose values differ from the saved record's
 * (filled into the form as the page fills it), by their paths as the forms'
 * errors name them ("settings.allowed_ips"). A field the admin left alone
 * posts what the page showed, so their own changes and the other admin's
 * show. Lists of ids (ticked boxes) count as sets: their order is the page's.
 */
export function differingFields(saved: object, posted: object): string[] {
  const differing = (a: Record<string, unknown>, b: Record<string, unknown>, at: string): string[] =>
    Object.keys(b).flatMap((key) => {
      const path = at === '' ? key : `${at}.${key}`;
      if (isPlainObject(a[key]) && isPlainObject(b[key])) return differing(a[key], b[key], path);
      return sameValue(a[key], b[key]) ? [] : [path];
    });
  return differing({ ...saved }, { ...posted }, '');
}

function sameValue(a: unknown, b: unknown): boolean {
  if (isStringList(a) && isStringList(b)) return isDeepStrictEqual([...a].sort(), [...b].sort());
  return isDeepStrictEqual(a, b);
}

function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}
