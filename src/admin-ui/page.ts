// Renders an admin page inside the shared layout with what every page shows:
// the navigation, the signed-in admin, the unpublished-changes counter, the
// one-shot flash message and a CSRF token for its forms; and helpers its
// template may call (times, long texts, the gateway's curl examples).
import type { FastifyReply } from 'fastify';
import type { AdminAccess } from '../admin-groups/admin-access.js';
import { ADMIN_READERS } from '../admin-groups/admin-visibility.js';
import { accessOf } from '../admin-groups/request-access.js';
import type { AppContext } from '../context.js';
import { pendingChangesFor } from '../publish/admin-changes.js';
import type { Publisher } from '../publish/publisher.js';
import { curlExamples } from './curl-examples.js';
import { takeFlash } from './flash.js';
import { shortText } from '../lib/short-text.js';
import { formatTime } from '../lib/time-format.js';

/** Which menu entry is highlighted. */
export type NavSection = 'apis' | 'publish' | 'analytics' | 'api_users' | 'admins' | 'account' | null;

export interface PageData {
  readonly title: string;
  readonly section?: NavSection;
  readonly [key: string]: unknown;
}

/** The changes waiting to be published that the admin may publish (every one for a superuser). */
export function unpublishedCount(publisher: Publisher, access: AdminAccess): number {
  const changes = pendingChangesFor(publisher, access);
  return changes.new.length + changes.modified.length + changes.deleted.length;
}

/** `template` is a path under views/ without extension, e.g. "admin/apis/index"; it declares `layout('/layout')`. */
export async function renderAdminPage(context: AppContext, reply: FastifyReply, template: string, data: PageData, status = 200): Promise<FastifyReply> {
  const { request } = reply;
  const admin = request.admin ?? null;
  const html = await reply.viewAsync(template, {
    section: null,
    path: request.url.split('?')[0],
    // A page may show times its own way (analytics' pages, in analytics.timezone).
    formatTime,
    shortText,
    ...data,
    admin,
    menu: admin === null ? null : menuOf(accessOf(context, request)),
    csrfToken: reply.generateCsrf(),
    flash: takeFlash(request, reply),
    pendingCount: admin === null ? 0 : unpublishedCount(context.publisher, accessOf(context, request)),
    curlExamples: curlExamples(context, request),
  });
  return reply.code(status).type('text/html; charset=utf-8').send(html);
}

/** Which entries of the menu the admin may open. */
export interface AdminMenu {
  readonly apis: boolean;
  readonly publish: boolean;
  readonly analytics: boolean;
  readonly apiUsers: boolean;
  readonly admins: boolean;
  /** API scopes and admin groups: superusers, admin_manage holders, and admin_view holders (read-only). */
  readonly permissions: boolean;
}

export function menuOf(access: AdminAccess): AdminMenu {
  return {
    apis: access.has('backend_manage'),
    publish: access.has('backend_publish'),
    analytics: access.has('analytics'),
    apiUsers: access.has('user_view', 'user_manage'),
    admins: access.has(...ADMIN_READERS),
    permissions: access.has(...ADMIN_READERS),
  };
}

/** Where /admin/ leads: the first part of the admin the admin may open, or My Account when none. */
export function startPath(access: AdminAccess): string {
  const menu = menuOf(access);
  if (menu.apis) return '/admin/apis';
  if (menu.analytics) return '/admin/analytics/logs';
  if (menu.apiUsers) return '/admin/api_users';
  if (menu.publish) return '/admin/config/publish';
  if (menu.admins) return '/admin/admins';
  return '/admin/account';
}

export interface ErrorPageData {
  readonly title: string;
  readonly message: string;
  readonly section?: NavSection;
  /** Where the page's one button leads; the admin's start page by default. */
  readonly backHref?: string;
  readonly backLabel?: string;
}

export function renderErrorPage(context: AppContext, reply: FastifyReply, status: number, data: ErrorPageData): Promise<FastifyReply> {
  return renderAdminPage(context, reply, 'admin/error', { ...data }, status);
}
