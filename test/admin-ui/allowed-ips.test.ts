import { afterEach, beforeEach, expect, it } from 'vitest';
import { startSignedIn, textOf, type AdminApp, type AdminClient } from './helpers/admin-client.js';

let running: AdminApp;
let client: AdminClient;
beforeEach(async () => {
  ({ running, client } = await startSignedIn());
});
afterEach(() => running.close());

it('shows a bad Allowed IP Addresses entry next to the field and saves nothing', async () => {
  await client.get('/admin/apis/new');
  const response = await client.post('/admin/apis', { name: 'Weather', 'settings[allowed_ips]': '10.0.0.0/8\nlocalhost' });
  expect(response.statusCode).toBe(422);
  expect(textOf(response.body)).toContain('Global Request Settings › Allowed IP Addresses contains "localhost", which is not an IP address or CIDR range');
  expect(response.body).toMatch(/<textarea id="f-settings-allowed_ips"[^>]*aria-invalid="true"[^>]*>10\.0\.0\.0\/8\nlocalhost<\/textarea>/);
  expect(running.context.backends.list()).toHaveLength(0);
});
