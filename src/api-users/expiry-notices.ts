// Tells each user whose key ends soon, once, by email
// (mailer.key_expiry_notice_days before its expires_at), so that an end an
// operator set does not come as a surprise. Looked for hourly. The end told
// of is recorded once its mail was delivered, so a failed delivery (or a stop
// during one) is tried again at the next round, each mail once a round; a
// moved end is told again.
// Mails go one after another: an operator who gives thousands of users one
// end must not open thousands of SMTP connections.
import type { Logger } from 'pino';
import type { Clock } from '../lib/clock.js';
import { DAY_MS } from '../lib/iso-instant.js';
import type { Mailer } from '../mailer/mailer.js';
import { keyExpiryNotice, type SiteInfo } from '../mailer/welcome-email.js';
import type { ApiUserRepository } from './repository.js';

const LOOK_EVERY_MS = 3_600_000;
/** Soon after a start, not during it. */
const FIRST_LOOK_MS = 60_000;

export interface KeyExpiryNoticeOptions {
  readonly users: ApiUserRepository;
  readonly mailer: Mailer;
  readonly site: SiteInfo;
  readonly clock: Clock;
  readonly logger: Logger;
  /** How long before its end a key's user is told. */
  readonly noticeDays: number;
}

export class KeyExpiryNotices {
  private firstLook: NodeJS.Timeout | null = null;
  private everyHour: NodeJS.Timeout | null = null;
  /** The round under way: rounds never overlap (a slow SMTP server may hold one for minutes). */
  private round: Promise<number> | null = null;
  private stopped = false;

  constructor(private readonly options: KeyExpiryNoticeOptions) {}

  start(): void {
    const look = () => void this.sendDue();
    this.firstLook = setTimeout(look, FIRST_LOOK_MS).unref();
    this.everyHour = setInterval(look, LOOK_EVERY_MS).unref();
  }

  /** No round starts from now on, and the one under way ends after its current mail; resolves once it has. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.firstLook !== null) clearTimeout(this.firstLook);
    if (this.everyHour !== null) clearInterval(this.everyHour);
    await this.round;
  }

  /** Tells every user due now; resolves with how many were told. Never rejects: a failure is logged and the next round tries again. */
  sendDue(): Promise<number> {
    if (this.stopped) return Promise.resolve(0);
    this.round ??= this.tellDue().finally(() => (this.round = null));
    return this.round;
  }

  private async tellDue(): Promise<number> {
    const { users, mailer, site, clock, logger, noticeDays } = this.options;
    try {
      const now = clock.now();
      let told = 0;
      for (const due of users.expiringUntold(new Date(now).toISOString(), new Date(now + noticeDays * DAY_MS).toISOString())) {
        // Mails before it may have taken minutes: the user may have been disabled, or given another end, meanwhile.
        const user = users.get(due.id);
        if (this.stopped || user === null || !user.enabled || user.expires_at !== due.expires_at) continue;
        // One try: the next round is the retry, and a stop never waits for one.
        if ((await mailer.send(keyExpiryNotice(site, user), { user_id: user.id, notice: 'key_expiry' }, { retry: false })) !== 'delivered') continue;
        if (users.markExpiryTold(user.id, user.expires_at!)) told++;
      }
      if (told > 0) logger.info({ count: told }, 'key expiry notices sent');
      return told;
    } catch (error) {
      logger.error({ err: error }, 'key expiry notices failed');
      return 0;
    }
  }
}
