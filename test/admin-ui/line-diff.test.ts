import { describe, expect, it } from 'vitest';
import { lineDiff } from '../../src/admin-ui/line-diff.js';

describe('lineDiff', () => {
  it('marks removed and added lines around what stayed', () => {
    expect(lineDiff('a\nb\nc', 'a\nB\nc')).toEqual([
      { kind: 'same', text: 'a' },
      { kind: 'del', text: 'b' },
      { kind: 'add', text: 'B' },
      { kind: 'same', text: 'c' },
    ]);
  });

  it('shows a new config as all added and a deleted one as all removed', () => {
    expect(lineDiff('', 'x\ny').map((line) => line.kind)).toEqual(['add', 'add']);
    expect(lineDiff('x\ny', '').map((line) => line.kind)).toEqual(['del', 'del']);
  });

  it('collapses long unchanged runs, keeping context lines around changes', () => {
    const before = Array.from({ length: 20 }, (_, i) => `line ${i}`).join('\n');
    const after = before.replace('line 10', 'line ten');
    const diff = lineDiff(before, after, 2);
    expect(diff[0]).toEqual({ kind: 'gap', text: '… 8 unchanged lines', hidden: 8 });
    expect(diff.filter((line) => line.kind === 'same').map((line) => line.text)).toEqual(['line 8', 'line 9', 'line 11', 'line 12']);
    expect(diff[diff.length - 1]).toEqual({ kind: 'gap', text: '… 7 unchanged lines', hidden: 7 });
  });
});
