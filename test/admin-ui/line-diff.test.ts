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

  it('diffs a config of 20,000 lines with one change, without a table of 20,000 × 20,000', () => {
    const before = Array.from({ length: 20_000 }, (_, i) => `line ${i}`);
    const after = before.map((line) => (line === 'line 12345' ? 'line twelve' : line));
    const diff = lineDiff(before.join('\n'), after.join('\n'), 1);
    expect(diff.filter((line) => line.kind !== 'gap')).toEqual([
      { kind: 'same', text: 'line 12344' },
      { kind: 'del', text: 'line 12345' },
      { kind: 'add', text: 'line twelve' },
      { kind: 'same', text: 'line 12346' },
    ]);
  });

  it('shows a changed middle too large to align (over 4,000,000 line pairs) as removed, then added', () => {
    // Every other line is the same on both sides: small enough, they would be aligned.
    const before = Array.from({ length: 6_000 }, (_, i) => (i % 2 === 0 ? '},' : `old ${i}`));
    const after = Array.from({ length: 6_000 }, (_, i) => (i % 2 === 0 ? '},' : `new ${i}`));
    const diff = lineDiff(['head', ...before, 'tail'].join('\n'), ['head', ...after, 'tail'].join('\n'), 1);
    // "head" (folded away, one line of context) and the first "}," are shared at the start, "tail" at the end.
    expect(diff.map((line) => line.kind)).toEqual(['gap', 'same', ...before.slice(1).map(() => 'del'), ...after.slice(1).map(() => 'add'), 'same']);
    expect(lineDiff(before.slice(0, 6).join('\n'), after.slice(0, 6).join('\n')).filter((line) => line.kind === 'same')).toHaveLength(3);
  });
});
