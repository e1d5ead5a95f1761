// The key index keeps its users as columns: one typed array per field,
// indexed by the user's slot number, grown by doubling as slots are added.

/** Slots a fresh index has room for; a test's index stays small, a gateway's doubles up to its user count. */
export const INITIAL_SLOTS = 64;

type Column = Uint8Array | Uint16Array | Uint32Array | Float64Array;

/** The column itself while `length` elements fit, else a copy at least twice as long. */
export function withRoom<T extends Column>(column: T, length: number): T {
  if (length <= column.length) return column;
  const grown = new (column.constructor as new (length: number) => T)(Math.max(length, column.length * 2));
  grown.set(column);
  return grown;
}
