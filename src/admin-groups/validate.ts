// API scope and admin group input, with API Umbrella's field names and
// messages (422 {"errors": {field: [message]}}).
import { BLANK, FRONTEND_HOST, HOST_FORMAT, isHost, isWildcardHost, stringList } from '../api-backends/validate.js';
import { ErrorCollector, isPlainObject, requiredText, stringListField, type Parsed } from '../lib/validation-errors.js';
import { isPermission, PERMISSION_IDS, VIEW_OF_MANAGE, type AdminGroupInput, type ApiScopeInput, type Permission } from './model.js';

const NAME_MAX = 255;

export function parseApiScope(raw: unknown): Parsed<ApiScopeInput> {
  const input = isPlainObject(raw) ? raw : {};
  const errors = new ErrorCollector();
  const name = checkedName(input.name, errors);
  const host = requiredText(input.host, 'host', errors, BLANK)?.toLowerCase() ?? '';
  if (host !== '') checkScopeHost(host, errors);
  const pathPrefix = requiredText(input.path_prefix, 'path_prefix', errors, BLANK) ?? '';
  if (pathPrefix !== '' && !pathPrefix.startsWith('/')) errors.add('path_prefix', 'must start with "/"');
  return errors.isEmpty ? { ok: true, value: { name, host, path_prefix: pathPrefix } } : { ok: false, errors: errors.errors };
}

function checkScopeHost(host: string, errors: ErrorCollector): void {
  if (!isHost(host, FRONTEND_HOST)) errors.add('host', HOST_FORMAT);
  // A wildcard backend takes requests for other hosts too (the gateway picks the longest prefix across host patterns): superusers' alone.
  else if (isWildcardHost(host)) errors.add('host', 'must name one host, without wildcards: API backends on a wildcard host are managed by superusers');
}

/** `knownScopeIds`: the scopes that exist, so a group never points at none. */
export function parseAdminGroup(raw: unknown, knownScopeIds: ReadonlySet<string>): Parsed<AdminGroupInput> {
  const input = isPlainObject(raw) ? raw : {};
  const errors = new ErrorCollector();
  const name = checkedName(input.name, errors);
  // A blank list is named by the association, as API Umbrella's error_field names it; the other rules by the ids.
  const scopeIds = [...new Set(stringListField(input.api_scope_ids, 'api_scope_ids', errors))];
  if (scopeIds.length === 0 && !errors.has('api_scope_ids')) errors.add('api_scopes', BLANK);
  for (const id of scopeIds) if (!knownScopeIds.has(id)) errors.add('api_scope_ids', `contains "${id}", which is no API scope`);
  const permissionIds = [...new Set(stringListField(input.permission_ids, 'permission_ids', errors))];
  if (permissionIds.length === 0 && !errors.has('permission_ids')) errors.add('permissions', BLANK);
  for (const id of permissionIds) if (!isPermission(id)) errors.add('permission_ids', `contains "${id}", which is not one of ${PERMISSION_IDS.join(', ')}`);
  // API Umbrella's rule and words: managing comes with viewing.
  for (const { manage, view } of VIEW_OF_MANAGE) {
    if (permissionIds.includes(manage) && !permissionIds.includes(view)) errors.add('permission_ids', `${view} permission must be included if ${manage} is enabled`);
  }
  if (!errors.isEmpty) return { ok: false, errors: errors.errors };
  return { ok: true, value: { name, api_scope_ids: scopeIds, permission_ids: permissionIds as Permission[] } };
}

function checkedName(raw: unknown, errors: ErrorCollector): string {
  const name = requiredText(raw, 'name', errors, BLANK) ?? '';
  if (name.length > NAME_MAX) errors.add('name', `is too long (maximum is ${NAME_MAX} characters)`);
  return name;
}

/** A JSON list, a comma-separated string, or form rows ({"0": "a", "1": "b"}). */
export function listOf(raw: unknown): string[] {
  return stringList(isPlainObject(raw) ? Object.values(raw) : raw);
}
