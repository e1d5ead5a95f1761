// A backend's request `headers` whose value holds "{{" are Mustache templates
// rendered for each request, as API Umbrella renders them (with lustache):
// over `headers`, the request's headers by lowercase name, `{{name}}`
// HTML-escaped as lustache escapes (& < > " ' /), `{{{name}}}` and
// `{{&name}}` as they are. A header that renders empty is not sent. The
// templates are parsed at publish; the view is built once for a request that
// has any, and never for one that has none.
import type { IncomingHttpHeaders } from 'node:http';
import Mustache from 'mustache';
import type { HeaderSetting } from '../api-backends/model.js';
import { isHeaderValue } from '../lib/header-value.js';

/** Whether a header value is rendered as a template (API Umbrella's test: it contains "{{"). */
export function isTemplate(value: string): boolean {
  return value.includes('{{');
}

/**
 * Why a request header value cannot be rendered (an unclosed tag or section,
 * say), as the admin API words a 422; null for a value that can be, or that
 * is no template.
 */
export function templateProblem(value: string): string | null {
  if (!isTemplate(value)) return null;
  try {
    // A writer of its own: a refused template stays out of Mustache's shared cache.
    new Mustache.Writer().parse(value);
    return null;
  } catch (error) {
    return `is not a valid template (${(error as Error).message.split('\n')[0]})`;
  }
}

/** What a template may read of the request (the Exchange): its headers, and what the gateway changed of them before. */
export interface TemplatedRequest {
  readonly headers: IncomingHttpHeaders;
  readonly apiKey: string | null;
  readonly user: { readonly id: string; readonly roles: readonly string[] } | null;
  readonly keyInAuthorization: boolean;
  /** The Cookie header as the upstream gets it; null: none. */
  readonly upstreamCookie: string | null;
}

interface HeaderTemplate {
  readonly key: string;
  readonly source: string;
  readonly tokens: string[][];
}

/** lustache escapes these five characters and "/", not "`" and "=" as mustache.js would. */
const LUSTACHE_ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '/': '&#x2F;' };
const AS_LUSTACHE = { escape: (value: unknown): string => String(value).replace(/[&<>"'/]/g, (char) => LUSTACHE_ESCAPES[char]!) };
/** Renders parsed tokens: it keeps no cache of its own. */
const writer = new Mustache.Writer();

/** A settings' templated headers, ready to render. */
export class HeaderTemplates {
  private constructor(
    private readonly templates: readonly HeaderTemplate[],
    /** Fixed headers listed before the first template: API Umbrella had set them when it read the request's headers. */
    private readonly setBefore: readonly HeaderSetting[],
    /** pass_api_key_header: API Umbrella had set (or cleared) X-Api-Key by then. */
    private readonly passesApiKey: boolean,
  ) {}

  /**
   * The headers that are no templates, and the templates (null when there
   * are none). A template that cannot be parsed (stored before saving checked
   * them) is left out: API Umbrella sends no header when rendering fails.
   */
  static split(headers: readonly HeaderSetting[], passApiKeyHeader: boolean): { fixed: readonly HeaderSetting[]; templates: HeaderTemplates | null } {
    const first = headers.findIndex((header) => isTemplate(header.value));
    if (first < 0) return { fixed: headers, templates: null };
    const templates: HeaderTemplate[] = [];
    for (const { key, value } of headers) {
      if (!isTemplate(value)) continue;
      try {
        templates.push({ key, source: value, tokens: new Mustache.Writer().parse(value) as string[][] });
      } catch {
        // Left out, as its rendering would fail.
      }
    }
    const fixed = headers.filter((header) => !isTemplate(header.value));
    const setBefore = headers.slice(0, first);
    return { fixed, templates: templates.length === 0 ? null : new HeaderTemplates(templates, setBefore, passApiKeyHeader) };
  }

  /** Appends each rendered header that is not empty to a flat [name, value, …] list. */
  addTo(out: string[], request: TemplatedRequest): void {
    const context = new Mustache.Context(viewOf(request, this.setBefore, this.passesApiKey));
    for (const { key, source, tokens } of this.templates) {
      let value: string;
      try {
        value = writer.renderTokens(tokens, context, undefined, source, AS_LUSTACHE);
      } catch {
        continue;
      }
      // Rendered from the client's own header values, it can carry only what they could; checked all the same, as undici would refuse the whole request.
      if (value !== '' && isHeaderValue(value)) out.push(key, value);
    }
  }
}

type HeadersView = Record<string, string>;

/**
 * `{headers}`: the client's headers as API Umbrella read them when it
 * rendered, after it had set (or removed) X-Api-Key, X-Api-User-Id,
 * X-Api-Roles, the Authorization that carried the key and the fixed headers
 * listed first; without headers whose names hold "_" (nginx ignores those),
 * and with the Cookie header as the backend gets it (Parasol's own cookies
 * and strip_cookies out: a template cannot hand them on). Objects without a
 * prototype, so that {{headers.constructor}} is just an unknown name.
 */
function viewOf(request: TemplatedRequest, setBefore: readonly HeaderSetting[], passesApiKey: boolean): { headers: HeadersView } {
  const headers = Object.create(null) as HeadersView;
  const client = request.headers;
  for (const name in client) {
    if (name.includes('_')) continue;
    const value = client[name]!;
    headers[name] = typeof value === 'string' ? value : value.join(', ');
  }
  delete headers['x-api-key'];
  if (passesApiKey && request.apiKey !== null) headers['x-api-key'] = request.apiKey;
  delete headers['x-api-user-id'];
  delete headers['x-api-roles'];
  const { user } = request;
  if (user !== null) {
    headers['x-api-user-id'] = user.id;
    if (user.roles.length > 0) headers['x-api-roles'] = user.roles.join(',');
  }
  if (request.keyInAuthorization) delete headers.authorization;
  if (request.upstreamCookie === null) delete headers.cookie;
  else headers.cookie = request.upstreamCookie;
  for (const { key, value } of setBefore) headers[key.toLowerCase()] = value;
  const view = Object.create(null) as { headers: HeadersView };
  view.headers = headers;
  return view;
}
