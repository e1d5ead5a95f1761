// Actions that cannot be undone from one click (a rollback, a new API key or
// Admin API Token, ending a previous key early) ask first. parasol.js asks
// with window.confirm and then posts confirmed=1; without JavaScript the post
// comes without it, and gets a page that asks, its form posting the same
// fields again with confirmed=1.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { formString, formStrings } from './account-fields.js';
import { renderAdminPage, type NavSection } from './page.js';

export interface ActionQuestion {
  /** The page's heading, e.g. "Roll back to version 3?". */
  readonly question: string;
  /** What the action does, a paragraph each. */
  readonly consequences: readonly string[];
  /** The label of the button that acts. */
  readonly button: string;
  /** Where the breadcrumb and Cancel lead: the page the action was asked from. */
  readonly back: { readonly href: string; readonly label: string };
  readonly section: NavSection;
}

/** The same question in parasol.js's dialog (the form's data-confirm), so that the dialog and the page cannot drift apart. */
export function confirmPrompt({ question, consequences }: ActionQuestion): string {
  return [question, ...consequences].join(' ');
}

/** Fields of the posted form not carried over to the confirmation's form: it has its own token, and its own yes. */
const NOT_CARRIED = new Set(['_csrf', 'confirmed']);

/** Whether the admin already said yes: in parasol.js's dialog or on the page askToConfirm renders. */
export function isConfirmed(request: FastifyRequest): boolean {
  return formString(request.body, 'confirmed') === '1';
}

/** The page asking `question`, whose form posts the request's fields again, confirmed, to the same address. */
export function askToConfirm(context: AppContext, reply: FastifyReply, question: ActionQuestion): Promise<FastifyReply> {
  const { request } = reply;
  const names = typeof request.body === 'object' && request.body !== null ? Object.keys(request.body) : [];
  const carried = names.filter((name) => !NOT_CARRIED.has(name)).flatMap((name) => formStrings(request.body, name).map((value) => ({ name, value })));
  const fields = [...carried, { name: 'confirmed', value: '1' }];
  return renderAdminPage(context, reply, 'admin/confirm-action', { title: question.question, ...question, action: request.url, fields });
}
