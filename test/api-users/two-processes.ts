// Two contexts on one store, as a running gateway and a CLI command are: each
// its own SQLite connection, so one's writes reach the other only through
// the store. Closed after each test.
import { afterEach } from 'vitest';
import { createContext, type AppContext } from '../../src/context.js';
import { testConfig } from '../helpers/config.js';

const open: AppContext[] = [];
afterEach(() => {
  for (const context of open.splice(0)) context.close();
});

export function twoProcesses(): { gateway: AppContext; cli: AppContext } {
  const config = testConfig();
  const gateway = createContext(config);
  const cli = createContext(config);
  open.push(gateway, cli);
  return { gateway, cli };
}
