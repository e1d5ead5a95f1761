// What the log says once at start: here, the first admin account still open
// to whoever opens /admin/ first.
import { describe, expect, it } from 'vitest';
import { createContext } from '../src/context.js';
import { warnOfNoAdminYet } from '../src/start-up-warnings.js';
import { capturingLogger } from './helpers/capturing-logger.js';
import { testConfig } from './helpers/config.js';

describe('the warning at start about the first admin account', () => {
  it('says where to create it while there is no admin, and nothing once there is one', async () => {
    const fresh = createContext(testConfig());
    try {
      const { logger, lines } = capturingLogger();
      warnOfNoAdminYet({ admins: fresh.admins, logger }, 'http://127.0.0.1:8080');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({ level: 40, setup_url: 'http://127.0.0.1:8080/admin/' });
      expect(String(lines[0]!.msg)).toMatch(/no admin account yet: whoever opens \/admin\/ first creates the superuser.*parasol admins create/);
      await fresh.admins.create({ email: 'root@example.com', password: 'correct horse battery staple', superuser: true });
      warnOfNoAdminYet({ admins: fresh.admins, logger }, 'http://127.0.0.1:8080');
      expect(lines).toHaveLength(1);
    } finally {
      fresh.close();
    }
  });
});
