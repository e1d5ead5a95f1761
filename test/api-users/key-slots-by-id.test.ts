// The key index's id → slot table, over an id column as the index keeps it.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { NO_SLOT } from '../../src/api-users/key-prefix-table.js';
import { SlotsById } from '../../src/api-users/key-slots-by-id.js';

describe('slots by id', () => {
  it('finds each of 5,000 users’ slots through its growth, and no slot for an unknown id', () => {
    const ids: string[] = [];
    const slots = new SlotsById(ids);
    for (let slot = 0; slot < 5000; slot++) {
      ids.push(slot % 2 === 0 ? randomUUID() : `imported-${slot}`);
      slots.add(slot);
    }
    ids.forEach((id, slot) => expect(slots.get(id)).toBe(slot));
    // An equal id from elsewhere (a row read again) is the same user.
    expect(slots.get('imported-1')).toBe(1);
    expect(slots.get(randomUUID())).toBe(NO_SLOT);
    expect(slots.get('imported-5001')).toBe(NO_SLOT);
  });
});
