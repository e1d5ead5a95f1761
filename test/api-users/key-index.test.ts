// Users written by another process (the CLI, a second connection) reach a
// running gateway's key index through refresh(), without a restart.
import { describe, expect, it } from 'vitest';
import { apiUserInput } from '../helpers/users.js';
import { twoProcesses } from './two-processes.js';

const input = apiUserInput({ email: 'cli@example.com', registration_source: 'cli' });

describe('key index across processes', () => {
  it('learns a key created by another process at the next refresh', () => {
    const { gateway, cli } = twoProcesses();
    const { apiKey } = cli.users.create(input, 'cli');
    expect(gateway.keyIndex.find(apiKey)).toBeNull();
    gateway.keyIndex.refresh();
    expect(gateway.keyIndex.find(apiKey)?.user.email).toBe('cli@example.com');
  });

  it('learns a disable and a regenerated key from another process, and forgets the old key', () => {
    const { gateway, cli } = twoProcesses();
    const { user, apiKey } = gateway.users.create(input, 'admin');
    cli.users.update(user.id, { ...input, enabled: false }, null);
    gateway.keyIndex.refresh();
    expect(gateway.keyIndex.find(apiKey)?.user.enabled).toBe(false);

    const regenerated = cli.users.regenerateKey(user.id, null, null)!;
    gateway.keyIndex.refresh();
    expect(gateway.keyIndex.find(apiKey)).toBeNull();
    expect(gateway.keyIndex.find(regenerated.apiKey)?.user.id).toBe(user.id);
  });

  it("learns another process's change of email_verified, and keeps each user's creation time", () => {
    const { gateway, cli } = twoProcesses();
    const { user, apiKey } = gateway.users.create({ ...input, email_verified: false }, 'admin');
    expect(gateway.keyIndex.find(apiKey)?.user).toMatchObject({ email_verified: false, created_at_ms: Date.parse(user.created_at) });
    cli.users.update(user.id, { ...input, email_verified: true }, null);
    gateway.keyIndex.refresh();
    expect(gateway.keyIndex.find(apiKey)?.user).toMatchObject({ email_verified: true, created_at_ms: Date.parse(user.created_at) });
  });

  it("learns another process's expiry, and counts an expiry it cannot read as passed", () => {
    const { gateway, cli } = twoProcesses();
    const { user, apiKey } = gateway.users.create(input, 'admin');
    expect(gateway.keyIndex.find(apiKey)?.user.expires_at_ms).toBe(Infinity);
    cli.users.update(user.id, { ...input, expires_at: '2027-01-31T00:00:00.000Z' }, null);
    gateway.keyIndex.refresh();
    expect(gateway.keyIndex.find(apiKey)?.user.expires_at_ms).toBe(Date.UTC(2027, 0, 31));
    cli.users.update(user.id, { ...input, expires_at: 'not a time' }, null);
    gateway.keyIndex.refresh();
    expect(gateway.keyIndex.find(apiKey)?.user.expires_at_ms).toBe(-Infinity);
    cli.users.update(user.id, input, null);
    gateway.keyIndex.refresh();
    expect(gateway.keyIndex.find(apiKey)?.user.expires_at_ms).toBe(Infinity);
  });

  it("keeps a regenerated user's previous key with its own end, from another process too, until the next regeneration or deletion", () => {
    const { gateway, cli } = twoProcesses();
    const { user, apiKey: first } = gateway.users.create({ ...input, expires_at: '2030-01-01T00:00:00.000Z' }, 'admin');
    const second = cli.users.regenerateKey(user.id, '2027-01-31T00:00:00.000Z', null)!.apiKey;
    gateway.keyIndex.refresh();
    expect(gateway.keyIndex.find(first)?.user).toMatchObject({ id: user.id, expires_at_ms: Date.UTC(2027, 0, 31), api_key_preview: `${first.slice(0, 6)}...` });
    expect(gateway.keyIndex.find(second)?.user).toMatchObject({ id: user.id, expires_at_ms: Date.UTC(2030, 0, 1) });
    // The user's own end comes first when it is earlier.
    cli.users.update(user.id, { ...input, expires_at: '2026-06-01T00:00:00.000Z' }, null);
    gateway.keyIndex.refresh();
    expect(gateway.keyIndex.find(first)?.user.expires_at_ms).toBe(Date.UTC(2026, 5, 1));
    // A second regeneration keeps only the key it replaces.
    const third = gateway.users.regenerateKey(user.id, '2027-02-01T00:00:00.000Z', null)!.apiKey;
    expect(gateway.keyIndex.find(first)).toBeNull();
    expect(gateway.keyIndex.find(second)?.user.id).toBe(user.id);
    gateway.users.regenerateKey(user.id, null, null);
    expect(gateway.keyIndex.find(second)).toBeNull();
    expect(gateway.keyIndex.find(third)).toBeNull();
    const fourth = gateway.users.regenerateKey(user.id, '2027-03-01T00:00:00.000Z', null)!;
    cli.users.delete(fourth.user.id, 'cli');
    gateway.keyIndex.refresh();
    expect(gateway.keyIndex.find(fourth.apiKey)).toBeNull();
    expect(gateway.keyIndex.find(third)).toBeNull();
  });

  it('sees its own writes at once, without a refresh', () => {
    const { gateway } = twoProcesses();
    const { user, apiKey } = gateway.users.create(input, 'admin');
    expect(gateway.keyIndex.find(apiKey)).not.toBeNull();
    const regenerated = gateway.users.regenerateKey(user.id, null, null)!;
    expect(gateway.keyIndex.find(apiKey)).toBeNull();
    expect(gateway.keyIndex.find(regenerated.apiKey)).not.toBeNull();
    const generation = gateway.keyIndex.generation;
    expect(gateway.users.delete(user.id, 'admin@example.com')).toBe(true);
    expect(gateway.keyIndex.find(regenerated.apiKey)).toBeNull();
    expect(gateway.keyIndex.generation).toBeGreaterThan(generation);
    expect(gateway.users.delete(user.id, 'admin@example.com')).toBe(false);
  });

  it("learns another process's deletion at the next refresh, also of a user changed and deleted in between, and keeps the others", () => {
    const { gateway, cli } = twoProcesses();
    const kept = gateway.users.create({ ...input, email: 'kept@example.com' }, 'admin');
    const deleted = gateway.users.create(input, 'admin');
    const changedThenDeleted = gateway.users.create({ ...input, email: 'changed@example.com' }, 'admin');
    const size = gateway.keyIndex.size;
    expect(cli.users.delete(deleted.user.id, 'cli')).toBe(true);
    cli.users.update(changedThenDeleted.user.id, { ...input, email: 'changed@example.com', enabled: false }, null);
    cli.users.delete(changedThenDeleted.user.id, 'cli');
    expect(gateway.keyIndex.find(deleted.apiKey)).not.toBeNull();
    gateway.keyIndex.refresh();
    expect(gateway.keyIndex.find(deleted.apiKey)).toBeNull();
    expect(gateway.keyIndex.find(changedThenDeleted.apiKey)).toBeNull();
    expect(gateway.keyIndex.find(kept.apiKey)?.user.email).toBe('kept@example.com');
    expect(gateway.keyIndex.size).toBe(size - 2);
    expect(gateway.users.get(deleted.user.id)).toBeNull();

    // A key made later by another process is learnt as before: the change numbers of deletions count.
    const later = cli.users.create({ ...input, email: 'later@example.com' }, 'cli');
    gateway.keyIndex.refresh();
    expect(gateway.keyIndex.find(later.apiKey)?.user.email).toBe('later@example.com');
  });

  it("learns another process's deletion and disable even when a write here took a later change number first", () => {
    const { gateway, cli } = twoProcesses();
    const deleted = gateway.users.create(input, 'admin');
    const disabled = gateway.users.create({ ...input, email: 'disabled@example.com' }, 'admin');
    cli.users.delete(deleted.user.id, 'cli');
    cli.users.update(disabled.user.id, { ...input, email: 'disabled@example.com', enabled: false }, null);
    // Filed here at once, with a number after the other process's two.
    gateway.users.create({ ...input, email: 'local@example.com' }, 'admin');
    gateway.keyIndex.refresh();
    expect(gateway.keyIndex.find(deleted.apiKey)).toBeNull();
    expect(gateway.keyIndex.find(disabled.apiKey)?.user.enabled).toBe(false);
  });
});
