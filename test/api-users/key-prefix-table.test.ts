// The key index's prefix → slot table checked against a Map doing the same
// filing, through enough filings, re-filings and growth that probe runs
// collide and backward-shift deletion moves entries around.
import { describe, expect, it } from 'vitest';
import { NO_SLOT, PrefixTable } from '../../src/api-users/key-prefix-table.js';

/** The table's contract in Maps: a slot's new prefix replaces its old one, and the newest filer of a prefix holds it. */
class ModelTable {
  readonly slotByPrefix = new Map<string, number>();
  private readonly prefixBySlot = new Map<number, string>();

  file(slot: number, prefix: string): void {
    const previous = this.prefixBySlot.get(slot);
    if (previous !== undefined && this.slotByPrefix.get(previous) === slot) this.slotByPrefix.delete(previous);
    this.slotByPrefix.set(prefix, slot);
    this.prefixBySlot.set(slot, prefix);
  }

  remove(slot: number): void {
    const previous = this.prefixBySlot.get(slot);
    if (previous !== undefined && this.slotByPrefix.get(previous) === slot) this.slotByPrefix.delete(previous);
    this.prefixBySlot.delete(slot);
  }
}

/** A small deterministic generator (mulberry32), so a failure replays. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let value = Math.imul(state ^ (state >>> 15), 1 | state);
    value = (value + Math.imul(value ^ (value >>> 7), 61 | value)) ^ value;
    return ((value ^ (value >>> 14)) >>> 0) / 2 ** 32;
  };
}

function expectSameAs(table: PrefixTable, model: ModelTable, retired: Iterable<string>): void {
  expect(table.size).toBe(model.slotByPrefix.size);
  for (const [prefix, slot] of model.slotByPrefix) expect(table.slotOf(prefix)).toBe(slot);
  for (const prefix of retired) if (!model.slotByPrefix.has(prefix)) expect(table.slotOf(prefix)).toBe(NO_SLOT);
}

describe('prefix table', () => {
  it('finds 5,000 prefixes of 4 to 16 characters, and none of their near misses', () => {
    const table = new PrefixTable();
    const prefixes = Array.from({ length: 5000 }, (_, slot) => `k${slot.toString(36)}`.padEnd(4 + (slot % 13), '-'));
    prefixes.forEach((prefix, slot) => table.file(slot, prefix));
    expect(table.size).toBe(5000);
    prefixes.forEach((prefix, slot) => expect(table.slotOf(prefix)).toBe(slot));
    expect(table.slotOf('k0---')).toBe(NO_SLOT);
    expect(table.slotOf('K0--')).toBe(NO_SLOT);
    expect(table.slotOf('k0-')).toBe(NO_SLOT);
  });

  it('looks a key up by its first 16 characters only, and a shorter prefix only by a key of that length', () => {
    const table = new PrefixTable();
    table.file(0, 'ABCDEFGHIJKLMNOP');
    table.file(1, 'ABCDE');
    expect(table.slotOf('ABCDEFGHIJKLMNOPQRSTUVWXYZ')).toBe(0);
    expect(table.slotOf('ABCDE')).toBe(1);
    expect(table.slotOf('ABCDEF')).toBe(NO_SLOT);
    expect(table.slotOf('ABCD')).toBe(NO_SLOT);
  });

  it('forgets a slot’s old prefix when it is filed under a new one', () => {
    const table = new PrefixTable();
    table.file(0, 'first-prefix');
    table.file(0, 'second-prefix');
    expect(table.slotOf('first-prefix')).toBe(NO_SLOT);
    expect(table.slotOf('second-prefix')).toBe(0);
    expect(table.size).toBe(1);
  });

  it('gives a prefix to the slot that filed it last, and keeps it there when the earlier holder moves on', () => {
    const table = new PrefixTable();
    table.file(0, 'shared-prefix');
    table.file(1, 'shared-prefix');
    expect(table.slotOf('shared-prefix')).toBe(1);
    expect(table.size).toBe(1);
    table.file(0, 'own-prefix');
    expect(table.slotOf('shared-prefix')).toBe(1);
    expect(table.slotOf('own-prefix')).toBe(0);
    expect(table.size).toBe(2);
  });

  it('finds a removed slot under no prefix, and leaves a prefix another slot took over with that slot', () => {
    const table = new PrefixTable();
    table.file(0, 'deleted-user');
    table.file(1, 'taken-over');
    table.file(2, 'taken-over');
    table.remove(0);
    table.remove(1);
    expect(table.slotOf('deleted-user')).toBe(NO_SLOT);
    expect(table.slotOf('taken-over')).toBe(2);
    expect(table.size).toBe(1);
    table.remove(7);
    expect(table.size).toBe(1);
  });

  it('answers as a Map would through 20,000 random filings, re-filings, take-overs and removals', () => {
    const next = random(20_240_611);
    const table = new PrefixTable();
    const model = new ModelTable();
    // Few distinct prefixes and slots: prefixes are often taken over, re-filed and retired, in long probe runs.
    const pool = Array.from({ length: 600 }, (_, index) => `p${index}`.padEnd(4 + (index % 9), '-'));
    for (let step = 1; step <= 20_000; step++) {
      const slot = Math.floor(next() * 400);
      const prefix = pool[Math.floor(next() * pool.length)]!;
      if (next() < 0.1) {
        table.remove(slot);
        model.remove(slot);
      } else {
        table.file(slot, prefix);
        model.file(slot, prefix);
      }
      if (step % 500 === 0) expectSameAs(table, model, pool);
    }
  });
});
