// The drafts' list is kept between writes (every admin page reads it): it must
// still show every committed change, wherever it was made, and never one that
// rolled back; and it must be kept through what changes no backend (the
// analytics writer's commits, every 250 ms under traffic).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ApiBackendRepository } from '../../src/api-backends/repository.js';
import { openStore, type Db } from '../../src/store/db.js';
import { tempDir } from '../helpers/config.js';
import { backendConfig } from '../helpers/scoped-backends.js';

const names = (repository: ApiBackendRepository) => repository.list().map((api) => api.name);

/** Two repositories on two connections to one store, and a third connection to it, as the analytics writer has. */
function twoConnections(): [ApiBackendRepository, ApiBackendRepository, Db] {
  const dataDir = join(tempDir('parasol-backends-'), 'data');
  return [new ApiBackendRepository(openStore(dataDir)), new ApiBackendRepository(openStore(dataDir)), openStore(dataDir)];
}

describe('API backend drafts', () => {
  it('lists what this repository created, updated and deleted, each at once', () => {
    const [repository] = twoConnections();
    const first = repository.create(backendConfig('First', ['/first/']), 'test');
    expect(names(repository)).toEqual(['First']);
    repository.create(backendConfig('Second', ['/second/']), 'test');
    expect(names(repository)).toEqual(['First', 'Second']);
    repository.update(first.id, backendConfig('First, renamed', ['/first/']), 'test');
    expect(names(repository)).toEqual(['First, renamed', 'Second']);
    repository.delete(first.id);
    expect(names(repository)).toEqual(['Second']);
  });

  it('lists what another connection to the store committed', () => {
    const [here, elsewhere] = twoConnections();
    expect(names(here)).toEqual([]);
    const made = elsewhere.create(backendConfig('Made elsewhere', ['/x/']), 'test');
    expect(names(here)).toEqual(['Made elsewhere']);
    elsewhere.update(made.id, backendConfig('Renamed elsewhere', ['/x/']), 'test');
    expect(names(here)).toEqual(['Renamed elsewhere']);
  });

  it('does not keep a list read inside a transaction that rolled back', () => {
    const [repository] = twoConnections();
    repository.create(backendConfig('Kept', ['/kept/']), 'test');
    expect(names(repository)).toEqual(['Kept']);
    expect(() =>
      repository.transaction(() => {
        repository.create(backendConfig('Rolled back', ['/gone/']), 'test');
        expect(names(repository)).toEqual(['Kept', 'Rolled back']);
        throw new Error('refused');
      }),
    ).toThrow('refused');
    expect(names(repository)).toEqual(['Kept']);
  });

  it("keeps the list through another connection's commits that change no backend, and keeps each unchanged backend's object through a change of another", () => {
    const [here, elsewhere, writer] = twoConnections();
    const kept = here.create(backendConfig('Kept', ['/kept/']), 'test');
    const changed = here.create(backendConfig('Changed', ['/changed/']), 'test');
    const before = here.list();
    writer.prepare("INSERT INTO sequences (name, value) VALUES ('unrelated', 1)").run();
    expect(here.list()).toBe(before);
    elsewhere.update(changed.id, backendConfig('Changed again', ['/changed/']), 'test');
    const after = here.list();
    expect(after).not.toBe(before);
    expect(after.find((api) => api.id === kept.id)).toBe(before.find((api) => api.id === kept.id));
    expect(after.find((api) => api.id === changed.id)!.name).toBe('Changed again');
  });
});
