import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { assetVersion } from '../../src/web/asset-version.js';

describe('assetVersion', () => {
  it('changes when any linked file does, and only then', () => {
    const dir = mkdtempSync(join(tmpdir(), 'parasol-assets-'));
    const css = join(dir, 'a.css');
    const js = join(dir, 'a.js');
    writeFileSync(css, 'body { color: black }');
    writeFileSync(js, 'console.log(1)');
    const first = assetVersion([css, js]);
    expect(first).toMatch(/^[\w-]{10}$/);
    expect(assetVersion([css, js])).toBe(first);
    writeFileSync(js, 'console.log(2)');
    expect(assetVersion([css, js])).not.toBe(first);
  });
});
