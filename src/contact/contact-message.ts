// What a contact form may send: API Umbrella's five fields, with its messages
// and its default checks (web.contact.*_regex), read once at the edge. The
// one-line fields end up in mail headers and the mail's first lines, so no
// line break or other control character gets through them.
import { isEmailAddress } from '../lib/email-address.js';
import { isPlainObject } from '../lib/validation-errors.js';
import type { ContactMessage } from '../mailer/contact-email.js';

export type { ContactMessage };

export interface ContactError {
  readonly code: 'INVALID_INPUT';
  readonly field: keyof ContactMessage;
  readonly message: string;
  readonly full_message: string;
}

export type ParsedContact = { readonly ok: true; readonly value: ContactMessage } | { readonly ok: false; readonly errors: ContactError[] };

const ONE_LINE_MAX = 255;
const INVALID = 'is invalid';
/** C0 controls (CR, LF, tab among them), DEL, and the Unicode line and paragraph breaks. */
const CONTROL = /[\u0000-\u001f\u007f\u0085\u2028\u2029]/;

interface FieldRule {
  readonly field: keyof ContactMessage;
  readonly label: string;
  readonly blank: string;
  /** False when the value may not be sent as it is. */
  readonly accepts: (value: string) => boolean;
  readonly oneLine: boolean;
}

// API Umbrella's defaults for web.contact: name_exclude_regex, email_regex, api_exclude_regex, subject_exclude_regex, message_exclude_regex.
const RULES: readonly FieldRule[] = [
  { field: 'name', label: 'Name', blank: 'Provide your name.', accepts: (value) => !/(http|https|www|<|>|\r|\n)/i.test(value), oneLine: true },
  { field: 'email', label: 'Email', blank: 'Provide your email address.', accepts: isEmailAddress, oneLine: true },
  { field: 'api', label: 'API', blank: 'Provide the API.', accepts: (value) => !/(<script|\r|\n)/i.test(value), oneLine: true },
  { field: 'subject', label: 'Subject', blank: 'Provide a subject.', accepts: (value) => !/(<script|\r|\n)/i.test(value), oneLine: true },
  // A message of nothing but a number is a bot's.
  { field: 'message', label: 'Message', blank: 'Provide a message.', accepts: (value) => !/^\s*\d+\s*$/.test(value), oneLine: false },
];

/**
 * The contact's fields, under "contact" (JSON or contact[…] form fields), or,
 * as API Umbrella wraps a JSON body, the body itself when it has no
 * "contact", or a null or false one. Anything else holds no fields.
 */
export function contactFields(body: unknown, asForm: boolean): Record<string, unknown> {
  if (!isPlainObject(body)) return {};
  if (isPlainObject(body.contact)) return body.contact;
  const wrapperless = body.contact === undefined || body.contact === null || body.contact === false;
  return wrapperless && !asForm ? body : {};
}

/** Every field is needed, and a string: as in API Umbrella, one error per field, the first rule it breaks. */
export function parseContact(fields: Record<string, unknown>): ParsedContact {
  const errors: ContactError[] = [];
  const value: Partial<Record<keyof ContactMessage, string>> = {};
  for (const rule of RULES) {
    const raw = fields[rule.field];
    const text = typeof raw !== 'string' ? '' : rule.oneLine ? raw.trim() : raw;
    const problem = text.trim() === '' ? rule.blank : !acceptable(rule, text) ? INVALID : rule.oneLine && text.length > ONE_LINE_MAX ? `is too long (maximum is ${ONE_LINE_MAX} characters)` : null;
    if (problem === null) value[rule.field] = text;
    else errors.push({ code: 'INVALID_INPUT', field: rule.field, message: problem, full_message: `${rule.label}: ${problem}` });
  }
  return errors.length === 0 ? { ok: true, value: value as ContactMessage } : { ok: false, errors };
}

function acceptable(rule: FieldRule, text: string): boolean {
  return rule.accepts(text) && !(rule.oneLine && CONTROL.test(text));
}
