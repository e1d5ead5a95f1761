// One timer for many deadlines: the gateway watches requests whose body stops
// arriving, responses whose client stops taking them and requests waiting for
// a pooled connection with one sweep each, run only while something is
// watched, rather than a timer per request.

/** The longest a sweep waits: a deadline lands at most this late. */
const MAX_SWEEP_MS = 1000;

export class SweepTimer {
  private timer: NodeJS.Timeout | null = null;
  private readonly everyMs: number;

  /** Sweeps for deadlines of `timeoutMs`, each landing at most a quarter of it (and a second) late. */
  constructor(
    timeoutMs: number,
    private readonly sweep: () => void,
  ) {
    this.everyMs = Math.min(MAX_SWEEP_MS, Math.max(1, Math.floor(timeoutMs / 4)));
  }

  /** Call when something is watched; running already, it goes on. */
  start(): void {
    if (this.timer !== null) return;
    this.timer = setInterval(this.sweep, this.everyMs);
    this.timer.unref();
  }

  /** Call when nothing is watched any more, or to stop for good. */
  stop(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
  }
}
