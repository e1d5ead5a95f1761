// The signup tests' app (see helpers/app.ts) and the steps of filling in the signup form.
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { EchoUpstream } from '../helpers/echo-upstream.js';

export { startInjectedApp as startSignupApp, type InjectedApp as SignupApp } from '../helpers/app.js';

export const VALID_SIGNUP = {
  first_name: 'Ada',
  last_name: 'Lovelace',
  email: 'ada@example.com',
  website: 'https://ada.example.com',
  use_description: 'Analytical engines',
  terms_and_conditions: '1',
} as const;

export interface FormSession {
  readonly cookie: string;
  readonly csrfToken: string;
}

/** GET /signup/ as a browser does: the CSRF cookie and the form's token. */
export async function openSignupForm(app: FastifyInstance): Promise<FormSession> {
  const response = await app.inject({ method: 'GET', url: '/signup/' });
  return { cookie: cookieFrom(response), csrfToken: csrfTokenIn(response.body) };
}

export async function submitSignup(app: FastifyInstance, fields: Record<string, string>, options: { remoteAddress?: string } = {}): Promise<LightMyRequestResponse> {
  const session = await openSignupForm(app);
  return app.inject({
    method: 'POST',
    url: '/signup/',
    headers: { cookie: session.cookie },
    payload: { _csrf: session.csrfToken, ...fields },
    remoteAddress: options.remoteAddress ?? '127.0.0.1',
  });
}

/** The key shown on the success page, or null. */
export function keyOnPage(html: string): string | null {
  return /<input id="api-key"[^>]*value="([^"]*)"/.exec(html)?.[1] ?? null;
}

export function csrfTokenIn(html: string): string {
  const token = /name="_csrf" value="([^"]+)"/.exec(html)?.[1];
  if (token === undefined) throw new Error('no CSRF token in the page');
  return token;
}

function cookieFrom(response: LightMyRequestResponse): string {
  const header = response.headers['set-cookie'];
  const first = Array.isArray(header) ? header[0] : header;
  if (first === undefined) throw new Error('no cookie set');
  return first.split(';')[0]!;
}

/** An API backend, on any host unless `extra` says otherwise, that forwards `prefix` to the echo upstream. */
export function echoBackend(upstream: EchoUpstream, name: string, prefix: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name,
    frontend_host: '*',
    backend_host: 'echo.example.test',
    servers: [{ host: '127.0.0.1', port: upstream.port }],
    url_matches: [{ frontend_prefix: prefix, backend_prefix: '/' }],
    ...extra,
  };
}
