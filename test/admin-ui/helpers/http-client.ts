// A browser's part over a real socket (fetch): keeps the cookies a running
// Parasol sets, sends forms urlencoded with the CSRF token of the last page
// it loaded, follows no redirect by itself, and may come from another client
// IP (X-Forwarded-For, which Parasol believes from loopback).

export interface Page {
  readonly status: number;
  readonly headers: Headers;
  readonly body: string;
  /** The Location of a redirect, else null. */
  readonly location: string | null;
}

export class HttpAdminClient {
  /** Cookies as the server set them (still encoded). */
  readonly cookies = new Map<string, string>();
  csrfToken = '';

  constructor(
    private readonly baseUrl: string,
    private readonly clientIp: string | null = null,
  ) {}

  /** A path on the server, or a whole URL (a link from a mail). */
  async get(target: string): Promise<Page> {
    const page = await this.send('GET', target);
    const token = /name="_csrf" value="([^"]+)"/.exec(page.body);
    if (token !== null) this.csrfToken = token[1]!;
    return page;
  }

  /** Posts a form with the last page's CSRF token (pass _csrf yourself to override it, '' for none). */
  post(target: string, fields: Record<string, string> = {}): Promise<Page> {
    const body = new URLSearchParams();
    if (!('_csrf' in fields)) body.append('_csrf', this.csrfToken);
    for (const [name, value] of Object.entries(fields)) if (!(name === '_csrf' && value === '')) body.append(name, value);
    return this.send('POST', target, body.toString());
  }

  /** Follows a redirect as a browser does after a form. */
  follow(page: Page): Promise<Page> {
    if (page.location === null) throw new Error(`not a redirect: ${page.status}`);
    return this.get(page.location);
  }

  async signIn(email: string, password: string): Promise<Page> {
    await this.get('/admin/login');
    return this.post('/admin/login', { email, password });
  }

  private async send(method: 'GET' | 'POST', target: string, body?: string): Promise<Page> {
    const headers: Record<string, string> = {};
    if (this.cookies.size > 0) headers.cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    if (body !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded';
    if (this.clientIp !== null) headers['x-forwarded-for'] = this.clientIp;
    const response = await fetch(new URL(target, this.baseUrl), { method, headers, body, redirect: 'manual' });
    this.remember(response.headers.getSetCookie());
    return { status: response.status, headers: response.headers, body: await response.text(), location: response.headers.get('location') };
  }

  private remember(setCookies: string[]): void {
    for (const line of setCookies) {
      const [pair, ...attributes] = line.split(';').map((part) => part.trim());
      const at = pair!.indexOf('=');
      const [name, value] = [pair!.slice(0, at), pair!.slice(at + 1)];
      const expired =
        value === '' ||
        attributes.some((attribute) => /^max-age=0$/i.test(attribute) || (/^expires=/i.test(attribute) && Date.parse(attribute.slice(8)) <= Date.now()));
      if (expired) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
}
