// API Umbrella's sliding-window estimate, as pure arithmetic. Time is cut
// into fixed windows of the limit's duration; the count of the window now
// running is added to the previous window's count, weighted by how much of
// the previous window still overlaps the sliding window that ends now.

/** The index of the fixed window of `duration` ms that holds `now`. */
export function windowIndex(now: number, duration: number): number {
  return Math.floor(now / duration);
}

/** `current + floor(previous × (1 − elapsed fraction of the current window))`. */
export function estimateCount(current: number, previous: number, elapsed: number, duration: number): number {
  return current + Math.floor(previous * (1 - elapsed / duration));
}

/**
 * Milliseconds from now until the estimate falls below `limit`, so one more
 * request would pass, assuming no other request is counted meanwhile. The
 * previous window's weight fades through the current window; once that ends,
 * the current count becomes the fading one. `limit` is 1 or more: under a
 * limit of 0 no wait lets a request through.
 */
export function msUntilBelow(limit: number, current: number, previous: number, elapsed: number, duration: number): number {
  // floor(fading × (1 − t/D)) < room first holds just past t = D × (1 − room/fading); floating point can
  // put that a millisecond off, so start just before it and let the estimate itself decide.
  const firstPassingMs = (fading: number, room: number, from: number): number => {
    let t = Math.max(from, Math.floor(duration * (1 - room / fading)) - 1);
    while (t < duration && estimateCount(0, fading, t, duration) >= room) t += 1;
    return t;
  };
  if (current < limit) return firstPassingMs(previous, limit - current, elapsed) - elapsed;
  return duration - elapsed + firstPassingMs(current, limit, 0);
}
