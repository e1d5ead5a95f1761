// The one test of an email address's form that every input shares: an admin's,
// an API user's and the configured contact address.
// One @, a dot in the domain, no spaces: what a person can type and a mail server accept.
const EMAIL = /^[^@\s]+@[^@\s.]+(\.[^@\s.]+)+$/;

export function isEmailAddress(value: string): boolean {
  return EMAIL.test(value);
}

/** The address of a sender as mail headers take it: "Name <address>", or a bare address. */
export function mailboxAddress(mailbox: string): string {
  return (/<([^<>]*)>\s*$/.exec(mailbox)?.[1] ?? mailbox).trim();
}
