// The page at "/" when no backend claims it: what this gateway is, how to get
// a key and how to pass it, in the same look as the signup and admin pages.
// Operators may serve their own HTML file instead (homepage.file).
//
// The gateway's scope has no @fastify/view or helmet (proxied responses must
// stay untouched), so the page renders with its own Eta instance over the
// same views/ and sets its security headers itself.
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { Eta } from 'eta';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ConfigValueError } from '../config/load.js';
import type { AppContext } from '../context.js';
import { contactUrl } from '../contact/contact-url.js';
import { packagePath } from '../lib/package-path.js';
import { baseUrl } from '../lib/base-url.js';
import { keyExamples } from '../signup/key-examples.js';
import { keysGoByEmailOnly } from '../signup/signups.js';
import { unreadableFile } from '../config/messages.js';
import { linkedAssetsVersion } from '../web/asset-version.js';

export type HomepageHandler = (request: FastifyRequest, reply: FastifyReply) => FastifyReply;

export const KEY_PLACEHOLDER = 'YOUR_API_KEY';

// What the web pages' helmet sends; the default homepage loads only its own assets.
const BUILT_IN_HEADERS = {
  'content-security-policy':
    "default-src 'self';base-uri 'self';form-action 'self';frame-ancestors 'none';img-src 'self' data:;object-src 'none';script-src 'self';style-src 'self'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};
// An operator's page may load scripts and styles from anywhere they choose, so it gets no CSP.
const OPERATOR_FILE_HEADERS = { 'x-frame-options': 'DENY', 'x-content-type-options': 'nosniff' };

/** Reads homepage.file once, at start: a missing file stops start-up with a clear message. */
export async function homepageHandler(context: AppContext): Promise<HomepageHandler> {
  const { file } = context.config.homepage;
  if (file !== null) {
    const html = await readOperatorFile(file);
    return (_request, reply) => sendHtml(reply, OPERATOR_FILE_HEADERS, html);
  }
  const eta = new Eta({ views: packagePath('views'), cache: true });
  return (request, reply) => {
    const examples = keyExamples(baseUrl(context.config, request), KEY_PLACEHOLDER, context.publisher.current);
    return sendHtml(reply, BUILT_IN_HEADERS, eta.render('home/index', {
        title: 'Home',
        siteName: context.config.site_name,
        contactUrl: contactUrl(context.config, ''),
        assetVersion: linkedAssetsVersion(),
        examples,
        keyPlaceholder: KEY_PLACEHOLDER,
        keyByEmail: keysGoByEmailOnly(context.config),
      }));
  };
}

async function readOperatorFile(file: string): Promise<string> {
  try {
    return await readFile(resolve(file), 'utf8');
  } catch (error) {
    throw new ConfigValueError(['homepage.file'], unreadableFile('homepage.file', file, error));
  }
}

function sendHtml(reply: FastifyReply, headers: Record<string, string>, html: string): FastifyReply {
  return reply.headers(headers).type('text/html; charset=utf-8').send(html);
}
