// API Umbrella matches sub-setting and rewrite regexes with PCRE (nginx).
// Most of them mean the same in JavaScript, and what JavaScript cannot parse
// is refused anyway; these are the PCRE forms JavaScript parses as something
// else without a word (an unknown escape is the letter itself), so a regex
// copied over would quietly stop matching.
const PCRE_ESCAPES: Readonly<Record<string, string>> = {
  A: 'use ^',
  z: 'use $',
  Z: 'use $',
  G: 'it has no JavaScript equivalent',
  h: 'use [ \\t]',
  H: 'use [^ \\t]',
  R: 'use (?:\\r\\n|\\n|\\r)',
  K: 'it has no JavaScript equivalent',
  X: 'it has no JavaScript equivalent',
  Q: 'escape each character instead',
  E: 'escape each character instead',
};

/** What in `source` JavaScript would read differently from PCRE, as a message, or null. */
export function pcreOnlySyntax(source: string): string | null {
  for (let index = 0; index < source.length; index++) {
    const character = source[index];
    if (character === '\\') {
      const escaped = source[index + 1] ?? '';
      const advice = Object.hasOwn(PCRE_ESCAPES, escaped) ? PCRE_ESCAPES[escaped] : undefined;
      if (advice !== undefined) return `uses \\${escaped}, which JavaScript reads as a plain "${escaped}" (${advice})`;
      index++;
    } else if (character === '[' && source[index + 1] === '[' && source[index + 2] === ':') {
      return 'uses a POSIX class such as [[:digit:]], which JavaScript does not know (use \\d, \\w, \\s or a range)';
    }
  }
  return null;
}
