// Outgoing email over SMTP (nodemailer). Mail is a courtesy, never a
// condition: send() never rejects, and a failed delivery is logged and tried
// again in the background a few times before it is given up (at once when
// the server refuses it for good).
import { setMaxListeners } from 'node:events';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import nodemailer, { type Transporter } from 'nodemailer';
import type { Logger } from 'pino';
import type { Config } from '../config/schema.js';
import { AtMost } from '../lib/at-most.js';

export interface OutgoingMail {
  readonly to: string;
  readonly subject: string;
  readonly text: string;
  /** A sender other than mailer.from, as an admin's signup API call may ask (the other part stays mailer.from's). */
  readonly from?: SenderOverride;
  /** Where replies go, one mailbox (a contact message's sender); else to the From address. */
  readonly replyTo?: string;
}

/** How the first try of a delivery went: delivered, failed for now (tried again in the background) or refused for good. */
export type FirstAttempt = 'delivered' | 'retrying' | 'failed';

/**
 * How a delivery ended: delivered; given up (the server refused it for good,
 * or every retry failed); or cut short by the mailer's close (a stop) while
 * it waited for a retry, so that nothing is known of it.
 */
export type Delivery = 'delivered' | 'given up' | 'cut short';

export interface SendOptions {
  /** false: one try only, for a sender that tries again itself (the hourly key expiry round). */
  readonly retry?: boolean;
}

export interface SenderOverride {
  readonly name?: string;
  readonly address?: string;
}

/** Waits before a retry; rejects when the signal aborts (the server is closing). */
export type Wait = (ms: number, signal: AbortSignal) => Promise<void>;

export interface MailerOptions {
  /** Pause before each retry; its length is the number of retries. */
  readonly retryDelaysMs?: readonly number[];
  readonly wait?: Wait;
}

export const DEFAULT_RETRY_DELAYS_MS: readonly number[] = [30_000, 120_000, 600_000];

/** Deliveries under way at once, each on a connection of its own. */
const MAX_CONNECTIONS = 10;

// Retry timers must not keep a stopping process alive.
const unrefSleep: Wait = (ms, signal) => sleep(ms, undefined, { signal, ref: false });

export class Mailer {
  private readonly transport: Transporter;
  private readonly closing = new AbortController();
  /**
   * Each delivery opens a connection of its own: mails waiting through an
   * outage would all open one when it ends (hundreds of file descriptors at
   * once, the proxy's too), so a few go at a time.
   */
  private readonly connections = new AtMost(MAX_CONNECTIONS);
  private readonly retryDelaysMs: readonly number[];
  private readonly wait: Wait;
  /** The mailer a reload with new mailer settings made: deliveries waiting here for a retry go on there (handOverTo). */
  private successor: Mailer | null = null;

  constructor(
    private readonly from: string,
    smtp: Config['mailer']['smtp'] & { host: string },
    private readonly logger: Logger,
    options: MailerOptions = {},
  ) {
    this.transport = nodemailer.createTransport({
      host: smtp.host,
      port: smtp.port,
      secure: smtp.secure,
      auth: smtp.username === null ? undefined : { user: smtp.username, pass: smtp.password ?? '' },
      // A password goes only encrypted: STARTTLS is required of a server that is not on this machine (nodemailer would
      // otherwise send it in clear to one that does not offer it, as a man in the middle can make any server seem).
      requireTLS: smtp.username !== null && !smtp.secure && !isLoopback(smtp.host),
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 30_000,
    });
    this.retryDelaysMs = options.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
    this.wait = options.wait ?? unrefSleep;
    // Each mail waiting for a retry listens for the close: during an outage, as many as mails wait (Node's warning at 11 is no leak here).
    setMaxListeners(0, this.closing.signal);
  }

  /**
   * Delivers the mail, retrying on failure (unless `options.retry` is false);
   * resolves with how the delivery ended. `about` is logged with each
   * failure; it must not hold secrets (the mail text may).
   */
  async send(mail: OutgoingMail, about: Record<string, unknown>, options: SendOptions = {}): Promise<Delivery> {
    return this.deliver(mail, about, () => {}, 0, options.retry ?? true);
  }

  /**
   * As send(), for a caller that answers someone once the first try is over
   * (a contact message's sender): resolves with how that try went, or with
   * 'still trying' after `waitMs` (a server slow to answer, whose socket
   * timeout is 30 s), while a failed or slow one goes on in the background
   * as send() does.
   */
  firstAttempt(mail: OutgoingMail, about: Record<string, unknown>, waitMs: number): Promise<FirstAttempt | 'still trying'> {
    const attempt = new Promise<FirstAttempt>((resolve) => void this.deliver(mail, about, resolve));
    return Promise.race([attempt, sleep(waitMs, 'still trying' as const, { ref: false })]);
  }

  /**
   * Tries until delivered or given up, from try `first` on; `tried` hears how
   * each try went (the first is what counts for firstAttempt()).
   */
  private async deliver(mail: OutgoingMail, about: Record<string, unknown>, tried: (outcome: FirstAttempt) => void, first = 0, retry = true): Promise<Delivery> {
    for (let attempt = first; ; attempt++) {
      try {
        await this.connections.run(() =>
          this.transport.sendMail({
            from: sender(this.from, mail.from),
            to: recipient(mail.to),
            ...(mail.replyTo === undefined ? {} : { replyTo: recipient(mail.replyTo) }),
            subject: mail.subject,
            text: mail.text,
          }),
        );
        tried('delivered');
        if (attempt > 0) this.logger.info({ ...about, attempts: attempt + 1 }, 'email delivered after a retry');
        return 'delivered';
      } catch (error) {
        const smtpCode = smtpCodeOf(error);
        const retryIn = isPermanent(smtpCode) || !retry ? undefined : this.retryDelaysMs[attempt];
        const reason = error instanceof Error ? error.message : String(error);
        this.logger.warn({ ...about, attempt: attempt + 1, reason, smtp_code: smtpCode, retry_in_ms: retryIn ?? null }, 'email delivery failed');
        tried(retryIn === undefined || this.closing.signal.aborted ? 'failed' : 'retrying');
        if (retryIn === undefined) return this.givenUp(about, attempt + 1);
        if (await this.waitUnlessClosed(retryIn)) continue;
        // New mailer settings (a reload): the next try goes at once, through them.
        if (this.successor !== null) return this.successor.deliver(mail, about, () => {}, attempt + 1, retry);
        this.logger.error({ ...about, attempts: attempt + 1 }, 'email cut short: the mailer closed (a stop, or a reload that removed it)');
        return 'cut short';
      }
    }
  }

  private givenUp(about: Record<string, unknown>, attempts: number): Delivery {
    this.logger.error({ ...about, attempts }, 'email given up');
    return 'given up';
  }

  /** Stops pending retries and closes the SMTP connections; idempotent. */
  close(): void {
    if (this.closing.signal.aborted) return;
    this.closing.abort();
    this.transport.close();
  }

  /** Closes, and deliveries waiting for a retry go on through `next` (the mailer of a reload's new settings), at once. */
  handOverTo(next: Mailer): void {
    this.successor = next;
    this.close();
  }

  private async waitUnlessClosed(ms: number): Promise<boolean> {
    if (this.closing.signal.aborted) return false;
    try {
      await this.wait(ms, this.closing.signal);
      return !this.closing.signal.aborted;
    } catch {
      return false;
    }
  }
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** The SMTP server's reply code, when it answered (not for a connection that failed). */
function smtpCodeOf(error: unknown): number | null {
  const code = (error as { responseCode?: unknown } | null)?.responseCode;
  return typeof code === 'number' ? code : null;
}

/** A 5xx reply (no such mailbox, relay refused, bad credentials) is final; 4xx and lost connections are worth another try. */
function isPermanent(smtpCode: number | null): boolean {
  return smtpCode !== null && smtpCode >= 500 && smtpCode < 600;
}

/**
 * The address as one mailbox (a recipient, a Reply-To). A string would be parsed as an address list, so
 * a signup as "x,ada@example.com" (a valid address) would mail its key to
 * ada@example.com; as an object it is quoted and sent to exactly as typed.
 */
function recipient(address: string): { name: string; address: string } {
  return { name: '', address };
}

/**
 * mailer.from with the override's parts; as in API Umbrella, an address
 * without a name goes without one. An object, as for recipients: nodemailer
 * quotes name and address, so neither can add a mailbox of its own.
 */
function sender(configured: string, override: SenderOverride | undefined): string | { name: string; address: string } {
  if (override === undefined || (override.name === undefined && override.address === undefined)) return configured;
  const address = override.address ?? /<([^<>]*)>\s*$/.exec(configured)?.[1]?.trim() ?? configured.trim();
  return { name: override.name ?? '', address };
}

/** A mailer for the configured SMTP server, or null when mailer.smtp.host is not set. */
export function createMailer(config: Config, logger: Logger, options: MailerOptions = {}): Mailer | null {
  const { smtp } = config.mailer;
  if (smtp.host === null) return null;
  const from = config.mailer.from ?? `"${config.site_name.replace(/["\\\r\n]/g, '')}" <noreply@${hostname()}>`;
  return new Mailer(from, { ...smtp, host: smtp.host }, logger, options);
}
