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

function diffLines(a: readonly string[], b: readonly string[]): DiffLine[] {
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
      lines.push({ kind: 'same', text: a[i]! });
      i++;
      j++;
    } else if (i < a.length && (j === b.length || lengths[i + 1]![j]! >= lengths[i]![j + 1]!)) {
      // Removed lines before added ones, as unified diffs show a change.
      lines.push({ kind: 'del', text: a[i++]! });
    } else {
      lines.push({ kind: 'add', text: b[j++]! });
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
