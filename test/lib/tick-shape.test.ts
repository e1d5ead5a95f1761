import { describe, expect, it } from 'vitest';
import { heldTickEntry, holdTickEntryShape } from '../../src/lib/tick-shape.js';

describe('holding a nextTick entry', () => {
  it('holds the queue entry itself, so its maps stay alive (fails if Node stops exposing it as the async resource)', async () => {
    holdTickEntryShape();
    await new Promise<void>((resolve) => process.nextTick(resolve));
    const entry = heldTickEntry();
    expect(entry).not.toBeNull();
    // A nextTick entry: the callback and its arguments, plus the async ids under Node's own symbols.
    expect(Object.keys(entry!)).toEqual(['callback', 'args']);
    expect(Object.getOwnPropertySymbols(entry!).map(String)).toEqual(['Symbol(async_id_symbol)', 'Symbol(trigger_async_id_symbol)']);
  });
});
