// The mail a contact message becomes, as API Umbrella's contact mailer writes
// it: to the operators, replies going to the sender. Plain text only.
import type { OutgoingMail } from './mailer.js';

/** What a contact form sends; every field checked (see contact/contact-message.ts), the one-line ones free of line breaks. */
export interface ContactMessage {
  readonly name: string;
  readonly email: string;
  readonly api: string;
  readonly subject: string;
  readonly message: string;
}

const RULE = '-------------------------------------';

export function contactEmail(to: string, siteName: string, contact: ContactMessage): OutgoingMail {
  const lines = [`Name: ${contact.name}`, `Email: ${contact.email}`, `API: ${contact.api}`, `Subject: ${contact.subject}`, '', RULE, '', contact.message, '', RULE];
  return { to, replyTo: contact.email, subject: `${oneLine(siteName)} Contact Message from ${contact.email}`, text: `${lines.join('\n')}\n` };
}

/** site_name is the operator's, but a header it still must not break. */
function oneLine(text: string): string {
  return text.replace(/[\r\n]+/g, ' ');
}
