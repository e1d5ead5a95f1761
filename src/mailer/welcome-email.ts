// The texts of the emails to developers (their key, its coming end) and to
// operators (a signup). Plain text only: nothing to escape, nothing for a
// mail client to load.
import { formatTime } from '../lib/time-format.js';
import type { ApiUser } from '../api-users/model.js';
import type { KeyExamples } from '../signup/key-examples.js';
import type { OutgoingMail } from './mailer.js';

/** API Umbrella's subject, which tells the developer whose key it is among the sites they use. */
function welcomeSubject(site: SiteInfo): string {
  return `Your ${site.siteName} API key`;
}

export interface SiteInfo {
  readonly siteName: string;
  readonly contactUrl: string | null;
}

/**
 * The key and how to use it. Examples are left out when no trusted public URL
 * is known; `exampleApiUrl` (key filled in) is API Umbrella's example of a
 * signup API call's options.example_api_url.
 */
export function welcomeEmail(site: SiteInfo, user: ApiUser, apiKey: string, examples: KeyExamples | null, exampleApiUrl: string | null = null): OutgoingMail {
  const lines = [
    `Hello${user.first_name === null ? '' : ` ${user.first_name}`},`,
    '',
    `Thank you for signing up for ${site.siteName}. Your API key for ${user.email} is:`,
    '',
    `    ${apiKey}`,
    '',
    ...(exampleApiUrl === null
      ? []
      : ['You can start using this key to make web service requests. Simply pass your key in the URL when making a web request.', "Here's an example:", '', `    ${exampleApiUrl}`, '']),
    'Pass it with every request in one of three ways:',
    '',
    ...(examples === null
      ? ['  - the X-Api-Key header,', '  - the api_key query parameter,', '  - or as the username of HTTP Basic authentication (no password).']
      : [`  X-Api-Key header:     ${examples.header}`, `  api_key parameter:    ${examples.query}`, `  HTTP Basic username:  ${examples.basic}`]),
    '',
    ...contactLines(site),
  ];
  return { to: user.email, subject: welcomeSubject(site), text: `${lines.join('\n')}\n` };
}

/**
 * Sent instead of a new key when duplicate emails are not allowed and the
 * address already has one, so that the signup page itself reveals nothing.
 */
export function alreadyRegisteredEmail(site: SiteInfo, email: string): OutgoingMail {
  const lines = [
    'Hello,',
    '',
    `Someone, probably you, asked for an API key for ${email} at ${site.siteName}.`,
    'This address already has an API key, so no new key was made.',
    '',
    ...contactLines(site, 'If you have lost your key'),
  ];
  return { to: email, subject: welcomeSubject(site), text: `${lines.join('\n')}\n` };
}

/** API Umbrella's notice to the operators of a new signup; `adminUrl` is the user's page in the admin, when a public URL is known. */
export function signupNotice(to: string, site: SiteInfo, user: ApiUser, adminUrl: string | null): OutgoingMail {
  const name = [user.first_name, user.last_name].filter((part) => part !== null).join(' ') || user.email;
  const field = (label: string, value: string | null) => (value === null ? [] : [`${label}: ${value}`]);
  const lines = [
    `${name} just signed up for an API key at ${site.siteName}.`,
    '',
    ...field('Email', user.email),
    ...field('Website', user.website),
    ...field('How they will use the APIs', user.use_description),
    ...field('Signed up through', user.registration_source),
    ...field('User', adminUrl ?? user.id),
  ];
  return { to, subject: `${name} just subscribed`, text: `${lines.join('\n')}\n` };
}

/** Told once, mailer.key_expiry_notice_days before a key's expires_at. */
export function keyExpiryNotice(site: SiteInfo, user: ApiUser): OutgoingMail {
  const lines = [
    `Hello${user.first_name === null ? '' : ` ${user.first_name}`},`,
    '',
    `Your API key for ${user.email} at ${site.siteName} (${user.api_key_preview}) expires on ${formatTime(user.expires_at)}.`,
    'From then on, requests made with it are refused.',
    '',
    ...contactLines(site, 'If you still need access'),
  ];
  return { to: user.email, subject: 'Your API key expires soon', text: `${lines.join('\n')}\n` };
}

function contactLines(site: SiteInfo, lead = 'If you have questions'): string[] {
  return site.contactUrl === null ? [] : [`${lead}, contact us at ${site.contactUrl}.`];
}
