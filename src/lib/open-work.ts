// What one app still serves: requests in flight, and WebSocket tunnels (an
// upgrade's exchange lasts as long as its connection). A reload retires the
// old app only once it serves nothing, so a config change cuts nothing off.
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { whenResponseEnds } from './response-end.js';

export class OpenWork {
  private open = 0;
  /** Those waiting for idle: a retirement, then the app's own close (live-app.ts). */
  private readonly waiting = new Set<() => void>();

  begin(): void {
    this.open++;
  }

  /** Counts a request until its response is over (response-end.ts). */
  track(response: ServerResponse, connection: Socket): void {
    this.begin();
    whenResponseEnds(response, connection, this.end);
  }

  /** One function for every request: a listener made per request would be an allocation on the proxy's path. */
  readonly end = (): void => {
    this.open--;
    if (this.open === 0) for (const idle of this.waiting) idle();
  };

  /** Resolves true once nothing is open, false when timeoutMs passes first. */
  idle(timeoutMs: number): Promise<boolean> {
    if (this.open === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const settle = (idle: boolean): void => {
        clearTimeout(timer);
        this.waiting.delete(whenIdle);
        resolve(idle);
      };
      const whenIdle = (): void => settle(true);
      const timer = setTimeout(() => settle(false), timeoutMs);
      this.waiting.add(whenIdle);
    });
  }
}
