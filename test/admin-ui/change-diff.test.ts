// The Publish page diffs each pending change on every view: each pair of
// backend objects is diffed once (500 modified backends took a second or more
// of the event loop per view).
import { describe, expect, it } from 'vitest';
import type { ApiBackend } from '../../src/api-backends/model.js';
import { parseApiBackend } from '../../src/api-backends/validate.js';
import { changeDiff } from '../../src/admin-ui/change-diff.js';

function backend(header: string): ApiBackend {
  const parsed = parseApiBackend({
    name: 'Diffed',
    frontend_host: 'api.example.com',
    backend_host: 'example.com',
    servers: [{ host: '10.0.0.1', port: 80 }],
    url_matches: [{ frontend_prefix: '/diffed/', backend_prefix: '/' }],
    settings: { headers: [{ key: 'X-A', value: header }] },
  });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  return { ...parsed.value, id: 'diffed', sort_order: 0, created_at: '', updated_at: '', created_by: null, updated_by: null };
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
