// Runs async tasks at most `limit` at a time; one queued while all run starts,
// in the order queued, once a running one has settled. A task that throws or
// rejects passes its error to its own caller only; the next runs all the same.

export class AtMost {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly limit: number) {}

  async run<T>(task: () => T | Promise<T>): Promise<T> {
    if (this.running < this.limit) this.running++;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await task();
    } finally {
      // The slot goes to the next waiting task, or is given back.
      const next = this.waiting.shift();
      if (next === undefined) this.running--;
      else next();
    }
  }
}
