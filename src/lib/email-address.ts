// The one test of an email address's form that every input shares: an admin's,
// an API user's and the configured contact address.
// One @; before it anything but spaces, control characters and the <>"\ that
// would end or escape a quoted mailbox (a comma or semicolon there is sent
// quoted, as the one address it is); after it a host name with a dot, its
// labels letters, digits and hyphens (any script's letters, for IDN): what a
// person can type and a mail server accept, where "a@x.com;y" or "a>b@x.com"
// were taken and then refused by the server (501) or rewritten into another mailbox.
const LABEL = '[\\p{L}\\p{N}]([\\p{L}\\p{N}-]*[\\p{L}\\p{N}])?';
const EMAIL = new RegExp(`^[^@\\s\\p{Cc}<>"\\\\]+@${LABEL}(\\.${LABEL})+$`, 'u');

export function isEmailAddress(value: string): boolean {
  return EMAIL.test(value);
}

/** The address of a sender as mail headers take it: "Name <address>", or a bare address. */
export function mailboxAddress(mailbox: string): string {
  return (/<([^<>]*)>\s*$/.exec(mailbox)?.[1] ?? mailbox).trim();
}
