// A real SMTP server on a loopback port (the smtp-server package) that keeps
// what it receives, and can refuse the first deliveries to test retries.
import { EventEmitter, once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  /** The envelope sender (MAIL FROM). */
  readonly from: string;
  /** The From header, as sent. */
  readonly fromHeader: string;
  readonly to: readonly string[];
  readonly subject: string;
  /** The decoded text body. */
  readonly text: string;
}

export interface LocalSmtp {
  readonly port: number;
  readonly received: ReceivedMail[];
  /** The header block of each received mail, in the same order, folded lines unfolded. */
  readonly headers: string[];
  /** Every DATA command, accepted or refused. */
  readonly attempts: number;
  /** The most connections clients held open at one time. */
  readonly mostConnectionsAtOnce: number;
  /** Resolves once `count` mails have arrived in total. */
  mails(count: number): Promise<ReceivedMail[]>;
  /** Resolves once `count` delivery attempts have been made in total. */
  attemptsReach(count: number): Promise<void>;
  close(): Promise<void>;
}

export interface LocalSmtpOptions {
  /** Require AUTH with these credentials. */
  readonly auth?: { readonly username: string; readonly password: string };
  /** Refuse this many deliveries before accepting; Infinity refuses all. */
  readonly refuseFirst?: number;
  /** The SMTP reply refusals get: 451 (try again later) unless given. */
  readonly refuseWith?: { readonly code: number; readonly message: string };
  /** Where it listens: loopback unless given. */
  readonly host?: string;
  /** Never answer a delivery's DATA (a server that hangs). */
  readonly hang?: boolean;
}

export async function startLocalSmtp(options: LocalSmtpOptions = {}): Promise<LocalSmtp> {
  const events = new EventEmitter();
  const received: ReceivedMail[] = [];
  const headers: string[] = [];
  let attempts = 0;
  let open = 0;
  let mostConnectionsAtOnce = 0;
  const server = new SMTPServer({
    // Plain SMTP on loopback: no STARTTLS with a self-signed certificate to trip over.
    disabledCommands: options.auth === undefined ? ['STARTTLS', 'AUTH'] : ['STARTTLS'],
    authOptional: options.auth === undefined,
    allowInsecureAuth: true,
    logger: false,
    onConnect(_session, callback) {
      open++;
      mostConnectionsAtOnce = Math.max(mostConnectionsAtOnce, open);
      callback();
    },
    onClose() {
      open--;
    },
    onAuth(auth, _session, callback) {
      const ok = auth.username === options.auth?.username && auth.password === options.auth?.password;
      callback(ok ? null : new Error('Invalid username or password'), ok ? { user: auth.username } : undefined);
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        if (options.hang === true) return;
        attempts++;
        if (attempts <= (options.refuseFirst ?? 0)) {
          const { code, message } = options.refuseWith ?? { code: 451, message: 'Mailbox busy, try again later' };
          callback(Object.assign(new Error(message), { responseCode: code }));
        } else {
          const raw = Buffer.concat(chunks).toString('utf8');
          headers.push(headerBlock(raw));
          received.push(parse(raw, session.envelope));
          callback();
        }
        events.emit('change');
      });
    },
  });
  server.listen(0, options.host ?? '127.0.0.1');
  await once(server.server, 'listening');
  const { port } = server.server.address() as AddressInfo;

  const until = async (done: () => boolean): Promise<void> => {
    while (!done()) await once(events, 'change');
  };
  return {
    port,
    received,
    headers,
    get attempts() {
      return attempts;
    },
    get mostConnectionsAtOnce() {
      return mostConnectionsAtOnce;
    },
    async mails(count) {
      await until(() => received.length >= count);
      return received.slice(0, count);
    },
    attemptsReach: (count) => until(() => attempts >= count),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function headerBlock(raw: string): string {
  return raw.slice(0, raw.indexOf('\r\n\r\n')).replace(/\r\n[ \t]+/g, ' ');
}

function parse(raw: string, envelope: { mailFrom: false | { address: string }; rcptTo: { address: string }[] }): ReceivedMail {
  const headers = headerBlock(raw);
  const body = raw.slice(raw.indexOf('\r\n\r\n') + 4);
  const quotedPrintable = /^content-transfer-encoding:\s*quoted-printable/im.test(headers);
  return {
    from: envelope.mailFrom === false ? '' : envelope.mailFrom.address,
    fromHeader: /^from: (.*)$/im.exec(headers)?.[1] ?? '',
    to: envelope.rcptTo.map((rcpt) => rcpt.address),
    subject: /^subject: (.*)$/im.exec(headers)?.[1] ?? '',
    text: quotedPrintable ? decodeQuotedPrintable(body) : body.replace(/\r\n/g, '\n'),
  };
}

function decodeQuotedPrintable(body: string): string {
  const bytes = Buffer.from(body.replace(/=\r\n/g, '').replace(/=([0-9A-F]{2})/g, (_match, hex: string) => String.fromCharCode(parseInt(hex, 16))), 'latin1');
  return bytes.toString('utf8').replace(/\r\n/g, '\n');
}
