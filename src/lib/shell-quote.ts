/** One shell word, whatever it holds: for the copyable `curl` examples. */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}
