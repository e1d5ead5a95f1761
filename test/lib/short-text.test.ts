import { describe, expect, it } from 'vitest';
import { SHORT_TEXT_LENGTH, shortText } from '../../src/lib/short-text.js';

describe('shortText', () => {
  it('keeps a text that fits, on one line', () => {
    expect(shortText('Weather\n\n  for   farms ')).toBe('Weather for farms');
    expect(shortText('x'.repeat(SHORT_TEXT_LENGTH))).toBe('x'.repeat(SHORT_TEXT_LENGTH));
  });

  it('cuts a longer one to the length, the ellipsis included, without a space before it', () => {
    expect(shortText('x'.repeat(SHORT_TEXT_LENGTH + 1))).toBe(`${'x'.repeat(SHORT_TEXT_LENGTH - 1)}…`);
    expect(shortText('abc defghi', 5)).toBe('abc…');
  });

  it('counts and cuts whole characters: an emoji with its modifier, a letter with its accent', () => {
    expect(shortText('🌦️🌦️🌦️🌦️', 3)).toBe('🌦️🌦️…');
    expect(shortText('👩🏽‍🌾 farms', 3)).toBe('👩🏽‍🌾…');
    expect(shortText('e\u0301e\u0301e\u0301e\u0301', 3)).toBe('e\u0301e\u0301…');
    // Longer in UTF-16 than the length, not in characters: kept whole.
    expect(shortText('🌦️🌦️🌦️', 3)).toBe('🌦️🌦️🌦️');
  });

  it('shows nothing for no text', () => {
    expect(shortText(null)).toBe('');
    expect(shortText(undefined)).toBe('');
    expect(shortText('')).toBe('');
  });
});
