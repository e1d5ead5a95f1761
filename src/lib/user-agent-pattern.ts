// User-Agent patterns as nginx's map takes them, in API Umbrella's config
// (ban.user_agents): "~*text" a case-insensitive regular expression, "~text"
// a case-sensitive one, anything else the whole User-Agent in any case.
import { pcreOnlySyntax } from './pcre-syntax.js';

const REGEX_PREFIX = /^~\*?/;

export function compileUserAgentPattern(pattern: string): RegExp | string {
  const prefix = REGEX_PREFIX.exec(pattern)?.[0];
  return prefix === undefined ? pattern : new RegExp(pattern.slice(prefix.length), prefix === '~*' ? 'i' : '');
}

/** Whether a pattern compiles, and means in JavaScript what it meant in nginx's PCRE. */
export function isUserAgentPattern(pattern: string): boolean {
  try {
    compileUserAgentPattern(pattern);
  } catch {
    return false;
  }
  return !REGEX_PREFIX.test(pattern) || pcreOnlySyntax(pattern.replace(REGEX_PREFIX, '')) === null;
}
