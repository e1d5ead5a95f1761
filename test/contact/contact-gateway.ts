// A real gateway on loopback with a real SMTP server behind it, for the
// contact API's tests, and the calls a contact form makes.
import type { ContextOptions } from '../../src/context.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { startLocalSmtp, type LocalSmtp, type LocalSmtpOptions } from '../mailer/local-smtp.js';

export const CONTACT_ROLE = 'api-umbrella-contact-form';

/** What API Umbrella's tests send. */
export const VALID_CONTACT = { name: 'Foo', email: 'foo@example.com', api: 'Example API', subject: 'Support', message: 'Message body' } as const;

export interface ContactReply {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: any;
}

export interface ContactSetup {
  readonly gateway: TestGateway;
  /** Null when started without SMTP. */
  readonly smtp: LocalSmtp | null;
  /** A key holding the contact role. */
  readonly key: string;
  /** POSTs contact[…] form fields, as the form's jQuery does, to /api-umbrella/v1/contact.json. */
  postForm(fields: Record<string, string>, options?: PostOptions): Promise<ContactReply>;
  /** POSTs a JSON body, as the form's current fetch() does. */
  postJson(body: unknown, options?: PostOptions): Promise<ContactReply>;
  close(): Promise<void>;
}

export interface PostOptions {
  /** Headers beside X-Api-Key (which `key: null` leaves out). */
  readonly headers?: Record<string, string>;
  readonly key?: string | null;
  readonly path?: string;
}

export interface SetupOptions {
  readonly config?: Record<string, unknown>;
  /** false: no mailer.smtp.host. */
  readonly smtp?: LocalSmtpOptions | false;
  readonly context?: ContextOptions;
}

export async function startContactGateway(options: SetupOptions = {}): Promise<ContactSetup> {
  const smtp = options.smtp === false ? null : await startLocalSmtp(options.smtp ?? {});
  const mailer = smtp === null ? { from: 'noreply@weather.example' } : { from: 'noreply@weather.example', smtp: { host: '127.0.0.1', port: smtp.port } };
  const gateway = await startTestGateway({ site_name: 'Weather API', contact_email: 'ops@weather.example', mailer, ...options.config }, options.context).catch(async (error: unknown) => {
    await smtp?.close();
    throw error;
  });
  const { apiKey: key } = await gateway.createUser({ email: 'static-site@weather.example', roles: [CONTACT_ROLE] });

  const post = async (contentType: string, body: string, { headers = {}, key: sent = key, path = '/api-umbrella/v1/contact.json' }: PostOptions = {}): Promise<ContactReply> => {
    const response = await fetch(`${gateway.url}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': contentType, ...(sent === null ? {} : { 'X-Api-Key': sent }), ...headers },
      body,
    });
    const text = await response.text();
    return { status: response.status, headers: Object.fromEntries(response.headers), body: text === '' ? null : JSON.parse(text) };
  };

  return {
    gateway,
    smtp,
    key,
    postForm: (fields, postOptions) => post('application/x-www-form-urlencoded', formOf(fields), postOptions),
    postJson: (body, postOptions) => post('application/json', JSON.stringify(body), postOptions),
    async close() {
      await gateway.stop();
      await smtp?.close();
    },
  };
}

/** contact[name]=…&contact[email]=…, as jQuery's serialize() of API Umbrella's form. */
export function formOf(fields: Record<string, string>): string {
  return new URLSearchParams(Object.entries(fields).map(([name, value]) => [`contact[${name}]`, value])).toString();
}
