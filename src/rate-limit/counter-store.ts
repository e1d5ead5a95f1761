// Where the limiter keeps its counts. The in-memory store serves one process;
// a shared store (Redis, for several gateway nodes) implements the same two
// operations, answering with promises, and the limiter and its callers stay
// as they are.

export type Awaitable<T> = T | Promise<T>;

export interface CounterStore {
  /** The count under `key` (0 if none); `expiresAt` is the one it was incremented with. */
  get(key: string, expiresAt: number): Awaitable<number>;
  /** Adds one to the count under `key`, which may be forgotten from `expiresAt` (ms since the epoch); answers the new count. */
  increment(key: string, expiresAt: number): Awaitable<number>;
}
