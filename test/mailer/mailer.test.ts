// The mailer against a real SMTP server on loopback: delivery with and
// without auth, retries in the background, giving up, and closing.
import { afterEach, describe, expect, it } from 'vitest';
import { networkInterfaces } from 'node:os';
import { pino } from 'pino';
import { createMailer, Mailer, type Wait } from '../../src/mailer/mailer.js';
import { testConfig } from '../helpers/config.js';
import { capturingLogger } from '../helpers/capturing-logger.js';
import { startLocalSmtp, type LocalSmtp } from './local-smtp.js';

const MAIL = { to: 'ada@example.com', subject: 'Your API key', text: 'Hello Ada,\n\nyour key is abc.\n' };

let smtp: LocalSmtp | null = null;
let mailer: Mailer | null = null;
afterEach(async () => {
  mailer?.close();
  await smtp?.close();
  smtp = mailer = null;
});

/** A retry wait that lasts until the mailer closes (the real wait's contract: it rejects when the signal aborts); `waiting` settles once one began. */
function waitUntilAborted(): { wait: Wait; waiting: Promise<void> } {
  let retryWaiting!: () => void;
  const waiting = new Promise<void>((resolve) => (retryWaiting = resolve));
  const wait: Wait = (_ms, signal) =>
    new Promise((_resolve, reject) => {
      signal.addEventListener('abort', () => reject(signal.reason));
      retryWaiting();
    });
  return { wait, waiting };
}

/** Retries wait for nothing but are recorded, so the test never sleeps. */
function recordingWait(): { wait: Wait; waited: number[] } {
  const waited: number[] = [];
  return { waited, wait: async (ms) => void waited.push(ms) };
}

function smtpConfig(port: number, extra: Record<string, unknown> = {}) {
  return testConfig({ site_name: 'Weather "API"', mailer: { smtp: { host: '127.0.0.1', port, ...extra } } });
}

describe('createMailer', () => {
  it('is null while mailer.smtp.host is not set', () => {
    expect(createMailer(testConfig(), pino({ level: 'silent' }))).toBeNull();
  });

  it('delivers to the configured server, from mailer.from', async () => {
    smtp = await startLocalSmtp();
    mailer = createMailer(testConfig({ mailer: { from: 'keys@example.com', smtp: { host: '127.0.0.1', port: smtp.port } } }), pino({ level: 'silent' }))!;
    expect(await mailer.send(MAIL, {})).toBe('delivered');
    const [mail] = await smtp.mails(1);
    expect(mail).toEqual({ from: 'keys@example.com', fromHeader: 'keys@example.com', to: ['ada@example.com'], subject: 'Your API key', text: 'Hello Ada,\n\nyour key is abc.\n' });
  });

  it("sends a mail's own sender parts, the others mailer.from's, the name quoted so that it adds no mailbox", async () => {
    smtp = await startLocalSmtp();
    mailer = createMailer(testConfig({ mailer: { from: 'Weather Keys <keys@example.com>', smtp: { host: '127.0.0.1', port: smtp.port } } }), pino({ level: 'silent' }))!;
    await mailer.send({ ...MAIL, from: { name: 'Tester' } }, {});
    await mailer.send({ ...MAIL, from: { address: 'test@example.com' } }, {});
    await mailer.send({ ...MAIL, from: { name: 'Evil, <evil@evil.example>', address: 'test@example.com' } }, {});
    const mails = await smtp.mails(3);
    expect(mails.map((mail) => [mail.from, mail.fromHeader])).toEqual([
      ['keys@example.com', 'Tester <keys@example.com>'],
      ['test@example.com', 'test@example.com'],
      ['test@example.com', '"Evil, <evil@evil.example>" <test@example.com>'],
    ]);
  });

  it('sends a password to a server off this machine only over TLS: one that offers no STARTTLS gets no mail and no password', async () => {
    const address = Object.values(networkInterfaces())
      .flat()
      .find((candidate) => candidate !== undefined && !candidate.internal && candidate.family === 'IPv4')?.address;
    if (address === undefined) throw new Error('this test needs an address of this machine other than loopback');
    smtp = await startLocalSmtp({ auth: { username: 'parasol', password: 's3cret' }, host: '0.0.0.0' });
    const config = testConfig({ mailer: { from: 'keys@example.com', smtp: { host: address, port: smtp.port, username: 'parasol', password: 's3cret' } } });
    mailer = createMailer(config, pino({ level: 'silent' }), { retryDelaysMs: [] })!;
    expect(await mailer.send(MAIL, {})).toBe('given up');
    expect(smtp.received).toHaveLength(0);
  });

  it('logs in with the configured username and password', async () => {
    smtp = await startLocalSmtp({ auth: { username: 'parasol', password: 's3cret' } });
    mailer = createMailer(smtpConfig(smtp.port, { username: 'parasol', password: 's3cret' }), pino({ level: 'silent' }))!;
    expect(await mailer.send(MAIL, {})).toBe('delivered');
    expect(smtp.received).toHaveLength(1);
  });

  it('sends from the site name when mailer.from is not set', async () => {
    smtp = await startLocalSmtp();
    mailer = createMailer(smtpConfig(smtp.port), pino({ level: 'silent' }))!;
    await mailer.send(MAIL, {});
    expect(smtp.received[0]!.from).toMatch(/^noreply@/);
  });
});

describe('retries', () => {
  it('retries a refused delivery after each configured pause, then delivers', async () => {
    smtp = await startLocalSmtp({ refuseFirst: 2 });
    const { wait, waited } = recordingWait();
    const { logger, lines } = capturingLogger();
    mailer = createMailer(smtpConfig(smtp.port), logger, { retryDelaysMs: [10, 20, 30], wait })!;
    expect(await mailer.send(MAIL, { user_id: 'u1' })).toBe('delivered');
    expect(waited).toEqual([10, 20]);
    expect(smtp.attempts).toBe(3);
    expect(smtp.received).toHaveLength(1);
    const failures = lines.filter((line) => line.msg === 'email delivery failed');
    expect(failures).toHaveLength(2);
    expect(failures[0]).toMatchObject({ user_id: 'u1', attempt: 1, retry_in_ms: 10, level: 40 });
    expect(String(failures[0]!.reason)).toContain('Mailbox busy');
  });

  it('gives up after the last retry, logs it, and never rejects', async () => {
    smtp = await startLocalSmtp({ refuseFirst: Infinity });
    const { wait, waited } = recordingWait();
    const { logger, lines } = capturingLogger();
    mailer = createMailer(smtpConfig(smtp.port), logger, { retryDelaysMs: [5, 5], wait })!;
    expect(await mailer.send(MAIL, { user_id: 'u2' })).toBe('given up');
    expect(waited).toEqual([5, 5]);
    expect(smtp.attempts).toBe(3);
    expect(lines.find((line) => line.msg === 'email given up')).toMatchObject({ user_id: 'u2', attempts: 3, level: 50 });
  });

  it('gives up at once when the server refuses for good (5xx), as retrying cannot help', async () => {
    smtp = await startLocalSmtp({ refuseFirst: Infinity, refuseWith: { code: 550, message: 'No such mailbox' } });
    const { wait, waited } = recordingWait();
    const { logger, lines } = capturingLogger();
    mailer = createMailer(smtpConfig(smtp.port), logger, { retryDelaysMs: [5, 5], wait })!;
    expect(await mailer.send(MAIL, { user_id: 'u3' })).toBe('given up');
    expect(waited).toEqual([]);
    expect(smtp.attempts).toBe(1);
    expect(lines.find((line) => line.msg === 'email delivery failed')).toMatchObject({ attempt: 1, retry_in_ms: null, smtp_code: 550 });
    expect(lines.find((line) => line.msg === 'email given up')).toMatchObject({ user_id: 'u3', attempts: 1 });
  });

  it('survives a server that is not there at all', async () => {
    const gone = await startLocalSmtp();
    await gone.close();
    const { wait } = recordingWait();
    mailer = createMailer(smtpConfig(gone.port), pino({ level: 'silent' }), { retryDelaysMs: [1], wait })!;
    expect(await mailer.send(MAIL, {})).toBe('given up');
  });

  it('stops waiting for a retry when it is closed', async () => {
    smtp = await startLocalSmtp({ refuseFirst: Infinity });
    const { wait, waiting } = waitUntilAborted();
    mailer = createMailer(smtpConfig(smtp.port), pino({ level: 'silent' }), { retryDelaysMs: [3_600_000], wait })!;
    const sent = mailer.send(MAIL, {});
    await waiting;
    mailer.close();
    expect(await sent).toBe('cut short');
    expect(smtp.attempts).toBe(1);
  });

  it('tries once when asked not to retry', async () => {
    smtp = await startLocalSmtp({ refuseFirst: Infinity });
    const { wait, waited } = recordingWait();
    mailer = createMailer(smtpConfig(smtp.port), pino({ level: 'silent' }), { retryDelaysMs: [5, 5], wait })!;
    expect(await mailer.send(MAIL, {}, { retry: false })).toBe('given up');
    expect([waited, smtp.attempts]).toEqual([[], 1]);
  });

  it('hands a delivery waiting for its retry to the mailer that replaces it, which tries at once', async () => {
    smtp = await startLocalSmtp({ refuseFirst: Infinity });
    const replacement = await startLocalSmtp();
    try {
      const { wait, waiting } = waitUntilAborted();
      mailer = createMailer(smtpConfig(smtp.port), pino({ level: 'silent' }), { retryDelaysMs: [3_600_000], wait })!;
      const next = createMailer(smtpConfig(replacement.port), pino({ level: 'silent' }))!;
      const sent = mailer.send(MAIL, {});
      await waiting;
      mailer.handOverTo(next);
      expect(await sent).toBe('delivered');
      expect((await replacement.mails(1))[0]!.to).toEqual([MAIL.to]);
      next.close();
    } finally {
      await replacement.close();
    }
  });

  it('waits through an outage with many mails without a listener warning, and delivers them a few at a time when it ends', async () => {
    const warnings: string[] = [];
    const warned = (warning: Error) => warnings.push(warning.name);
    process.on('warning', warned);
    try {
      const down = await startLocalSmtp();
      await down.close();
      const { logger, nextLine } = capturingLogger();
      mailer = createMailer(smtpConfig(down.port), logger, { retryDelaysMs: [3_600_000] })!;
      const waiting = Array.from({ length: 20 }, () => mailer!.send(MAIL, {}));
      for (let failed = 0; failed < 20; failed++) await nextLine('email delivery failed');
      // Node warns on the next tick after the 11th listener.
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings).not.toContain('MaxListenersExceededWarning');
      smtp = await startLocalSmtp();
      const next = createMailer(smtpConfig(smtp.port), pino({ level: 'silent' }))!;
      mailer.handOverTo(next);
      expect(await Promise.all(waiting)).toEqual(Array(20).fill('delivered'));
      expect(smtp.mostConnectionsAtOnce).toBeLessThanOrEqual(10);
      expect(smtp.mostConnectionsAtOnce).toBeGreaterThan(1);
      next.close();
    } finally {
      process.off('warning', warned);
    }
  });
});
