// The backend form's "Default" choices for HTTPS Requirements and Rate Limit
// say what the config's default_api_backend_settings give such a backend,
// not a fixed default; sub-settings inherit from the global settings instead.
import { afterEach, describe, expect, it } from 'vitest';
import { AdminClient, createAdmin, startAdminApp, type AdminApp } from './helpers/admin-client.js';

let running: AdminApp | undefined;

afterEach(async () => {
  await running?.close();
  running = undefined;
});

/** The new-backend page under a config with these default_api_backend_settings. */
async function newBackendPage(defaults: Record<string, unknown> | undefined): Promise<string> {
  running = await startAdminApp(defaults === undefined ? {} : { default_api_backend_settings: defaults });
  await createAdmin(running.context);
  const client = new AdminClient(running.app);
  await client.signIn();
  const page = await client.get('/admin/apis/new');
  expect(page.statusCode).toBe(200);
  return page.body;
}

/** The label of the empty option of the select named `name`. */
function emptyChoiceOf(html: string, name: string): string {
  const select = new RegExp(`<select [^>]*name="${name.replace(/[[\]]/g, '\\$&')}"[^>]*>([\\s\\S]*?)</select>`).exec(html);
  if (select === null) throw new Error(`no select ${name}`);
  return /<option value=""[^>]*>([^<]*)<\/option>/.exec(select[1]!)![1]!;
}

const GLOBAL_HTTPS = 'settings[require_https]';
const GLOBAL_RATE_LIMIT = 'settings[rate_limit_mode]';

describe('the backend form\'s "Default" choices', () => {
  it('say HTTP and HTTPS and the default rate limits under the built-in defaults', async () => {
    const page = await newBackendPage(undefined);
    expect(emptyChoiceOf(page, GLOBAL_HTTPS)).toBe('Default — HTTP and HTTPS');
    expect(emptyChoiceOf(page, GLOBAL_RATE_LIMIT)).toBe('Default rate limits');
  });

  it("say HTTPS only and unlimited where the config makes those the defaults (API Umbrella's)", async () => {
    const page = await newBackendPage({ require_https: 'required_return_error', rate_limit_mode: 'unlimited' });
    expect(emptyChoiceOf(page, GLOBAL_HTTPS)).toBe('Default — HTTPS only');
    expect(emptyChoiceOf(page, GLOBAL_RATE_LIMIT)).toBe('Default — unlimited requests');
  });

  it('say unlimited where the config lists no default rate limits', async () => {
    const page = await newBackendPage({ require_https: 'optional', rate_limits: [] });
    expect(emptyChoiceOf(page, GLOBAL_HTTPS)).toBe('Default — HTTP and HTTPS');
    expect(emptyChoiceOf(page, GLOBAL_RATE_LIMIT)).toBe('Default — unlimited requests');
  });

  it('leave a sub-setting inheriting from the global settings', async () => {
    const page = await newBackendPage({ require_https: 'required_return_error', rate_limit_mode: 'unlimited' });
    expect(emptyChoiceOf(page, 'sub_settings[__SUB__][settings][require_https]')).toBe('Inherit from Global Request Settings');
    expect(emptyChoiceOf(page, 'sub_settings[__SUB__][settings][rate_limit_mode]')).toBe('Inherit from Global Request Settings');
  });
});
