// `parasol health` asks as Parasol, not as "node": a ban on fetch's agent (a
// scraper's) must not make a healthy gateway look down.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkHealth } from '../../src/cli/health-check.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({ ban: { user_agents: ['~*^node$'] } });
});
afterAll(() => gw.stop());

describe('parasol health', () => {
  it("finds a gateway that bans node's agent healthy", async () => {
    const refused = await fetch(`${gw.url}/api-umbrella/v1/health`);
    expect(refused.status).toBe(403);
    expect(await checkHealth(new URL(`${gw.url}/api-umbrella/v1/health`), null)).toMatchObject({ healthy: true, problem: null });
  });
});
