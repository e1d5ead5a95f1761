import { describe, expect, it } from 'vitest';
import { pcreOnlySyntax } from '../../src/lib/pcre-syntax.js';

describe('pcreOnlySyntax', () => {
  it.each(['^/x/\\d+\\z', '\\A/x', 'a\\Zb', '\\h+', '\\Qa.b\\E', '[[:digit:]]+', 'x[[:alpha:]]'])('names %s', (source) => {
    expect(pcreOnlySyntax(source)).not.toBeNull();
  });

  it.each(['^/x/\\d+$', '\\\\z', 'a\\\\Q', '[a-z]+\\.json', '[[]:]', '\\w+\\s\\b', 'state=([A-Z]+)'])('accepts %s', (source) => {
    expect(pcreOnlySyntax(source)).toBeNull();
  });

  it('says what to write instead', () => {
    expect(pcreOnlySyntax('^/x\\z')).toBe('uses \\z, which JavaScript reads as a plain "z" (use $)');
  });
});
