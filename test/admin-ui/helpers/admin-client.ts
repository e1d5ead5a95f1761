// A small cookie-keeping client over app.inject() for the admin's pages: it
// sends forms as a browser does (urlencoded, with the CSRF token of the last
// page it loaded) and remembers cookies across requests.
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { Admin } from '../../../src/admins/repository.js';
import type { AppContext } from '../../../src/context.js';
import { startInjectedApp, type InjectedApp } from '../../helpers/app.js';
import { expect } from 'vitest';

export const PASSWORD = 'correct horse battery staple';

export type AdminApp = InjectedApp;
export const startAdminApp = startInjectedApp;

export async function createAdmin(context: AppContext, email = 'ops@example.com', superuser = true): Promise<Admin> {
  return (await context.admins.create({ email, password: PASSWORD, superuser }))!.admin;
}

/** A fresh app with the admin ops@example.com, and a client signed in as them. */
export async function startSignedIn(): Promise<{ running: AdminApp; client: AdminClient }> {
  const running = await startAdminApp();
  await createAdmin(running.context);
  const client = new AdminClient(running.app);
  await client.signIn();
  return { running, client };
}

export class AdminClient {
  readonly cookies = new Map<string, string>();
  csrfToken = '';

  constructor(
    private readonly app: FastifyInstance,
    private readonly remoteAddress = '127.0.0.1',
  ) {}

  async get(url: string, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
    const response = await this.app.inject({ method: 'GET', url, headers: { ...headers, cookie: this.cookieHeader() }, remoteAddress: this.remoteAddress });
    this.remember(response);
    const token = /name="_csrf" value="([^"]+)"/.exec(response.body);
    if (token !== null) this.csrfToken = token[1]!;
    return response;
  }

  /** Posts a form with the last page's CSRF token (pass _csrf yourself to override it). */
  async post(url: string, fields: Record<string, string | string[]> = {}, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
    const body = new URLSearchParams();
    if (!('_csrf' in fields)) body.append('_csrf', this.csrfToken);
    for (const [name, value] of Object.entries(fields)) for (const item of [value].flat()) body.append(name, item);
    const response = await this.app.inject({
      method: 'POST',
      url,
      payload: body.toString(),
      headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded', cookie: this.cookieHeader() },
      remoteAddress: this.remoteAddress,
    });
    this.remember(response);
    return response;
  }

  /** Follows a redirect the way a browser does after a form. */
  async follow(response: LightMyRequestResponse): Promise<LightMyRequestResponse> {
    const location = response.headers.location;
    if (typeof location !== 'string') throw new Error(`not a redirect: ${response.statusCode}`);
    return this.get(location);
  }

  async signIn(email = 'ops@example.com', password = PASSWORD): Promise<LightMyRequestResponse> {
    await this.get('/admin/login');
    return this.post('/admin/login', { email, password });
  }

  cookieHeader(): string {
    // Encoded again as the server set them: a decoded "; " (in a flash message, say) would split the header.
    return [...this.cookies].map(([name, value]) => `${name}=${encodeURIComponent(value)}`).join('; ');
  }

  private remember(response: LightMyRequestResponse): void {
    for (const cookie of response.cookies as { name: string; value: string; maxAge?: number; expires?: Date }[]) {
      const expired = cookie.value === '' || cookie.maxAge === 0 || (cookie.expires !== undefined && cookie.expires.getTime() <= Date.now());
      if (expired) this.cookies.delete(cookie.name);
      else this.cookies.set(cookie.name, cookie.value);
    }
  }
}

/** The visible text of an HTML page, tags removed and entities for < > & " decoded, whitespace squeezed. */
export function textOf(html: string): string {
  return html
    .replace(/<script[\s\S]*?<\/script>/g, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;|&#34;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ');
}

/** The paths of the main menu's entries, in order. */
export function menuOf(html: string): string[] {
  const nav = /<nav class="container" aria-label="Main">([\s\S]*?)<\/nav>/.exec(html)![1]!;
  return [...nav.matchAll(/<a href="(\/admin\/[^"]*)"/g)].map((match) => match[1]!);
}

/** A list page's Previous/Next navigation. */
function pagerOf(html: string): string {
  return /<nav class="pager" aria-label="Pages">[\s\S]*?<\/nav>/.exec(html)![0];
}

/**
 * A list of two pages at `path` (with `query`, as its links keep it): on the
 * first, Previous is text and Next a link to page 2; on the last, the other
 * way round; no link to a page 0 or 3, and no link marked disabled.
 */
export async function expectTwoPagesPager(client: AdminClient, path: string, query = ''): Promise<void> {
  const link = (page: number) => `${path}?page=${page}${query === '' ? '' : `&amp;${query}`}`;
  const text = (label: string) => `<span role="button" class="secondary outline" aria-disabled="true">${label}</span>`;
  const anchor = (page: number, label: string) => `<a href="${link(page)}" role="button" class="secondary outline">${label}</a>`;
  const first = pagerOf((await client.get(query === '' ? path : `${path}?${query}`)).body);
  const last = pagerOf((await client.get(`${path}?page=2${query === '' ? '' : `&${query}`}`)).body);
  expect(first).toContain(text('Previous'));
  expect(first).toContain(anchor(2, 'Next'));
  expect(last).toContain(anchor(1, 'Previous'));
  expect(last).toContain(text('Next'));
  for (const pager of [first, last]) expect(pager).not.toMatch(/page=0|page=3|<a [^>]*aria-disabled/);
}

/** The checkbox of `value` under `name`, and whether it is checked. */
export function checkbox(html: string, name: string, value: string): 'checked' | 'unchecked' | 'absent' {
  const input = new RegExp(`<input type="checkbox"[^>]*name="${name}" value="${value}"([^>]*)>`).exec(html);
  if (input === null) return 'absent';
  return input[1]!.includes('checked') ? 'checked' : 'unchecked';
}
