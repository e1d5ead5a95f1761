// What Parasol's logger writes never holds a credential, wherever in the
// logged object it sits.
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { LOG_REDACT, redactApiKeys, withoutApiKeys } from '../../src/lib/log-redaction.js';

function logged(fields: Record<string, unknown>): Record<string, any> {
  let line = '';
  const sink = new Writable({ write: (chunk: Buffer, _encoding, done) => ((line += chunk.toString()), done()) });
  pino({ redact: LOG_REDACT }, sink).error(fields, 'something failed');
  return JSON.parse(line) as Record<string, any>;
}

describe('log redaction', () => {
  it('censors the credential headers of a request', () => {
    const headers = { 'x-api-key': 'K', 'x-admin-auth-token': 'T', authorization: 'Basic A', cookie: 'c=1', accept: 'text/html' };
    expect(logged({ req: { headers } }).req.headers).toEqual({ 'x-api-key': '[REDACTED]', 'x-admin-auth-token': '[REDACTED]', authorization: '[REDACTED]', cookie: '[REDACTED]', accept: 'text/html' });
  });

  it('censors the headers an error carries (undici and HTTP errors keep them on the error)', () => {
    const err = Object.assign(new Error('upstream failed'), { headers: { authorization: 'Bearer A', 'x-api-key': 'K', 'set-cookie': ['s=1'], 'content-type': 'text/plain' } });
    const { headers, message } = logged({ err }).err;
    expect({ headers, message }).toEqual({ headers: { authorization: '[REDACTED]', 'x-api-key': '[REDACTED]', 'set-cookie': '[REDACTED]', 'content-type': 'text/plain' }, message: 'upstream failed' });
  });

  it("keeps a logged request URL but not its api_key (Fastify's log of a failed request)", () => {
    expect(logged({ req: { method: 'GET', url: '/admin/?api_key=SECRET&x=1' } }).req.url).toBe('/admin/?api_key=[REDACTED]&x=1');
  });

  it("keeps a logged request URL but not the token of an admin's password link", () => {
    const url = '/admin/password/edit?invite=true&reset_password_token=abc_DEF-123&x=1';
    expect(logged({ req: { method: 'GET', url } }).req.url).toBe('/admin/password/edit?invite=true&reset_password_token=[REDACTED]&x=1');
    expect(logged({ reset_password_token: 'abc' }).reset_password_token).toBe('[REDACTED]');
  });

  it('keeps a logged request URL but not the key a key check names in its path', () => {
    expect(logged({ req: { method: 'GET', url: '/api-umbrella/api-users/SECRET/validate.json?x=1' } }).req.url).toBe('/api-umbrella/api-users/[REDACTED]/validate.json?x=1');
  });

  it("keeps the URL an Invalid URL error was given, but not its api_key", () => {
    let err: unknown;
    try {
      new URL('//nohost?api_key=SECRET');
    } catch (error) {
      err = error;
    }
    expect(logged({ err }).err.input).toBe('//nohost?api_key=[REDACTED]');
  });

  it('censors secrets one level down too: a user, an admin, the SMTP settings', () => {
    const line = logged({ user: { email: 'a@example.com', api_key: 'K' }, admin: { admin_auth_token: 'T', password: 'P' }, smtp: { username: 'u', password: 'P' }, config: { secret_key: 'S' } });
    expect(line).toMatchObject({ user: { email: 'a@example.com', api_key: '[REDACTED]' }, admin: { admin_auth_token: '[REDACTED]', password: '[REDACTED]' }, smtp: { username: 'u', password: '[REDACTED]' }, config: { secret_key: '[REDACTED]' } });
  });

  it('leaves a line without secrets as it was', () => {
    expect(logged({ url: 'http://127.0.0.1:8080', data_dir: '/var/lib/parasol' })).toMatchObject({ url: 'http://127.0.0.1:8080', data_dir: '/var/lib/parasol' });
  });

  it('strips every api_key parameter but keeps foo_api_key', () => {
    expect(redactApiKeys('/x?api_key=a&foo_api_key=b;API_KEY=c')).toBe('/x?api_key=[REDACTED]&foo_api_key=b;API_KEY=[REDACTED]');
  });

  it('strips the whole value up to the next "&", as the gateway reads a key: a "#" or ";" in it keeps nothing of it', () => {
    const key = 'K'.repeat(40);
    expect(redactApiKeys(`api_key=AB#${key}&x=1`)).toBe('api_key=[REDACTED]&x=1');
    expect(redactApiKeys(`x=1&api_key=${key};junk`)).toBe('x=1&api_key=[REDACTED]');
  });

  it('strips an api_key parameter in any case, percent-encoded in any character, or as an array', () => {
    expect(redactApiKeys('API_KEY=c')).toBe('API_KEY=[REDACTED]');
    for (const name of ['api%5Fkey', 'api%5fkey', '%61pi_key', '%41%50%49%5F%4B%45%59', 'api_key[]', 'api_key%5B%5D', 'api_key[0]']) {
      expect(redactApiKeys(`x=1&${name}=SECRET&y=2`), name).toBe(`x=1&${name}=[REDACTED]&y=2`);
    }
    for (const kept of ['search=api_key', 'foo_api_key=bar', 'api_key_foo=bar', 'api%5Fkeys=bar', 'q=%20api_key']) expect(redactApiKeys(kept)).toBe(kept);
  });

  it('drops the api_key parameters of a query, as API Umbrella shows a request_url, and keeps the others', () => {
    expect(withoutApiKeys('foo=bar&api_key=[REDACTED]')).toBe('foo=bar');
    expect(withoutApiKeys('API_KEY=[REDACTED]&foo=bar&api%5Fkey=[REDACTED]&api_key[]=[REDACTED]&api_key')).toBe('foo=bar');
    for (const kept of ['search=api_key', 'foo_api_key=bar', 'api_key_foo=bar', 'api%5Fkeys=bar', 'q=%20api_key', '']) expect(withoutApiKeys(kept)).toBe(kept);
  });
});
