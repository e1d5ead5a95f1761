// A real app (real config loader, SQLite in a temp dir, every plugin), not
// listening: tests drive it with inject().
import type { FastifyInstance } from 'fastify';
import { createContext, type AppContext, type ContextOptions } from '../../src/context.js';
import { buildServer } from '../../src/server.js';
import { testConfig } from './config.js';

export interface InjectedApp {
  readonly app: FastifyInstance;
  readonly context: AppContext;
  close(): Promise<void>;
}

export async function startInjectedApp(overrides: Record<string, unknown> = {}, options: ContextOptions = {}): Promise<InjectedApp> {
  const context = createContext(testConfig(overrides), options);
  const app = await buildServer(context).catch((error: unknown) => {
    context.close();
    throw error;
  });
  await app.ready();
  return {
    app,
    context,
    async close() {
      await app.close();
      context.close();
    },
  };
}
