// Admin groups in the web admin: the page that refuses an action, and the
// guard that gives it to admins lacking a permission.
import type { FastifyReply, preHandlerAsyncHookHandler } from 'fastify';
import { forbiddenMessage } from '../admin-groups/admin-access.js';
import type { Permission } from '../admin-groups/model.js';
import { accessOf } from '../admin-groups/request-access.js';
import type { AppContext } from '../context.js';
import { renderErrorPage, type ErrorPageData } from './page.js';

type Back = Pick<ErrorPageData, 'backHref' | 'backLabel' | 'section'>;

/** 403 in the admin's layout, naming where the admin may act (or `message`, when more precise). */
export function renderForbiddenPage(context: AppContext, reply: FastifyReply, back: Back, message = forbiddenMessage(accessOf(context, reply.request))): Promise<FastifyReply> {
  return renderErrorPage(context, reply, 403, { title: 'Not authorized', message, ...back });
}

/** preHandler for admin pages: the 403 page unless the admin holds one of the permissions in some scope. */
export function requirePagePermission(context: AppContext, back: Back, ...permissions: Permission[]): preHandlerAsyncHookHandler {
  return async (request, reply) => {
    if (!accessOf(context, request).has(...permissions)) return renderForbiddenPage(context, reply, back);
  };
}
