// Runs async tasks one at a time, each once the one queued before it has
// settled, in the order they were queued. A task that throws or rejects
// passes its error to its own caller only; the next task runs all the same.

export class OneAtATime {
  /** Settles (never rejects) when the task queued last has settled. */
  private last: Promise<void> = Promise.resolve();

  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.last.then(task);
    this.last = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }
}
