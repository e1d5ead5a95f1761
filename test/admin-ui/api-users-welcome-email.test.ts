// Add API User with "Send user welcome e-mail", as in API Umbrella's admin:
// the key goes to the user through a real SMTP server on loopback, and only
// when the box is ticked.
import { afterEach, describe, expect, it } from 'vitest';
import { startLocalSmtp, type LocalSmtp } from '../mailer/local-smtp.js';
import { AdminClient, createAdmin, startAdminApp, textOf, type AdminApp } from './helpers/admin-client.js';

let smtp: LocalSmtp | null = null;
let running: AdminApp | null = null;
afterEach(async () => {
  await running?.close();
  await smtp?.close();
  running = smtp = null;
});

async function signedIn(config: Record<string, unknown>): Promise<AdminClient> {
  running = await startAdminApp(config);
  await createAdmin(running.context);
  const client = new AdminClient(running.app);
  await client.signIn();
  return client;
}

function addUser(client: AdminClient, email: string, extra: Record<string, string> = {}) {
  return client.post('/admin/api_users', { email, first_name: 'Ada', last_name: 'Lovelace', enabled: '1', ...extra });
}

describe('Add API User, with a mailer', () => {
  it('mails the key when "Send user welcome e-mail" is ticked, and not otherwise', async () => {
    smtp = await startLocalSmtp();
    const client = await signedIn({ site_name: 'Weather API', mailer: { from: 'keys@weather.example', smtp: { host: '127.0.0.1', port: smtp.port } } });
    const form = await client.get('/admin/api_users/new');
    expect(textOf(form.body)).toContain('Send user welcome e-mail with API key information');

    const quiet = await addUser(client, 'quiet@example.com');
    expect(quiet.statusCode).toBe(201);
    expect(textOf(quiet.body)).not.toContain('welcome e-mail');

    await client.get('/admin/api_users/new');
    const mailed = await addUser(client, 'ada@example.com', { send_welcome_email: '1' });
    expect(mailed.statusCode).toBe(201);
    expect(textOf(mailed.body)).toContain('The welcome e-mail with this key is on its way to ada@example.com');
    const shown = /id="api-key"[^>]*value="([A-Za-z0-9]{40})"/.exec(mailed.body)![1]!;
    const [mail] = await smtp.mails(1);
    expect(mail).toMatchObject({ to: ['ada@example.com'], subject: 'Your Weather API API key' });
    expect(mail!.text).toContain(shown);
    // The first user, made without the box, got nothing: the one mail is the second user's.
    expect(smtp.received.map((received) => received.to)).toEqual([['ada@example.com']]);
  });
});

describe('Add API User, with signup.send_notify_email', () => {
  it('tells the operators of the new user, as API Umbrella does for users its admin adds', async () => {
    smtp = await startLocalSmtp();
    const client = await signedIn({ contact_email: 'ops@weather.example', signup: { send_notify_email: true }, mailer: { from: 'keys@weather.example', smtp: { host: '127.0.0.1', port: smtp.port } } });
    await client.get('/admin/api_users/new');
    expect((await addUser(client, 'ada@example.com')).statusCode).toBe(201);
    const [notice] = await smtp.mails(1);
    expect(notice).toMatchObject({ to: ['ops@weather.example'] });
    expect(notice!.subject).toContain('Ada Lovelace just subscribed');
  });
});

describe('Add API User, without a mailer', () => {
  it('offers no welcome e-mail and says what would', async () => {
    const client = await signedIn({});
    const text = textOf((await client.get('/admin/api_users/new')).body);
    expect(text).not.toContain('Send user welcome e-mail');
    expect(text).toContain('A welcome e-mail with the key can be sent once the config sets mailer.smtp.host');
    // A ticked box posted anyway (a page from before a config change) still adds the user.
    expect((await addUser(client, 'ada@example.com', { send_welcome_email: '1' })).statusCode).toBe(201);
  });
});
