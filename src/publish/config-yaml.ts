// A backend's config as YAML, as API Umbrella's pending changes show it
// (pending_yaml, active_yaml) for a reader to compare: keys sorted, without
// the bookkeeping and embedded ids the diff ignores (canonicalJson), and
// without what is unset (null, empty lists and objects), so that it shows
// what the backend does. No document markers ("---"), and list items at their
// key's column ("servers:\n- host: …"), as API Umbrella's YAML lays them out.
import { stringify } from 'yaml';
import type { ApiBackend } from '../api-backends/model.js';
import { canonicalJson } from './pending-changes.js';

/** Backends are never changed in place: each one's YAML is made once. */
const yamlOf = new WeakMap<ApiBackend, string>();

export function configYaml(api: ApiBackend): string {
  let yaml = yamlOf.get(api);
  if (yaml === undefined) {
    yaml = stringify(withoutUnset(JSON.parse(canonicalJson(api)) as unknown) ?? {}, { indentSeq: false });
    yamlOf.set(api, yaml);
  }
  return yaml;
}

/** The value without null, empty lists and empty objects, at any depth; undefined when nothing is left. */
function withoutUnset(value: unknown): unknown {
  if (value === null) return undefined;
  if (Array.isArray(value)) {
    const items = value.map(withoutUnset).filter((item) => item !== undefined);
    return items.length === 0 ? undefined : items;
  }
  if (typeof value !== 'object') return value;
  const entries = Object.entries(value).flatMap(([key, field]) => {
    const kept = withoutUnset(field);
    return kept === undefined ? [] : [[key, kept] as const];
  });
  return entries.length === 0 ? undefined : Object.fromEntries(entries);
}
