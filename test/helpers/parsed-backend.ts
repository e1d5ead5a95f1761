// A backend as the admin API parses it, with the bookkeeping a stored one
// has, for tests of what is worked out from backends (diffs, YAML).
import type { ApiBackend } from '../../src/api-backends/model.js';
import { parseApiBackend } from '../../src/api-backends/validate.js';

/** `fields` over a valid backend on api.example.com's /diffed/. */
export function parsedBackend(fields: Record<string, unknown>): ApiBackend {
  const parsed = parseApiBackend({
    name: 'Diffed',
    frontend_host: 'api.example.com',
    backend_host: 'example.com',
    servers: [{ host: '10.0.0.1', port: 80 }],
    url_matches: [{ frontend_prefix: '/diffed/', backend_prefix: '/' }],
    ...fields,
  });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  const at = '2026-01-01T00:00:00.000Z';
  return { ...parsed.value, id: 'diffed', sort_order: 0, created_at: at, updated_at: at, created_by: null, updated_by: null };
}
