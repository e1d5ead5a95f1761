// A backend's own error responses (settings.error_templates and error_data),
// rendered as API Umbrella renders them: Mustache over the request's URLs, the
// backend's common data and the data of the error, each value a template too.
import Mustache from 'mustache';
import type { ApiSettings } from '../api-backends/model.js';
import { csvQuoted, ERRORS, renderErrorBody, type ErrorCode, type ErrorFormat, type MessageUrls } from './errors.js';

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
  /** null: the negotiated format's. */
  readonly contentType: string | null;
  readonly body: string;
}

const FORMATS: readonly ErrorFormat[] = ['json', 'xml', 'csv', 'html'];
const TEMPLATE_FAILED: RenderedError = { status: 500, contentType: 'text/plain', body: 'Internal Server Error' };

/** null when the settings change nothing, so the usual error path stays as it is. */
export function compileErrorResponses(settings: Pick<ApiSettings, 'error_templates' | 'error_data'>): ErrorResponses | null {
  const templates: Partial<Record<ErrorFormat, string>> = {};
  for (const format of FORMATS) {
    const template = settings.error_templates[format];
    if (typeof template === 'string' && template.trim() !== '') templates[format] = template.trim();
  }
  if (Object.keys(templates).length === 0 && Object.keys(settings.error_data).length === 0) return null;
  return { templates, data: settings.error_data };
}

/** The status and body of an error under a backend's settings; a template that cannot render gives a plain 500. */
export function renderCustomError(responses: ErrorResponses, code: ErrorCode, format: ErrorFormat, urls: ErrorUrls): RenderedError {
  try {
    const view = errorView(responses.data, code, urls);
    const template = responses.templates[format];
    const body = template === undefined ? renderErrorBody(format, view.code ?? code, view.message ?? '') : renderTemplate(template, view, format);
    return { status: statusOf(view.status_code) ?? ERRORS[code].status, contentType: null, body };
  } catch {
    // Mustache throws on malformed templates (an unclosed section, say): the client gets no detail.
    return TEMPLATE_FAILED;
  }
}

type View = Record<string, string>;

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
    if (typeof value === 'string') view[key] = Mustache.render(value, view, undefined, RAW);
  }
  return view;
}

const RAW = { escape: (value: unknown): string => String(value) };
const HTML = { escape: Mustache.escape };

/** JSON and CSV get every value quoted for their syntax and no HTML escaping; XML and HTML get Mustache's escaping. */
function renderTemplate(template: string, view: View, format: ErrorFormat): string {
  switch (format) {
    case 'json':
      return Mustache.render(template, quoted(view, jsonString), undefined, RAW);
    case 'csv':
      return Mustache.render(template, quoted(view, csvQuoted), undefined, RAW);
    case 'xml':
    case 'html':
      return Mustache.render(template, view, undefined, HTML);
  }
}

function quoted(view: View, quote: (value: string) => string): View {
  const result: View = Object.create(null) as View;
  for (const key in view) result[key] = quote(view[key]!);
  return result;
}

function jsonString(value: string): string {
  return JSON.stringify(value);
}

const STATUS = /^\s*\d{3}\s*$/;

/** status_code from error_data: a three-digit HTTP status, else none. */
function statusOf(value: string | undefined): number | null {
  if (value === undefined || !STATUS.test(value)) return null;
  const status = Number(value);
  return status >= 100 && status <= 599 ? status : null;
}
