// "Add server" / "Remove" / "Move up" without JavaScript: such a button
// submits the form with _add (a list: "sub_settings.0.settings.rate_limits"),
// _remove or _up (a row: "servers.1"), and the form comes back with a row
// more, less or moved, unsaved.
import { textOf, type FormTree } from '../lib/nested-form.js';

export interface RowAction {
  readonly add?: string;
  readonly remove?: string;
  readonly up?: string;
}

/** The row button that submitted the form, or null for a real submit. */
export function rowActionOf(tree: FormTree): RowAction | null {
  const add = textOf(tree, '_add');
  const remove = textOf(tree, '_remove');
  const up = textOf(tree, '_up');
  if (add !== '') return { add };
  if (remove !== '') return { remove };
  if (up !== '') return { up };
  return null;
}

/**
 * The form a row button asks for. A removed row leaves the submitted fields
 * before `read` sees them: the button names the row by its field index, and
 * `read` drops blank rows, so in the form model the index could point at the
 * next row. An added row is a blank one made by list name (the path's last part).
 */
export function formAfterRowAction<F extends object>(
  tree: FormTree,
  action: RowAction,
  read: (tree: FormTree) => F,
  blanks: Readonly<Record<string, () => unknown>>,
): F {
  if (action.remove !== undefined) {
    removeField(tree, action.remove.split('.'));
    return read(tree);
  }
  if (action.up !== undefined) {
    moveFieldUp(tree, action.up.split('.'));
    return read(tree);
  }
  const form = read(tree);
  const path = action.add!.split('.');
  const list = listAt(form, path);
  const blank = Object.hasOwn(blanks, path[path.length - 1]!) ? blanks[path[path.length - 1]!] : undefined;
  if (list !== null && blank !== undefined) list.push(blank());
  return form;
}

function removeField(tree: FormTree, path: readonly string[]): void {
  if (!/^\d+$/.test(path[path.length - 1]!)) return;
  const list = nodeAt(tree, path.slice(0, -1));
  if (list !== null) delete list[path[path.length - 1]!];
}

/**
 * The row changes places with the one before it. Rows are read in their
 * keys' order, and a row the page's script added has a key of letters, which
 * comes after every number: the list is written again, numbered in its new order.
 */
function moveFieldUp(tree: FormTree, path: readonly string[]): void {
  const list = nodeAt(tree, path.slice(0, -1));
  if (list === null) return;
  const keys = Object.keys(list);
  const at = keys.indexOf(path[path.length - 1]!);
  if (at < 1) return;
  [keys[at - 1], keys[at]] = [keys[at]!, keys[at - 1]!];
  const rows = keys.map((key) => list[key]!);
  for (const key of keys) delete list[key];
  rows.forEach((row, index) => (list[String(index)] = row));
}

function nodeAt(tree: FormTree, path: readonly string[]): FormTree | null {
  let node: FormTree = tree;
  for (const key of path) {
    const next = node[key];
    if (typeof next !== 'object') return null;
    node = next;
  }
  return node;
}

function listAt(form: object, path: readonly string[]): unknown[] | null {
  let node: unknown = form;
  for (const key of path) {
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, key)) return null;
    node = (node as Record<string, unknown>)[key];
  }
  return Array.isArray(node) ? node : null;
}
