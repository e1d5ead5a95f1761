// A change the admin's groups refuse, as errors on the backend form's fields
// (re-rendered with a 422), so the admin sees what to change without losing
// what they typed.
import { forbiddenMessage, type AdminAccess } from '../../admin-groups/admin-access.js';
import type { BackendRefusal } from '../../admin-groups/backend-policy.js';
import { refusedRolesMessage } from '../../admin-groups/role-policy.js';
import type { FieldErrors } from '../../lib/validation-errors.js';

export function refusalErrors(refusal: BackendRefusal, access: AdminAccess): FieldErrors {
  switch (refusal.reason) {
    // The pages refuse another team's backend before its form; this is the moment it moved out of reach.
    case 'not_theirs':
      return { base: [forbiddenMessage(access)] };
    case 'outside':
      return outsideErrors(refusal.urlMatches, access);
    case 'roles':
      return { 'settings.required_roles': [refusedRolesMessage(refusal.roles)] };
  }
}

/** The rule and the admin's scopes once, above the URL prefixes; each prefix out of reach marked. */
function outsideErrors(urlMatches: readonly number[], access: AdminAccess): FieldErrors {
  const scopes = access.areas('backend_manage').join(', ');
  const errors: FieldErrors = {
    url_matches: [`This API backend must lie within your API scopes (${scopes}): its Frontend Host must be a scope's host, and each Frontend Prefix must start with that scope's path.`],
  };
  for (const index of urlMatches) errors[`url_matches[${index}].frontend_prefix`] = ['is outside your API scopes'];
  return errors;
}
