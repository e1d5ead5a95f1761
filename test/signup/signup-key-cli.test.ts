// `parasol users create-signup-key`, run as an operator runs it, makes a key
// that the JSON signup API accepts for creating keys.
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { KEY_CREATOR_ROLE } from '../../src/api-users/model.js';
import { loadConfig } from '../../src/config/load.js';
import { createContext } from '../../src/context.js';
import { packagePath } from '../../src/lib/package-path.js';
import { buildServer } from '../../src/server.js';
import { tempDir } from '../helpers/config.js';
import { VALID_SIGNUP } from './signup-app.js';

const run = promisify(execFile);

it('creates a key-creator key that the JSON signup API accepts', async () => {
  const dir = tempDir();
  const configPath = join(dir, 'parasol.yml');
  writeFileSync(configPath, `data_dir: ${join(dir, 'data')}\nlog_level: warn\n`);
  const { stdout } = await run(process.execPath, ['--import', 'tsx', packagePath('src', 'main.ts'), '--config', configPath, 'users', 'create-signup-key', '--email', 'embed@example.com'], {
    env: { PATH: process.env.PATH ?? '' },
  });
  const printed = JSON.parse(stdout) as { email: string; roles: string[]; api_key: string };
  expect(printed).toMatchObject({ email: 'embed@example.com', roles: [KEY_CREATOR_ROLE] });
  expect(printed.api_key).toMatch(/^[A-Za-z0-9]{40}$/);

  const context = createContext(loadConfig({ configPath, env: {} }).config);
  const app = await buildServer(context);
  try {
    const response = await app.inject({ method: 'POST', url: '/api-umbrella/v1/users', headers: { 'x-api-key': printed.api_key }, payload: { user: VALID_SIGNUP } });
    expect(response.statusCode).toBe(201);
    expect(response.json().user.api_key).toMatch(/^[A-Za-z0-9]{40}$/);
  } finally {
    await app.close();
    context.close();
  }
});
