// An API backend as API Umbrella's admin API answers it: each settings (the
// backend's and each sub-URL setting's) with its headers and error data also
// as the text its admin edits (each error's data as YAML, keys sorted), and who created and last changed it by username (the
// admin's email, which Parasol records for backends).
import { stringify } from 'yaml';
import { headerLines, type ApiBackend, type ApiSettings, type ErrorDataValues } from '../api-backends/model.js';

export function apiBackendJson(api: ApiBackend) {
  return {
    ...api,
    creator: { username: api.created_by },
    updater: { username: api.updated_by },
    settings: settingsJson(api.settings),
    sub_settings: api.sub_settings.map((sub) => ({ ...sub, settings: settingsJson(sub.settings) })),
  };
}

function settingsJson(settings: ApiSettings) {
  return {
    ...settings,
    headers_string: headerLines(settings.headers),
    default_response_headers_string: headerLines(settings.default_response_headers),
    override_response_headers_string: headerLines(settings.override_response_headers),
    error_data_yaml_strings: Object.fromEntries(Object.entries(settings.error_data).map(([code, values]) => [code, yamlLines(values)])),
  };
}

function yamlLines(values: ErrorDataValues): string {
  return stringify(values, { sortMapEntries: true }).trimEnd();
}
