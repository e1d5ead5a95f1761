// A unified line diff (longest common subsequence) for showing the
// published vs the pending config of an API backend. Long unchanged runs
// collapse to a marker, leaving a few lines of context around each change.

export type DiffLine =
  | { readonly kind: 'same' | 'add' | 'del'; readonly text: string }
  | { readonly kind: 'gap'; readonly text: string; readonly hidden: number };

export function lineDiff(before: string, after: string, context = 3): DiffLine[] {
  return collapse(diffLines(splitLines(before), splitLines(after)), context);
}

function splitLines(text: string): string[] {
  return text === '' ? [] : text.split('\n');
}

/**
 * Past this many cells the table of common-subsequence lengths would take
 * tens of MB (a backend with hundreds of sub-settings is thousands of lines):
 * the changed middle is then shown as removed, then added, still a true diff.
 */
const MAX_TABLE_CELLS = 4_000_000;

/** Lines the two share at the start and at the end are matched first, so one edit in a long config costs no table at all. */
function diffLines(a: readonly string[], b: readonly string[]): DiffLine[] {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const middleA = a.slice(start, endA);
  const middleB = b.slice(start, endB);
  const middle = middleA.length * middleB.length > MAX_TABLE_CELLS ? [...middleA.map(removed), ...middleB.map(added)] : subsequenceDiff(middleA, middleB);
  return [...a.slice(0, start).map(same), ...middle, ...a.slice(endA).map(same)];
}

function same(text: string): DiffLine {
  return { kind: 'same', text };
}

function removed(text: string): DiffLine {
  return { kind: 'del', text };
}

function added(text: string): DiffLine {
  return { kind: 'add', text };
}

function subsequenceDiff(a: readonly string[], b: readonly string[]): DiffLine[] {
  // lengths[i][j] = length of the LCS of a[i..] and b[j..]
  const lengths = Array.from({ length: a.length + 1 }, () => new Uint32Array(b.length + 1));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lengths[i]![j] = a[i] === b[j] ? lengths[i + 1]![j + 1]! + 1 : Math.max(lengths[i + 1]![j]!, lengths[i]![j + 1]!);
    }
  }
  const lines: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      lines.push(same(a[i]!));
      i++;
      j++;
    } else if (i < a.length && (j === b.length || lengths[i + 1]![j]! >= lengths[i]![j + 1]!)) {
      // Removed lines before added ones, as unified diffs show a change.
      lines.push(removed(a[i++]!));
    } else {
      lines.push(added(b[j++]!));
    }
  }
  return lines;
}

function collapse(lines: readonly DiffLine[], context: number): DiffLine[] {
  const near = lines.map(() => false);
  lines.forEach((line, index) => {
    if (line.kind === 'same') return;
    for (let k = Math.max(0, index - context); k <= Math.min(lines.length - 1, index + context); k++) near[k] = true;
  });
  const result: DiffLine[] = [];
  let hidden = 0;
  const flush = () => {
    if (hidden > 0) result.push({ kind: 'gap', text: `… ${hidden} unchanged ${hidden === 1 ? 'line' : 'lines'}`, hidden });
    hidden = 0;
  };
  lines.forEach((line, index) => {
    if (near[index]) {
      flush();
      result.push(line);
    } else {
      hidden++;
    }
  });
  flush();
  return result;
}
