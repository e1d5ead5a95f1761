// Renders an admin page inside the shared layout with what every page shows:
// the navigation, the signed-in admin, the unpublished-changes counter, the
// one-shot flash message and a CSRF token for its forms.
import type { FastifyReply } from 'fastify';
import type { AppContext } from '../context.js';
import type { Publisher } from '../publish/publisher.js';
import { takeFlash } from './flash.js';
import { formatTime } from '../lib/time-format.js';

/** Which menu entry is highlighted. */
export type NavSection = 'apis' | 'publish' | 'analytics' | 'api_users' | 'admins' | 'account' | null;

export interface PageData {
  readonly title: string;
  readonly section?: NavSection;
  readonly [key: string]: unknown;
}

export function unpublishedCount(publisher: Publisher): number {
  const changes = publisher.pendingChanges();
  return changes.new.length + changes.modified.length + changes.deleted.length;
}

/** `template` is a path under views/ without extension, e.g. "admin/apis/index"; it declares `layout('/layout')`. */
export async function renderAdminPage(context: AppContext, reply: FastifyReply, template: string, data: PageData, status = 200): Promise<FastifyReply> {
  const { request } = reply;
  const admin = request.admin ?? null;
  const html = await reply.viewAsync(template, {
    section: null,
    ...data,
    admin,
    csrfToken: reply.generateCsrf(),
    flash: takeFlash(request, reply),
    pendingCount: admin === null ? 0 : unpublishedCount(context.publisher),
    formatTime,
  });
  return reply.code(status).type('text/html; charset=utf-8').send(html);
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
