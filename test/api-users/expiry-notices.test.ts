// Users told by email, once, that their key ends soon: a real store, a real
// SMTP server on loopback, and a clock the test moves.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KeyExpiryNotices } from '../../src/api-users/expiry-notices.js';
import { createContext, type AppContext } from '../../src/context.js';
import { ManualClock } from '../../src/lib/clock.js';
import { DAY_MS } from '../../src/lib/iso-instant.js';
import { createMailer, type Mailer } from '../../src/mailer/mailer.js';
import { siteInfo } from '../../src/signup/signups.js';
import { testConfig } from '../helpers/config.js';
import { apiUserInput } from '../helpers/users.js';
import { startLocalSmtp, type LocalSmtp, type LocalSmtpOptions } from '../mailer/local-smtp.js';

const NOW = Date.UTC(2027, 0, 1, 9);
const clock = new ManualClock(NOW);
let smtp: LocalSmtp;
let context: AppContext;
let mailer: Mailer;
let notices: KeyExpiryNotices;

beforeEach(() => start());

async function start(smtpOptions: LocalSmtpOptions = {}): Promise<void> {
  clock.set(NOW);
  smtp = await startLocalSmtp(smtpOptions);
  const config = testConfig({ site_name: 'Weather API', contact_url: 'https://weather.example/help', mailer: { smtp: { host: '127.0.0.1', port: smtp.port } } });
  context = createContext(config, { clock });
  mailer = createMailer(config, context.logger)!;
  notices = new KeyExpiryNotices({ users: context.users, mailer, site: siteInfo(config), clock, logger: context.logger, noticeDays: 7 });
}

afterEach(() => stop());

async function stop(): Promise<void> {
  await notices.stop();
  mailer.close();
  context.close();
  await smtp.close();
}

const endingIn = (days: number) => new Date(NOW + days * DAY_MS).toISOString();
const addUser = (email: string, expiresAt: string | null, enabled = true) =>
  context.users.create(apiUserInput({ email, first_name: 'Ada', expires_at: expiresAt, enabled }), 'test').user;

describe('key expiry notices', () => {
  it('tells the users whose key ends within the notice days, once, and no one else', async () => {
    const soon = addUser('soon@example.com', endingIn(3));
    addUser('later@example.com', endingIn(8));
    addUser('passed@example.com', endingIn(-1));
    addUser('disabled@example.com', endingIn(2), false);
    addUser('never@example.com', null);
    expect(await notices.sendDue()).toBe(1);
    const [mail] = await smtp.mails(1);
    expect(mail!.to).toEqual(['soon@example.com']);
    expect(mail!.subject).toBe('Your API key expires soon');
    expect(mail!.text).toContain(`Your API key for soon@example.com at Weather API (${soon.api_key_preview}) expires on 2027-01-04 09:00 UTC.`);
    expect(mail!.text).toContain('If you still need access, contact us at https://weather.example/help.');
    expect(await notices.sendDue()).toBe(0);
    // Two days on, the later one is due too; the first is not told again.
    clock.set(NOW + 2 * DAY_MS);
    expect(await notices.sendDue()).toBe(1);
    expect((await smtp.mails(2)).map((received) => received.to[0])).toEqual(['soon@example.com', 'later@example.com']);
  });

  it('tells a user again when an operator moves the end, and not when the end stays', async () => {
    const user = addUser('moved@example.com', endingIn(1));
    expect(await notices.sendDue()).toBe(1);
    context.users.update(user.id, apiUserInput({ email: 'moved@example.com', first_name: 'Ada', expires_at: endingIn(5) }), null);
    expect(await notices.sendDue()).toBe(1);
    expect((await smtp.mails(2))[1]!.text).toContain('expires on 2027-01-06 09:00 UTC');
    context.users.update(user.id, apiUserInput({ email: 'moved@example.com', first_name: 'Eve', expires_at: endingIn(5) }), null);
    expect(await notices.sendDue()).toBe(0);
  });

  it('tries a failed delivery again at the next round', async () => {
    await stop();
    await start({ refuseFirst: 1, refuseWith: { code: 550, message: 'mailbox unavailable' } });
    addUser('retried@example.com', endingIn(1));
    expect(await notices.sendDue()).toBe(0);
    expect(smtp.received).toHaveLength(0);
    expect(await notices.sendDue()).toBe(1);
    expect((await smtp.mails(1))[0]!.to).toEqual(['retried@example.com']);
  });

  it('tries each mail once a round, so that a server failing for now holds neither the round nor a stop (its retry waits were 30 s to 10 min)', async () => {
    await stop();
    await start({ refuseFirst: 1, refuseWith: { code: 451, message: 'try again later' } });
    addUser('later@example.com', endingIn(1));
    expect(await notices.sendDue()).toBe(0);
    await notices.stop();
    expect(smtp.received).toHaveLength(0);
  });

  it('starts no round once stopped', async () => {
    addUser('stopped@example.com', endingIn(1));
    await notices.stop();
    expect(await notices.sendDue()).toBe(0);
  });

  it('runs one round at a time: two calls at once tell a user once', async () => {
    addUser('once@example.com', endingIn(1));
    expect(await Promise.all([notices.sendDue(), notices.sendDue()])).toEqual([1, 1]);
    await smtp.mails(1);
    expect(await notices.sendDue()).toBe(0);
    expect(smtp.received).toHaveLength(1);
  });
});
