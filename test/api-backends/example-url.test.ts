// Which published backend an example request with a key calls: a pure function, no server.
import { describe, expect, it } from 'vitest';
import { exampleApi } from '../../src/api-backends/example-url.js';
import type { ApiBackend } from '../../src/api-backends/model.js';
import { backendConfig } from '../helpers/scoped-backends.js';

const BASE = 'http://127.0.0.1:8080';

function published(...apis: ApiBackend[]) {
  return { version: 1, apis };
}

function backend(name: string, prefix: string, options: { roles?: string[]; host?: string; keyless?: boolean } = {}): ApiBackend {
  const config = backendConfig(name, [prefix], options.roles ?? [], options.host ?? '*');
  return {
    ...config,
    settings: { ...config.settings, disable_api_key: options.keyless ?? false },
    id: name,
    sort_order: 0,
    created_at: '',
    updated_at: '',
    created_by: null,
    updated_by: null,
  };
}

describe('exampleApi', () => {
  it("calls the first backend that needs a key and no role beyond the holder's", () => {
    const config = published(backend('Open', '/open/', { keyless: true }), backend('Partner', '/partner/', { roles: ['partner'] }), backend('Echo', '/echo/'));
    expect(exampleApi(BASE, config)).toEqual({ url: new URL(`${BASE}/echo/`), backendName: 'Echo' });
    expect(exampleApi(BASE, config, ['partner', 'other'])).toEqual({ url: new URL(`${BASE}/partner/`), backendName: 'Partner' });
  });

  it("uses the backend's own host, with its port when it names one", () => {
    expect(exampleApi(BASE, published(backend('Named', '/a/', { host: 'api.example.com' })))!.url.href).toBe('http://api.example.com:8080/a/');
    expect(exampleApi(BASE, published(backend('Port', '/a/', { host: 'api.example.com:8443' })))!.url.href).toBe('http://api.example.com:8443/a/');
  });

  it('is null when no published backend takes the key', () => {
    expect(exampleApi(BASE, published())).toBeNull();
    expect(exampleApi(BASE, published(backend('Partner', '/partner/', { roles: ['partner'] })))).toBeNull();
  });
});
