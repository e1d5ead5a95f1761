import { describe, expect, it } from 'vitest';
import { parseInstant } from '../../src/lib/iso-instant.js';

describe('parseInstant', () => {
  it('reads dates, date-times with or without seconds, fractions and offsets', () => {
    const at = Date.UTC(2015, 0, 16, 6, 6, 28, 816);
    for (const text of ['2015-01-16T06:06:28.816Z', '2015-01-16T06:06:28.816000Z', '2015-01-16 06:06:28.8169', '2015-01-16T07:06:28.816+01:00', '2015-01-16T01:06:28.816-0500']) {
      expect(parseInstant(text, 'start'), text).toBe(at);
    }
    expect(parseInstant('2015-01-16', 'start')).toBe(Date.UTC(2015, 0, 16));
    expect(parseInstant('2015-01-16', 'end')).toBe(Date.UTC(2015, 0, 17));
    expect(parseInstant('2015-01-16T06:06', 'end')).toBe(Date.UTC(2015, 0, 16, 6, 6) + 1);
  });

  it('refuses days, times and offsets no calendar or clock has, and anything else', () => {
    for (const text of ['2026-02-30', '2026-02-29T00:00:00Z', '2026-01-01T24:00:00Z', '2026-01-01T23:60Z', '2026-01-01T00:00+24:00', 'next Tuesday', '2026-1-1', '']) {
      expect(parseInstant(text, 'start'), text).toBeNull();
    }
    expect(parseInstant(1359682020000, 'start')).toBeNull();
  });
});
