// A key sent by email only is in no answer and kept only as an HMAC: if its
// mail never arrives, nobody holds it. Its delivery is followed in the store
// (key_delivery): given up, the user is no longer verified and signing up
// again mails a new key; cut short by a stop, the next start mails a new key.
// (Found by the signup probe: such users were left "verified" with a key
// nobody had, and under allow_duplicate_emails: false could never get one.)
import { afterEach, describe, expect, it } from 'vitest';
import type { AppContext } from '../../src/context.js';
import { testConfig } from '../helpers/config.js';
import { startWithConfig, type TestGateway } from '../helpers/gateway.js';
import { startLocalSmtp, type LocalSmtp, type ReceivedMail } from '../mailer/local-smtp.js';
import { startSignupApp, submitSignup, VALID_SIGNUP, type SignupApp } from './signup-app.js';

const servers: LocalSmtp[] = [];
let running: SignupApp | null = null;
let gateway: TestGateway | null = null;
afterEach(async () => {
  await running?.close();
  await gateway?.stop();
  await Promise.all(servers.splice(0).map((server) => server.close()));
  running = gateway = null;
});

async function smtpServer(options: Parameters<typeof startLocalSmtp>[0] = {}): Promise<LocalSmtp> {
  const server = await startLocalSmtp(options);
  servers.push(server);
  return server;
}

const mailerOn = (port: number) => ({ site_name: 'Weather API', mailer: { from: 'keys@weather.example', smtp: { host: '127.0.0.1', port } } });

function keyIn(mail: ReceivedMail): string {
  return /Your API key for ada@example.com is:\n\n {4}([A-Za-z0-9]{40})\n/.exec(mail.text)![1]!;
}

/** The user's key delivery as stored, once it is `state` (the delivery ends in the background). */
async function deliveryBecomes(context: AppContext, state: string | null): Promise<void> {
  const stored = () => context.db.prepare('SELECT key_delivery FROM api_users WHERE email = ?').pluck().get(VALID_SIGNUP.email);
  await expect.poll(stored, { timeout: 5000, interval: 10 }).toBe(state);
}

describe('a key sent by email only', () => {
  it('is followed until delivered', async () => {
    const smtp = await smtpServer();
    running = await startSignupApp({ ...mailerOn(smtp.port), signup: { verify_email: true } });
    await submitSignup(running.app, VALID_SIGNUP);
    const [welcome] = await smtp.mails(1);
    await deliveryBecomes(running.context, null);
    expect(running.context.keyIndex.find(keyIn(welcome!))?.user.email_verified).toBe(true);
  });

  it('refused for good: the user is no longer verified, and signing up again mails a new key rather than "already registered"', async () => {
    const smtp = await smtpServer({ refuseFirst: 1, refuseWith: { code: 550, message: 'No such mailbox' } });
    running = await startSignupApp({ ...mailerOn(smtp.port), signup: { allow_duplicate_emails: false } });
    await submitSignup(running.app, VALID_SIGNUP);
    await deliveryBecomes(running.context, 'failed');
    const [user] = running.context.users.list().users;
    expect(user!.email_verified).toBe(false);

    const again = await submitSignup(running.app, VALID_SIGNUP);
    expect(again.body).toContain('We have sent your API key to <strong>ada@example.com</strong>.');
    const [welcome] = await smtp.mails(1);
    expect(welcome!.text).not.toContain('already has an API key');
    expect(running.context.keyIndex.find(keyIn(welcome!))?.user.id).toBe(user!.id);
    await deliveryBecomes(running.context, null);
    expect(running.context.users.countByEmail(VALID_SIGNUP.email)).toBe(1);
  });

  it('cut short by a stop while it waited for a retry: the next start mails a new key', async () => {
    const failing = await smtpServer({ refuseFirst: Infinity });
    const config = testConfig({ ...mailerOn(failing.port), signup: { verify_email: true } });
    gateway = await startWithConfig(config);
    await submitSignup(gateway.app, VALID_SIGNUP);
    await failing.attemptsReach(1);
    await gateway.stop();

    const fixed = await smtpServer();
    gateway = await startWithConfig(testConfig({ ...config, mailer: { ...config.mailer, smtp: { ...config.mailer.smtp, port: fixed.port } } }));
    const [welcome] = await fixed.mails(1);
    expect(gateway.context.keyIndex.find(keyIn(welcome!))?.user.email).toBe(VALID_SIGNUP.email);
    await deliveryBecomes(gateway.context, null);
  });
});
