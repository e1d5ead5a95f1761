// Admin accounts with their admin groups, checked, added, changed and deleted
// the same way from the web admin's Admin Accounts and the admin API, with
// API Umbrella's messages (My Account and the first admin's sign-up share the
// email and password checks); what only the store can tell for sure (the last
// superuser, an email another creation took while the password was hashed)
// comes back as 422 field errors.
import type { ManagePolicy } from '../admin-groups/manage-policy.js';
import type { AppContext } from '../context.js';
import { isEmailAddress } from '../lib/email-address.js';
import type { FieldErrors, Parsed } from '../lib/validation-errors.js';
import { passwordProblem } from './password.js';
import { EmailTakenError, LastSuperuserError, type Admin } from './repository.js';

type Stores = Pick<AppContext, 'admins' | 'adminGroups'>;

/** What a change names; an absent field stays as it is. */
export interface AccountChanges {
  readonly email?: string;
  readonly superuser?: boolean;
  readonly enabled?: boolean;
  readonly group_ids?: readonly string[];
  /** API Umbrella's free texts (the admin API's; the web form leaves them as they are). */
  readonly name?: string | null;
  readonly notes?: string | null;
}

export interface NewAccount extends Required<Omit<AccountChanges, 'name' | 'notes'>>, Pick<AccountChanges, 'name' | 'notes'> {
  /** null: none (the admin API's create without one), so no web sign-in until one is set. */
  readonly password: string | null;
}

/** API Umbrella's rule and words (under "groups"): an admin who is no superuser belongs to a group. */
export const GROUPS_NEEDED = 'must belong to at least one group or be a superuser';

export function emailProblem(email: string): string | null {
  if (email === '') return "can't be blank";
  if (email.length > 255) return 'is too long (maximum is 255 characters)';
  return isEmailAddress(email) ? null : 'is invalid';
}

/**
 * Field errors for a new password and its confirmation (undefined: not asked
 * for, as the admin API may leave it out), both at once. The mismatch names
 * the password's field as its form labels it (API Umbrella's "Password";
 * "New Password" on the pages that set one).
 */
export function newPasswordErrors(password: string, confirmation: string | undefined, minLength: number, passwordLabel = 'Password'): FieldErrors {
  const problem = passwordProblem(password, minLength);
  return {
    ...(problem === null ? {} : { password: [problem] }),
    ...(confirmation === undefined || confirmation === password ? {} : { password_confirmation: [`doesn't match ${passwordLabel}`] }),
  };
}

/**
 * Errors in the email and groups a change names, and in what the account
 * becomes; target: the account changed, null for a new one (whose email may
 * be no one's).
 */
export function accountErrors(stores: Stores, changes: AccountChanges, target: Admin | null): FieldErrors {
  return {
    ...(changes.email === undefined ? {} : emailErrors(stores, changes.email, target)),
    ...(changes.group_ids === undefined ? {} : groupErrors(stores, changes.group_ids)),
    ...(changes.name === undefined || changes.name === null || changes.name.length <= NAME_MAX ? {} : { name: [`is too long (maximum is ${NAME_MAX} characters)`] }),
    ...lastSuperuserErrors(stores, changes, target),
    ...membershipErrors(stores, changes, target),
  };
}

/**
 * Whether the admin of `policy` manages `target` as it is: a superuser every
 * account; an admin holding admin_manage one who is not a superuser and is
 * in groups (one at least) wholly within their admin_manage scopes.
 */
export function managesAccount(stores: Stores, policy: ManagePolicy, target: Admin): boolean {
  return policy.managesAdmin(target, stores.adminGroups.groupIdsOf(target.id));
}

/** Whether they may make an account with `changes` (target null) or change one they manage so: what it becomes must be theirs to manage too. */
export function mayBecomeAccount(stores: Stores, policy: ManagePolicy, target: Admin | null, changes: AccountChanges): boolean {
  if (policy.superuser) return true;
  const groups = changes.group_ids ?? (target === null ? [] : stores.adminGroups.groupIdsOf(target.id));
  return policy.managesAdmin({ superuser: changes.superuser ?? target?.superuser ?? false }, groups);
}

/** For an account accountErrors and newPasswordErrors passed: the admin and their clear API token (errors if another creation took the email meanwhile). */
export async function createAccount(stores: Stores, account: NewAccount): Promise<Parsed<{ admin: Admin; authToken: string }>> {
  try {
    const created = (await stores.admins.create(account))!;
    stores.adminGroups.setGroupsOf(created.admin.id, account.group_ids);
    return { ok: true, value: created };
  } catch (error) {
    if (!(error instanceof EmailTakenError)) throw error;
    return { ok: false, errors: { email: [error.message] } };
  }
}

/** null when there is no such account; the last enabled superuser stays one (errors under "superuser", groups unchanged). */
export function updateAccount(stores: Stores, id: string, changes: AccountChanges): Parsed<Admin> | null {
  const { group_ids: groupIds, ...account } = changes;
  const updated = unlessLastSuperuser('superuser', () => stores.admins.update(id, account));
  if (!updated.ok) return updated;
  if (updated.value === null) return null;
  if (groupIds !== undefined) stores.adminGroups.setGroupsOf(id, groupIds);
  return { ok: true, value: updated.value };
}

/** value: whether there was such an account; the last enabled superuser stays (errors under "base"). */
export function deleteAccount(stores: Stores, id: string): Parsed<boolean> {
  return unlessLastSuperuser('base', () => stores.admins.delete(id));
}

function unlessLastSuperuser<T>(field: string, change: () => T): Parsed<T> {
  try {
    return { ok: true, value: change() };
  } catch (error) {
    if (!(error instanceof LastSuperuserError)) throw error;
    return { ok: false, errors: { [field]: [error.message] } };
  }
}

const NAME_MAX = 255;

/**
 * As in API Umbrella, an admin who is no superuser is in one group at least:
 * a new one, and one a change would leave in none (not being a superuser
 * any more, or losing the last group). An admin already in no group (left so
 * by an older Parasol, or by deleting their only group) may still be changed
 * otherwise, disabled say, without first being put in a group.
 */
function membershipErrors(stores: Stores, changes: AccountChanges, target: Admin | null): FieldErrors {
  const groupsOf = (admin: Admin) => stores.adminGroups.groupIdsOf(admin.id);
  const superuser = changes.superuser ?? target?.superuser ?? false;
  const groups = changes.group_ids ?? (target === null ? [] : groupsOf(target));
  if (superuser || groups.length > 0) return {};
  const hadOne = target === null || target.superuser || groupsOf(target).length > 0;
  return hadOne ? { groups: [GROUPS_NEEDED] } : {};
}

/** Told with the other errors (the store checks again when it saves, in case another admin changed meanwhile). */
function lastSuperuserErrors(stores: Stores, changes: AccountChanges, target: Admin | null): FieldErrors {
  if (target === null || (changes.superuser !== false && changes.enabled !== false)) return {};
  return stores.admins.isLastSuperuser(target.id) ? { superuser: [new LastSuperuserError().message] } : {};
}

function emailErrors(stores: Stores, email: string, target: Admin | null): FieldErrors {
  const problem = emailProblem(email);
  if (problem !== null) return { email: [problem] };
  const holder = stores.admins.findByEmail(email);
  return holder !== null && holder.id !== target?.id ? { email: ['has already been taken'] } : {};
}

function groupErrors(stores: Stores, groupIds: readonly string[]): FieldErrors {
  const known = new Set(stores.adminGroups.listGroups().map((group) => group.id));
  const unknown = groupIds.filter((id) => !known.has(id));
  return unknown.length === 0 ? {} : { group_ids: unknown.map((id) => `contains "${id}", which is no admin group`) };
}
