// What the operator should hear of once, at start, in the log: settings
// and accounts that work but leave something open or unusable.
import type { AppContext } from './context.js';

/** Each warning that applies, once; `url` is where the plain listener answers. */
export function warnAtStart(context: Pick<AppContext, 'adminGroups' | 'admins' | 'logger' | 'config'>, url: string): void {
  warnOfNoAdminYet(context, url);
  warnOfAdminsWithoutGroups(context);
  warnOfSharedAdminOrigin(context);
}

/**
 * Until the first admin account exists, whoever opens /admin/ first creates
 * it (a superuser), as in API Umbrella: said at every start until then, so
 * the operator takes it before someone else does.
 */
export function warnOfNoAdminYet(context: Pick<AppContext, 'admins' | 'logger'>, url: string): void {
  if (context.admins.count() > 0) return;
  context.logger.warn(
    { setup_url: `${url}/admin/` },
    'no admin account yet: whoever opens /admin/ first creates the superuser; open it now, or create one with parasol admins create',
  );
}

/**
 * Admins who are not superusers act only through admin groups; after an
 * upgrade from a Parasol without them, those in no group can do nothing but
 * sign in. Said once at start, so the operator learns it from the log
 * rather than from the admins.
 */
export function warnOfAdminsWithoutGroups(context: Pick<AppContext, 'adminGroups' | 'logger'>): void {
  const admins = context.adminGroups.emailsOfAdminsWithoutGroups();
  if (admins.length === 0) return;
  context.logger.warn({ admins }, 'admins who are not superusers and in no admin group can only sign in: add them to one (Users > Admin Groups, Admin Accounts)');
}

/**
 * A team admin who may point a backend at their own server and publish it
 * serves pages on the web admin's origin while the admin answers on every
 * host: such a page's script, opened by a signed-in superuser, acts as them.
 * Said once at start, naming the groups, while admin.hosts is empty.
 */
export function warnOfSharedAdminOrigin(context: Pick<AppContext, 'adminGroups' | 'logger' | 'config'>): void {
  if (context.config.admin.hosts.length > 0) return;
  const groups = context.adminGroups
    .listGroups()
    .filter((group) => group.permission_ids.includes('backend_manage') || group.permission_ids.includes('backend_publish'))
    .map((group) => group.name);
  if (groups.length === 0) return;
  context.logger.warn(
    { groups },
    "the web admin shares its origin with the proxied APIs, and these admin groups grant backend_manage or backend_publish: a page from a team admin's backend could act as a signed-in superuser; set admin.hosts to serve the admin on a host of its own",
  );
}
