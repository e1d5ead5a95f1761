// "Add server" / "Remove" without JavaScript: such a button submits the form
// with _add (a list: "sub_settings.0.settings.rate_limits") or _remove (a row:
// "servers.1"), and the form comes back with a row more or less, unsaved.
import { textOf, type FormTree } from '../lib/nested-form.js';

export interface RowAction {
  readonly add?: string;
  readonly remove?: string;
}

/** The row button that submitted the form, or null for a real submit. */
export function rowActionOf(tree: FormTree): RowAction | null {
  const add = textOf(tree, '_add');
  const remove = textOf(tree, '_remove');
  if (add !== '') return { add };
  if (remove !== '') return { remove };
  return null;
}

/** Applies the action to the form model; blank rows are made by list name (the path's last part). */
export function applyRowAction(form: object, action: RowAction, blanks: Readonly<Record<string, () => unknown>>): boolean {
  if (action.add !== undefined) {
    const path = action.add.split('.');
    const list = listAt(form, path);
    const blank = Object.hasOwn(blanks, path[path.length - 1]!) ? blanks[path[path.length - 1]!] : undefined;
    if (list === null || blank === undefined) return false;
    list.push(blank());
    return true;
  }
  if (action.remove !== undefined) {
    const path = action.remove.split('.');
    const index = Number(path.pop());
    const list = listAt(form, path);
    if (list === null || !Number.isInteger(index) || index < 0 || index >= list.length) return false;
    list.splice(index, 1);
    return true;
  }
  return false;
}

function listAt(form: object, path: readonly string[]): unknown[] | null {
  let node: unknown = form;
  for (const key of path) {
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, key)) return null;
    node = (node as Record<string, unknown>)[key];
  }
  return Array.isArray(node) ? node : null;
}
