// The Publish page diffs each pending change on every view: each pair of
// backend objects is diffed once (500 modified backends took a second or more
// of the event loop per view).
import { describe, expect, it } from 'vitest';
import type { ApiBackend } from '../../src/api-backends/model.js';
import { changeDiff } from '../../src/admin-ui/change-diff.js';
import { parsedBackend } from '../helpers/parsed-backend.js';

function backend(header: string): ApiBackend {
  return parsedBackend({ settings: { headers: [{ key: 'X-A', value: header }] } });
}

describe('changeDiff', () => {
  it('diffs a pair once, and again when either side is another object', () => {
    const live = backend('1');
    const draft = backend('2');
    const diff = changeDiff(live, draft);
    expect(diff.some((line) => line.kind === 'add' && line.text.includes('value: "2"'))).toBe(true);
    expect(changeDiff(live, draft)).toBe(diff);
    const newerLive = backend('2');
    expect(changeDiff(newerLive, draft)).not.toBe(diff);
    expect(changeDiff(newerLive, draft).every((line) => line.kind !== 'add')).toBe(true);
  });

  it('diffs a new backend against nothing and a deleted one against nothing, each once', () => {
    const only = backend('1');
    const added = changeDiff(null, only);
    expect(added.every((line) => line.kind === 'add' || line.kind === 'gap')).toBe(true);
    expect(changeDiff(null, only)).toBe(added);
    const deleted = changeDiff(only, null);
    expect(deleted.every((line) => line.kind === 'del' || line.kind === 'gap')).toBe(true);
    expect(changeDiff(only, null)).toBe(deleted);
  });
});
