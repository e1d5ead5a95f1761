// Lists the admin edits in a textarea (allowed IPs, allowed referers): one
// entry per line. Shared by the API backend and API user forms.

/** A saved list as the textarea shows it. */
export function joinLines(items: readonly string[]): string {
  return items.join('\n');
}

/** The textarea's entries: trimmed, blank lines dropped; commas separate too, for pasted lists. */
export function splitLines(text: string): string[] {
  return text.split(/[\r\n,]+/).map((line) => line.trim()).filter((line) => line !== '');
}
