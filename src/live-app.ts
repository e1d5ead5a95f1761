// The app that answers requests, and its replacement when the config is
// reloaded (SIGHUP): the next app is built and made ready beside the running
// one, takes over the listeners in one step (app-switch.ts), and the one it
// replaced is closed once it has finished what it was serving, requests and
// WebSocket tunnels alike, or after proxy.shutdown_timeout_ms. What outlives
// an app (the store, the analytics writer, the rate limiters' counts, the
// response cache) is shared (context.ts, withConfig).
import { performance } from 'node:perf_hooks';
import type { FastifyInstance } from 'fastify';
import { AppSwitch } from './app-switch.js';
import { configChange } from './config/reload-keys.js';
import type { Config } from './config/schema.js';
import { withConfig, type AppContext } from './context.js';
import type { ListeningServer } from './http-listener.js';
import { OpenWork } from './lib/open-work.js';
import { buildServer } from './server.js';

export interface ReloadOutcome {
  /** Changed keys now applied. */
  readonly applied: readonly string[];
  /** Changed keys that keep their running values until a restart (config/reload-keys.ts). */
  readonly needRestart: readonly string[];
  /** Resolves once the app it replaced has closed (at once when no app was replaced). */
  readonly retired: Promise<void>;
}

interface Generation {
  readonly app: FastifyInstance;
  readonly context: AppContext;
  readonly work: OpenWork;
  /** performance.now() when a retiring app stops waiting for what it serves; null while it serves. */
  drainUntil: number | null;
}

export class LiveApp {
  private readonly switcher: AppSwitch;
  private readonly retiring = new Set<Promise<void>>();
  /** Reloads run one after the other, each against the config the one before left. */
  private reloading: Promise<unknown> = Promise.resolve();
  private stopping = false;
  /** What ends each retiring app's wait at a stop: one each, dropped with its retirement, so none is kept for the life of the process. */
  private readonly stopWaits = new Set<() => void>();

  private constructor(private live: Generation) {
    this.switcher = new AppSwitch(live.app);
  }

  static async start(context: AppContext): Promise<LiveApp> {
    return new LiveApp(await generationOf(context));
  }

  get app(): FastifyInstance {
    return this.live.app;
  }

  get context(): AppContext {
    return this.live.context;
  }

  /** Puts the app's listeners on a listening server, and each reloaded app's after them. */
  serveOn(server: ListeningServer): void {
    this.switcher.serveOn(server);
  }

  /** Builds an app on `config` and serves with it from now on; throws (the running app stays) when it cannot be built. */
  reload(config: Config): Promise<ReloadOutcome> {
    const reloaded = this.reloading.then(() => this.replaceWith(config));
    this.reloading = reloaded.catch(() => undefined);
    return reloaded;
  }

  /**
   * For a stop: the app and any still retiring close, bounded by their drain
   * (proxy.shutdown_timeout_ms), and cut off what they still serve then as a
   * reload's retired app does (its upstream pools close: a request waiting on
   * one is answered 502). Resolves once they have; the connections are the
   * caller's to close after that (serve.ts), not before, or those answers are lost.
   */
  async close(): Promise<void> {
    this.stopping = true;
    await this.reloading;
    for (const stopWaiting of this.stopWaits) stopWaiting();
    await Promise.all([this.live.app.close(), ...this.retiring]);
    // The first app's context is the process's and closes its own; a reloaded one's mailer may be new.
    this.live.context.mailer?.close();
  }

  private async replaceWith(next: Config): Promise<ReloadOutcome> {
    if (this.stopping) throw new Error('Parasol is stopping');
    const running = this.live.context;
    const change = configChange(running.config, next);
    if (change.applied.length === 0) return { applied: [], needRestart: change.needRestart, retired: Promise.resolve() };
    const generation = await generationOf(withConfig(running, change.config));
    const previous = this.live;
    this.switcher.switchTo(generation.app);
    this.live = generation;
    if (change.config.log_level !== running.config.log_level) running.logger.level = change.config.log_level;
    const retired = this.retire(previous);
    return { applied: change.applied, needRestart: change.needRestart, retired };
  }

  private retire(generation: Generation): Promise<void> {
    const { logger, config } = generation.context;
    generation.drainUntil = performance.now() + config.proxy.shutdown_timeout_ms;
    let stopWaiting = (): void => {};
    const stopped = new Promise<void>((resolve) => (stopWaiting = resolve));
    this.stopWaits.add(stopWaiting);
    const retired = Promise.race([generation.work.idle(config.proxy.shutdown_timeout_ms), stopped])
      .then(() => generation.app.close())
      // A mailer the next app does not share (its settings changed): what waits there for a retry goes on through the new
      // settings at once (they may be the fix it waited for); without a mailer now, it is cut short, and logged.
      .then(() => {
        const { mailer } = generation.context;
        const next = this.live.context.mailer;
        if (mailer === null || mailer === next) return;
        if (next === null) mailer.close();
        else mailer.handOverTo(next);
      })
      .catch((error: unknown) => logger.error({ err: error }, 'closing the app a reload replaced failed'))
      .finally(() => {
        this.stopWaits.delete(stopWaiting);
        this.retiring.delete(retired);
      });
    this.retiring.add(retired);
    return retired;
  }
}

/** An app ready to serve; closed when it cannot be made ready. */
async function generationOf(context: AppContext): Promise<Generation> {
  const work = new OpenWork();
  const app = await buildServer(context, work);
  const generation: Generation = { app, context, work, drainUntil: null };
  // Runs once the app stops taking requests (it answers 503 from then on) and before its plugins close
  // what requests in flight use (upstream pools, the analytics reader): onClose hooks run last-added first.
  app.addHook('onClose', () => work.idle(drainLeft(generation)).then(() => undefined));
  try {
    await app.ready();
  } catch (error) {
    await app.close().catch(() => undefined);
    throw error;
  }
  return generation;
}

/** How long a closing app waits for what it serves: proxy.shutdown_timeout_ms, or what a retiring one has left of it. */
function drainLeft(generation: Generation): number {
  if (generation.drainUntil === null) return generation.context.config.proxy.shutdown_timeout_ms;
  return Math.max(0, generation.drainUntil - performance.now());
}
