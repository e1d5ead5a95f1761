// The secret_key file deleted while Parasol runs (a cleanup of data_dir) is
// written back from the running process: the next start would otherwise
// refuse a store whose keys were made with it.
import { readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createContext } from '../../src/context.js';
import { capturingLogger } from '../helpers/capturing-logger.js';
import { testConfig } from '../helpers/config.js';
import { apiUserInput } from '../helpers/users.js';

describe('the secret_key file', () => {
  it('is written back, as it was and its owner\'s alone, when it goes while Parasol runs, and said so', async () => {
    const config = testConfig();
    const { logger, nextLine } = capturingLogger();
    const running = createContext(config, { logger });
    try {
      running.users.create(apiUserInput(), 'test');
      const file = join(config.data_dir, 'secret_key');
      const secret = readFileSync(file, 'utf8');
      rmSync(file);
      const line = await nextLine('the secret_key file was gone; written back from the running process (back it up with the store)');
      expect(line).toMatchObject({ level: 40, file });
      expect(readFileSync(file, 'utf8')).toBe(secret);
      expect(statSync(file).mode & 0o777).toBe(0o600);
    } finally {
      running.close();
    }
    // And the next start takes the store.
    createContext(config).close();
  });
});
