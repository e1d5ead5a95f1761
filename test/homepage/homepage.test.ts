// The default homepage at "/", and an operator's own file in its place.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/load.js';
import { createContext } from '../../src/context.js';
import { buildServer } from '../../src/server.js';
import { tempDir, testConfig } from '../helpers/config.js';
import { startSignupApp, type SignupApp } from '../signup/signup-app.js';

let running: SignupApp | null = null;
afterEach(async () => {
  await running?.close();
  running = null;
});

describe('the default homepage', () => {
  it('names the site, says what it is, links signup and the admin, and shows the three ways to pass a key', async () => {
    running = await startSignupApp({ site_name: 'Weather <API>' });
    const response = await running.app.inject({ method: 'GET', url: '/', headers: { host: 'gw.example:8080' } });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.body).toContain('<h1>Weather &lt;API&gt;</h1>');
    expect(response.body).toContain('This is the API gateway of Weather &lt;API&gt;.');
    expect(response.body).toContain('<a href="/signup/" role="button">Sign up for an API key</a>');
    expect(response.body).toContain('<a href="/admin/">');
    expect(response.body).toContain('value="curl -H &#39;X-Api-Key: YOUR_API_KEY&#39; &#39;http://gw.example:8080/your/api/path&#39;"');
    expect(response.body).toContain('value="curl &#39;http://gw.example:8080/your/api/path?api_key=YOUR_API_KEY&#39;"');
    expect(response.body).toContain('value="curl -u &#39;YOUR_API_KEY:&#39; &#39;http://gw.example:8080/your/api/path&#39;"');
    expect(response.body).toContain('data-copy="example-header"');
    expect(response.body).toContain('your key is shown to you right away.');
  });

  it('uses the admin look: the shared layout and stylesheets', async () => {
    running = await startSignupApp();
    const response = await running.app.inject({ method: 'GET', url: '/' });
    const link = /<link rel="stylesheet" href="(\/assets\/css\/parasol\.css\?v=[\w-]{10})">/.exec(response.body);
    expect(link).not.toBeNull();
    const css = await running.app.inject({ method: 'GET', url: link![1]! });
    expect(css.statusCode).toBe(200);
  });

  it('sends the security headers the other pages get', async () => {
    running = await startSignupApp();
    const response = await running.app.inject({ method: 'GET', url: '/' });
    expect(response.headers['content-security-policy']).toContain("script-src 'self'");
    expect(response.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(response.headers['x-frame-options']).toBe('DENY');
    expect(response.headers['x-content-type-options']).toBe('nosniff');
  });

  it('answers HEAD without a body', async () => {
    running = await startSignupApp();
    // On a real connection: app.inject() shows whatever body its light-my-request version keeps for HEAD.
    const base = await running.app.listen({ port: 0, host: '127.0.0.1' });
    const response = await request(`${base}/`, { method: 'HEAD' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(await response.body.text()).toBe('');
  });

  it('uses public_url in the examples when it is set', async () => {
    running = await startSignupApp({ public_url: 'https://api.example.com/' });
    const response = await running.app.inject({ method: 'GET', url: '/', headers: { host: 'evil.example' } });
    expect(response.body).toContain('https://api.example.com/your/api/path');
    expect(response.body).not.toContain('evil.example');
  });
});

describe('homepage.file', () => {
  it('serves the operator file instead, as it is', async () => {
    const file = join(tempDir(), 'home.html');
    writeFileSync(file, '<!doctype html><title>Ours</title><script>console.log(1)</script><h1>Our own homepage</h1>');
    running = await startSignupApp({ homepage: { file } });
    const response = await running.app.inject({ method: 'GET', url: '/' });
    expect(response.statusCode).toBe(200);
    expect(response.body).toBe('<!doctype html><title>Ours</title><script>console.log(1)</script><h1>Our own homepage</h1>');
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers['content-security-policy']).toBeUndefined();
  });

  it('stops start-up with a clear message when the file cannot be read', async () => {
    const missing = join(tempDir(), 'missing.html');
    await expect(startSignupApp({ homepage: { file: missing } })).rejects.toThrow(ConfigError);
    await expect(startSignupApp({ homepage: { file: missing } })).rejects.toThrow(`homepage.file: cannot read ${missing}: no such file (ENOENT)`);
  });

  it('gone since the config was checked, stops start-up with the same words, carrying the key the command line names the source of', async () => {
    const file = join(tempDir(), 'home.html');
    writeFileSync(file, '<h1>Ours</h1>');
    const context = createContext(testConfig({ homepage: { file } }));
    try {
      rmSync(file);
      await expect(buildServer(context)).rejects.toMatchObject({ message: `homepage.file: cannot read ${file}: no such file (ENOENT)`, keys: ['homepage.file'] });
    } finally {
      context.close();
    }
  });
});
