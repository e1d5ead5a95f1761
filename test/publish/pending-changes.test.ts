// The pending-changes diff compares what serves requests: not a backend's
// bookkeeping, nor its embedded records' ids (API Umbrella's diff leaves them
// out too), but everything else, whatever its name.
import { describe, expect, it } from 'vitest';
import type { ApiBackend } from '../../src/api-backends/model.js';
import { canonicalJson, pendingChanges } from '../../src/publish/pending-changes.js';
import { parsedBackend } from '../helpers/parsed-backend.js';

const NOW = '2026-01-01T00:00:00.000Z';

function backend(settings: Record<string, unknown> = {}): ApiBackend {
  return parsedBackend({
    settings: { headers: [{ key: 'X-A', value: '1' }], rate_limits: [{ duration: 1000, limit_by: 'ip', limit: 5 }], ...settings },
    sub_settings: [{ http_method: 'any', regex: '^/sub', settings: { default_response_headers: [{ key: 'X-B', value: '2' }] } }],
    rewrites: [{ matcher_type: 'route', http_method: 'any', frontend_matcher: '/a', backend_replacement: '/1' }],
  });
}

const modeOf = (draft: ApiBackend, live: ApiBackend) => Object.entries(pendingChanges([draft], [live], NOW)).find(([, changes]) => changes.length > 0)![0];

describe('pendingChanges', () => {
  it('finds a backend identical to its live copy when only its embedded records got other ids', () => {
    const live = backend();
    const draft = backend();
    expect(draft.servers[0]!.id).not.toBe(live.servers[0]!.id);
    expect(modeOf(draft, live)).toBe('identical');
    expect(canonicalJson(draft)).not.toContain(draft.settings.headers[0]!.id);
  });

  it('sees a change to a field of error data named like bookkeeping, "id" or "created_at"', () => {
    const live = backend({ error_data: { api_key_missing: { id: 'one', created_at: 'then' } } });
    expect(modeOf(backend({ error_data: { api_key_missing: { id: 'two', created_at: 'then' } } }), live)).toBe('modified');
    expect(modeOf(backend({ error_data: { api_key_missing: { id: 'one', created_at: 'now' } } }), live)).toBe('modified');
    expect(modeOf(backend({ error_data: { api_key_missing: { id: 'one', created_at: 'then' } } }), live)).toBe('identical');
  });

  it('leaves out the backend\'s own bookkeeping', () => {
    const live = backend();
    expect(modeOf({ ...live, updated_at: '2026-02-01T00:00:00.000Z', updated_by: 'someone' }, live)).toBe('identical');
  });
});
