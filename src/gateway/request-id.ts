// Request ids: a random per-process prefix and a counter. Unique without a
// random draw per request, and sortable within one process.
import { generateToken } from '../lib/secret-token.js';

const PROCESS_PREFIX = generateToken(12);
let counter = 0;

/** 20 characters: 12 random, then 8 of counter in base 36. */
export function nextRequestId(): string {
  counter = (counter + 1) % 2_821_109_907_456; // 36^8: the counter part stays 8 characters
  return PROCESS_PREFIX + counter.toString(36).padStart(8, '0');
}
