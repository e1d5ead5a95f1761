// The roles in use, named under the forms' Roles fields as API Umbrella's
// forms offer them: a mistyped role would otherwise become a new one that no
// backend requires and no user holds, without a word.

/** Enough to recognise a team's roles; a longer list is counted. */
const MAX_SHOWN = 30;

/** " In use: a, b, c." for a field's help; "" when no role is in use. */
export function rolesInUseHint(roles: readonly string[]): string {
  if (roles.length === 0) return '';
  const shown = roles.slice(0, MAX_SHOWN);
  const more = roles.length - shown.length;
  return ` In use: ${shown.join(', ')}${more > 0 ? `, and ${more} more` : ''}.`;
}
