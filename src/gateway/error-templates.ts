// A backend's own error responses (settings.error_templates and error_data),
// rendered as API Umbrella renders them (its string_template, not Mustache):
// each {{name}} that names a variable — the request's URLs, the backend's
// common data, the data of the error, each value a template too — is
// replaced by its value; everything else stays as written.
import type { ApiSettings, ErrorDataValues } from '../api-backends/model.js';
import { csvQuoted, ERRORS, escapeMarkup, renderErrorBody, type ErrorCode, type ErrorFormat, type MessageUrls } from './errors.js';

/** The URLs an error may name, base_url included. */
export interface ErrorUrls extends MessageUrls {
  readonly base_url: string;
}

type ErrorData = Readonly<Record<string, Readonly<Record<string, string>>>>;

/** What a backend (or a sub-setting merged over it) changes in its error responses. */
export interface ErrorResponses {
  /** Stripped of surrounding whitespace; blank ones left out. */
  readonly templates: Readonly<Partial<Record<ErrorFormat, string>>>;
  readonly data: ErrorData;
}

export interface RenderedError {
  readonly status: number;
  readonly body: string;
}

const FORMATS: readonly ErrorFormat[] = ['json', 'xml', 'csv', 'html'];

/** null when the settings change nothing, so the usual error path stays as it is. */
export function compileErrorResponses(settings: Pick<ApiSettings, 'error_templates' | 'error_data'>): ErrorResponses | null {
  const templates: Partial<Record<ErrorFormat, string>> = {};
  for (const format of FORMATS) {
    const template = settings.error_templates[format];
    if (typeof template === 'string' && template.trim() !== '') templates[format] = template.trim();
  }
  if (Object.keys(templates).length === 0 && Object.keys(settings.error_data).length === 0) return null;
  return { templates, data: Object.fromEntries(Object.entries(settings.error_data).map(([code, values]) => [code, asText(values)])) };
}

/** Numbers and booleans as the text a template shows of them. */
function asText(values: ErrorDataValues): Readonly<Record<string, string>> {
  return Object.fromEntries(Object.entries(values).map(([name, value]) => [name, String(value)]));
}

/** The status and body of an error under a backend's settings. */
export function renderCustomError(responses: ErrorResponses, code: ErrorCode, format: ErrorFormat, urls: ErrorUrls): RenderedError {
  const view = errorView(responses.data, code, urls);
  const template = responses.templates[format];
  const body = template === undefined ? renderErrorBody(format, view.code ?? code, view.message ?? '') : renderTemplate(template, view, ESCAPES[format]);
  return { status: statusOf(view.status_code) ?? ERRORS[code].status, body };
}

/** Variables by name; built without a prototype (errorView), so {{constructor}} names none. */
export type View = Record<string, string>;

/**
 * base_url, then common data (signup_url, contact_url…), then the error's own
 * (status_code, code, message…), later groups overriding earlier ones. Each
 * operator-given or built-in value is then rendered in that order, so that
 * message may use contact_url and contact_url base_url. The request's own
 * URLs are never rendered: a Host header must not be read as a template.
 */
function errorView(data: ErrorData, code: ErrorCode, urls: ErrorUrls): View {
  const view: View = Object.create(null) as View;
  view.base_url = view.baseUrl = urls.base_url;
  view.https_url = urls.https_url;
  view.signup_url = urls.signup_url;
  view.contact_url = urls.contact_url;
  const common = data.common ?? {};
  const builtIn = { status_code: String(ERRORS[code].status), code, message: ERRORS[code].template };
  const specific = { ...builtIn, ...data[code.toLowerCase()] };
  Object.assign(view, common);
  // Legacy camelCase names, unless the common data sets them itself.
  if (!Object.hasOwn(common, 'signupUrl')) view.signupUrl = view.signup_url!;
  if (!Object.hasOwn(common, 'contactUrl')) view.contactUrl = view.contact_url!;
  Object.assign(view, specific);
  for (const key of new Set([...Object.keys(common), ...Object.keys(specific)])) {
    const value = view[key];
    if (typeof value === 'string') view[key] = renderTemplate(value, view, unescaped);
  }
  return view;
}

const unescaped = (value: string): string => value;

/** JSON and CSV get every value quoted for their syntax; XML and HTML get markup escaped, as API Umbrella's escape_html does it. */
const ESCAPES: Readonly<Record<ErrorFormat, (value: string) => string>> = {
  json: (value) => JSON.stringify(value),
  csv: csvQuoted,
  xml: escapeMarkup,
  html: escapeMarkup,
};

/**
 * API Umbrella's string_template: each {{name}} whose name is a variable is
 * replaced by its value, escaped; all else is sent as written — an unknown
 * {{name}}, a Mustache section, an unclosed tag — so no template fails to
 * render. A tag ends at the first "}" after its "{{", which must be doubled;
 * spaces around the name do not count. A value put in is not read again, so
 * what a client sent (in a Host, say) is never taken for a tag. Each "}" is
 * looked at once: linear in the template's length.
 */
export function renderTemplate(template: string, view: View, escape: (value: string) => string): string {
  let out = '';
  let copied = 0;
  let from = 0;
  for (;;) {
    const open = template.indexOf('{{', from);
    if (open < 0) break;
    const close = template.indexOf('}', open + 2);
    if (close < 0) break;
    // No "{{" before this "}" can make a tag if it is not doubled.
    from = close + 1;
    if (template.charCodeAt(from) !== CLOSING_BRACE) continue;
    from++;
    const value = view[template.slice(open + 2, close).replace(SURROUNDING_SPACES, '')];
    if (value === undefined) continue;
    out += template.slice(copied, open) + escape(value);
    copied = from;
  }
  return copied === 0 ? template : out + template.slice(copied);
}

const CLOSING_BRACE = 0x7d;
const SURROUNDING_SPACES = /^ +| +$/g;

const STATUS = /^\s*\d{3}\s*$/;

/** status_code from error_data: a three-digit HTTP status, else none. */
function statusOf(value: string | undefined): number | null {
  if (value === undefined || !STATUS.test(value)) return null;
  const status = Number(value);
  return status >= 100 && status <= 599 ? status : null;
}
