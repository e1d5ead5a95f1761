// The drafts' list is kept between writes (every admin page reads it): it must
// still show every committed change, wherever it was made, and never one that
// rolled back.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ApiBackendRepository } from '../../src/api-backends/repository.js';
import { openStore } from '../../src/store/db.js';
import { tempDir } from '../helpers/config.js';
import { backendConfig } from '../helpers/scoped-backends.js';

const names = (repository: ApiBackendRepository) => repository.list().map((api) => api.name);

function twoConnections(): [ApiBackendRepository, ApiBackendRepository] {
  const dataDir = join(tempDir('parasol-backends-'), 'data');
  return [new ApiBackendRepository(openStore(dataDir)), new ApiBackendRepository(openStore(dataDir))];
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
});
