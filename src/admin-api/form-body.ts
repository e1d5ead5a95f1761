// Form bodies for the admin API, read as API Umbrella's Rails admin reads
// them: bracketed names nest (api[servers][0][host]=…), numbered rows and
// repeated "name[]" fields become lists, so that a form says what the same
// JSON says.
import { parse as parseQueryString } from 'node:querystring';
import { decodeNestedForm, type FormValue } from '../lib/nested-form.js';

export function parseFormBody(text: string): Record<string, unknown> {
  return listsOf(decodeNestedForm(numberedRepeats(parseQueryString(text)))) as Record<string, unknown>;
}

/** "roles[]=a&roles[]=b" as "roles[0]=a&roles[1]=b". */
function numberedRepeats(fields: Record<string, string | string[] | undefined>): Record<string, string> {
  const numbered: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [name, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    if (name.endsWith('[]')) [value].flat().forEach((item, index) => (numbered[`${name.slice(0, -2)}[${index}]`] = item));
    else numbered[name] = Array.isArray(value) ? value[value.length - 1]! : value;
  }
  return numbered;
}

/** A group whose keys are all row numbers is a list, in number order. */
function listsOf(value: FormValue): unknown {
  if (typeof value === 'string') return value;
  const keys = Object.keys(value);
  const converted = keys.map((key) => listsOf(value[key]!));
  if (keys.length > 0 && keys.every((key) => /^\d+$/.test(key))) return converted;
  return Object.fromEntries(keys.map((key, index) => [key, converted[index]]));
}
