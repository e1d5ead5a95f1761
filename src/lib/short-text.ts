// Free text an API user wrote (the purpose of their key, up to 2,000
// characters) in a table cell: its first characters on one line, so that
// one long answer does not stretch a row of the list. The page puts the
// whole text in the cell's title.

/** Characters a cell shows, the ellipsis included. */
export const SHORT_TEXT_LENGTH = 60;

/** Characters as a reader counts them: an emoji with its modifiers, a letter with its accents, is one. */
const CHARACTERS = new Intl.Segmenter('en', { granularity: 'grapheme' });

/** The text on one line, cut to `max` characters ending in "…" when longer; '' for none. */
export function shortText(text: string | null | undefined, max = SHORT_TEXT_LENGTH): string {
  if (text == null) return '';
  const line = text.replace(/\s+/g, ' ').trim();
  // No more UTF-16 units than `max`, so no more characters either: nothing to count.
  if (line.length <= max) return line;
  const characters = Array.from(CHARACTERS.segment(line), (part) => part.segment);
  return characters.length <= max ? line : `${characters.slice(0, max - 1).join('').trimEnd()}…`;
}
