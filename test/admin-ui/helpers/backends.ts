// A backend as the admin API takes one: `fields` over a minimal valid backend,
// parsed by the admin API's own parser and saved as a draft.
import type { ApiBackend } from '../../../src/api-backends/model.js';
import { parseApiBackend } from '../../../src/api-backends/validate.js';
import type { AppContext } from '../../../src/context.js';

export function draftParsed(context: AppContext, fields: Record<string, unknown>): ApiBackend {
  const parsed = parseApiBackend({ frontend_host: 'api.example.com', backend_host: 'example.com', servers: [{ host: '10.0.0.1', port: 80 }], ...fields });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  return context.backends.create(parsed.value, 'test');
}
