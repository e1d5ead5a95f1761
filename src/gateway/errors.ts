// The gateway's own error responses, as API Umbrella words and formats them:
// one table of codes, one negotiation of the format, one renderer per format.
import { firstQueryValue } from './request-url.js';

export type ErrorCode =
  | 'API_KEY_MISSING'
  | 'API_KEY_INVALID'
  | 'API_KEY_DISABLED'
  | 'API_KEY_EXPIRED'
  | 'API_KEY_UNVERIFIED'
  | 'API_KEY_UNAUTHORIZED'
  | 'HTTPS_REQUIRED'
  | 'NOT_FOUND'
  | 'OVER_RATE_LIMIT'
  | 'INTERNAL_SERVER_ERROR'
  | 'BAD_REQUEST'
  | 'METHOD_NOT_ALLOWED'
  | 'BAD_GATEWAY'
  | 'GATEWAY_TIMEOUT';

interface ErrorDefinition {
  readonly status: number;
  readonly template: string;
}

const ASSISTANCE = 'Try again later or contact us at {{contact_url}} for assistance';

export const ERRORS: Readonly<Record<ErrorCode, ErrorDefinition>> = {
  API_KEY_MISSING: { status: 403, template: 'No api_key was supplied. Get one at {{signup_url}}' },
  API_KEY_INVALID: { status: 403, template: 'An invalid api_key was supplied. Get one at {{signup_url}}' },
  API_KEY_DISABLED: { status: 403, template: 'The api_key supplied has been disabled. Contact us at {{contact_url}} for assistance' },
  // Not in API Umbrella, whose keys never expire; worded like its neighbours.
  API_KEY_EXPIRED: { status: 403, template: 'The api_key supplied has expired. Contact us at {{contact_url}} for assistance' },
  API_KEY_UNVERIFIED: {
    status: 403,
    template: 'The api_key supplied has not been verified yet. Please check your e-mail to verify the API key. Contact us at {{contact_url}} for assistance',
  },
  API_KEY_UNAUTHORIZED: {
    status: 403,
    template: 'The api_key supplied is not authorized to access the given service. Contact us at {{contact_url}} for assistance',
  },
  HTTPS_REQUIRED: { status: 400, template: 'Requests must be made over HTTPS. Try accessing the API at: {{https_url}}' },
  NOT_FOUND: { status: 404, template: 'The requested URL was not found on this server.' },
  OVER_RATE_LIMIT: { status: 429, template: `You have exceeded your rate limit. ${ASSISTANCE}` },
  INTERNAL_SERVER_ERROR: { status: 500, template: `An unexpected error has occurred. ${ASSISTANCE}` },
  // Not in API Umbrella's table (nginx answers these with its own pages); worded the same way.
  BAD_REQUEST: { status: 400, template: 'The request is malformed.' },
  METHOD_NOT_ALLOWED: { status: 405, template: 'The request method is not allowed.' },
  BAD_GATEWAY: { status: 502, template: `The API backend could not be reached. ${ASSISTANCE}` },
  GATEWAY_TIMEOUT: { status: 504, template: `The API backend did not respond in time. ${ASSISTANCE}` },
};

/** The URLs a message template may name. */
export interface MessageUrls {
  readonly signup_url: string;
  readonly contact_url: string;
  readonly https_url: string;
}

const PLACEHOLDER = /\{\{(signup_url|contact_url|https_url)\}\}/g;

export function errorMessage(code: ErrorCode, urls: MessageUrls): string {
  return ERRORS[code].template.replace(PLACEHOLDER, (_match, name: keyof MessageUrls) => urls[name]);
}

export type ErrorFormat = 'json' | 'xml' | 'csv' | 'html';

export interface NegotiatedFormat {
  readonly format: ErrorFormat;
  readonly contentType: string;
}

const BY_NAME: Readonly<Record<ErrorFormat, NegotiatedFormat>> = {
  json: { format: 'json', contentType: 'application/json' },
  xml: { format: 'xml', contentType: 'application/xml' },
  csv: { format: 'csv', contentType: 'text/csv' },
  html: { format: 'html', contentType: 'text/html' },
};

/** In preference order: a range with a wildcard picks the earliest type it covers. */
const MEDIA_TYPES: readonly NegotiatedFormat[] = [
  BY_NAME.json,
  BY_NAME.xml,
  { format: 'xml', contentType: 'text/xml' },
  BY_NAME.csv,
  BY_NAME.html,
];

const EXTENSION = /\.(json|xml|csv|html)$/;

/** Path extension, then a plain `format=` parameter, then Accept, else JSON. */
export function negotiateFormat(path: string, query: string, accept: string | undefined): NegotiatedFormat {
  const extension = EXTENSION.exec(path.slice(path.lastIndexOf('/')));
  if (extension !== null) return BY_NAME[extension[1] as ErrorFormat];
  const requested = firstQueryValue(query, 'format');
  if (requested !== null && Object.hasOwn(BY_NAME, requested)) return BY_NAME[requested as ErrorFormat];
  return accept === undefined || accept === '' ? BY_NAME.json : fromAccept(accept);
}

interface AcceptRange {
  readonly type: string;
  readonly subtype: string;
  readonly q: number;
}

/**
 * API Umbrella's negotiation: the client's ranges by q (highest first), exact
 * types before wildcards, then in the order the client listed them; the first
 * range any supported type falls under picks the first such type. So
 * "text/csv, application/xml" is CSV, and "text/*" is text/xml.
 */
function fromAccept(accept: string): NegotiatedFormat {
  const ranges = parseAccept(accept).sort(byPreference);
  for (const range of ranges) {
    for (const media of MEDIA_TYPES) if (covers(range, media.contentType)) return media;
  }
  return BY_NAME.json;
}

/** Ranges with q=0 are refusals, not preferences: left out. */
function parseAccept(accept: string): AcceptRange[] {
  const ranges: AcceptRange[] = [];
  for (const part of accept.split(',')) {
    const [range = '', ...params] = part.split(';');
    const slash = range.indexOf('/');
    if (slash < 0) continue;
    let q = 1;
    for (const param of params) {
      const [name, value] = param.split('=');
      if (name?.trim().toLowerCase() === 'q' && value !== undefined) {
        const parsed = Number(value.trim());
        q = Number.isFinite(parsed) ? Math.min(Math.max(parsed, 0), 1) : 0;
      }
    }
    if (q > 0) ranges.push({ type: range.slice(0, slash).trim().toLowerCase(), subtype: range.slice(slash + 1).trim().toLowerCase(), q });
  }
  return ranges;
}

/** Higher q first, then exact before wildcard; Array.prototype.sort is stable, so the client's order breaks the remaining ties. */
function byPreference(a: AcceptRange, b: AcceptRange): number {
  return b.q - a.q || wildcards(a) - wildcards(b);
}

function wildcards(range: AcceptRange): number {
  return (range.type === '*' ? 1 : 0) + (range.subtype === '*' ? 1 : 0);
}

function covers(range: AcceptRange, contentType: string): boolean {
  if (range.type === '*') return true;
  const slash = contentType.indexOf('/');
  return range.type === contentType.slice(0, slash) && (range.subtype === '*' || range.subtype === contentType.slice(slash + 1));
}

export function renderErrorBody(format: ErrorFormat, code: string, message: string): string {
  switch (format) {
    case 'json':
      return JSON.stringify({ error: { code, message } });
    case 'xml':
      return `<?xml version="1.0" encoding="UTF-8"?><response><error><code>${escapeMarkup(code)}</code><message>${escapeMarkup(message)}</message></error></response>`;
    case 'csv':
      return `Error Code,Error Message\n${csvField(code)},${csvField(message)}\n`;
    case 'html':
      return `<html><body><h1>${escapeMarkup(code)}</h1><p>${escapeMarkup(message)}</p></body></html>`;
  }
}

const MARKUP_SPECIAL = /[&<>"']/g;
const MARKUP_ENTITIES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for HTML and XML alike. */
export function escapeMarkup(text: string): string {
  return text.replace(MARKUP_SPECIAL, (char) => MARKUP_ENTITIES[char]!);
}

function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? csvQuoted(value) : value;
}

/** A CSV field in double quotes, its own quotes doubled. */
export function csvQuoted(value: string): string {
  return `"${value.replace(/"/g, '""')}"`;
}
