// As API Umbrella answers a PUT: a `settings` object changes the settings it
// names and keeps the others, so a script that sends only rate_limit_mode
// keeps the user's allowed_ips, and one that sends a backend's settings
// without its headers keeps them; each sub-URL setting's settings likewise,
// matched to the stored sub-setting by id. Each field named is replaced
// whole, a list too, and null clears it.
import type { ApiBackendConfig } from '../api-backends/model.js';
import { isPlainObject } from '../lib/validation-errors.js';

/** A user's changes with their settings over the stored ones. */
export function userChanges(stored: { readonly settings: object }, changes: unknown): unknown {
  if (!isPlainObject(changes) || !('settings' in changes)) return changes;
  return { ...changes, settings: settingsOver(stored.settings, changes.settings) };
}

/** A backend's changes with its settings, and each sub-URL setting's sent with its id, over the stored ones. */
export function backendChanges(stored: ApiBackendConfig, changes: unknown): unknown {
  if (!isPlainObject(changes)) return changes;
  const merged: Record<string, unknown> = { ...changes };
  if ('settings' in changes) merged.settings = settingsOver(stored.settings, changes.settings);
  if (Array.isArray(changes.sub_settings)) {
    merged.sub_settings = changes.sub_settings.map((sub: unknown) => {
      if (!isPlainObject(sub) || !('settings' in sub)) return sub;
      const storedSub = stored.sub_settings.find((candidate) => candidate.id === sub.id);
      return storedSub === undefined ? sub : { ...sub, settings: settingsOver(storedSub.settings, sub.settings) };
    });
  }
  return merged;
}

function settingsOver(stored: object, sent: unknown): unknown {
  return isPlainObject(sent) ? { ...stored, ...sent } : sent;
}
