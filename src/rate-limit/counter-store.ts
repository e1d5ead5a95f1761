// Where the limiter keeps its counts. The in-memory store serves one process;
// a shared store (Redis, for several gateway nodes) implements the same three
// operations, answering with promises, and the limiter and its callers stay
// as they are.

export type Awaitable<T> = T | Promise<T>;

/**
 * One count per window key: a counter's name and the time its window expires
 * (ms since the epoch), after which the count may be forgotten. A shared store
 * can use `${counter}@${expiresAt}` as its key and the time as the key's expiry.
 */
export interface CounterStore {
  /** The count (0 if none) of a window that has not expired yet. */
  get(counter: string, expiresAt: number): Awaitable<number>;
  /** Adds one to the count of that window; answers the new count. */
  increment(counter: string, expiresAt: number): Awaitable<number>;
  /** Drops the count of that window, as if it had never been counted. */
  forget(counter: string, expiresAt: number): Awaitable<void>;
}
