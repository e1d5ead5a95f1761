// Each entry's context: the analytics_contexts row of who called and how
// (CONTEXT_FIELDS), found or added by the writer, inside its transaction.
// One client's requests share a row, so a request row holds a number where
// it held eight strings. Contexts are found by their bytes in a bounded cache
// (a run of one client's entries is found without even that), and in the
// store only when the cache does not have them.
import type { Db } from '../store/db.js';
import { dayOf } from './daily-rollups.js';
import { ContextBytes, contextHash, fieldReader, readContext, sameContextSpans, type EntryBatch } from './entry-batch.js';
import { CONTEXT_FIELDS } from './fields.js';

/** A stored context, as the writer and the daily rollups use it. */
export interface RequestContext {
  readonly id: number;
  /** The UTC day of its latest stored request, as in the store once the batch commits. */
  lastDay: number;
  readonly ip: string;
  readonly userId: string | null;
  readonly userEmail: string | null;
  readonly bytes: ContextBytes;
}

/**
 * Contexts kept in memory per generation: a few MB, for more clients than
 * call within a batch or two. A full generation becomes the older one, and
 * the one before it goes (the store still has those contexts): the clients
 * of the last two generations stay cached, without the cost of evicting
 * them one by one (removing a Map's first key leaves a hole that every later
 * removal walks past).
 */
const GENERATION_SIZE = 10_000;

const requestAtOf = fieldReader('request_at');
const COLUMNS = CONTEXT_FIELDS.join(', ');
/** Each column equal, a null to a null. */
const SAME_COLUMNS = CONTEXT_FIELDS.map((name) => `${name} IS ?`).join(' AND ');
const IP = CONTEXT_FIELDS.indexOf('request_ip');
const USER_ID = CONTEXT_FIELDS.indexOf('user_id');
const USER_EMAIL = CONTEXT_FIELDS.indexOf('user_email');

export class RequestContexts {
  /** Contexts by contextHash, the current generation and the one before. */
  private recent = new Map<number, RequestContext>();
  private older = new Map<number, RequestContext>();
  private readonly find: (hash: number, values: unknown[]) => { id: number; last_day: number } | undefined;
  private readonly insert: (hash: number, values: unknown[], day: number) => number;
  private readonly setLastDay: (context: RequestContext) => void;
  private readonly values: unknown[] = new Array(CONTEXT_FIELDS.length);
  /** Per entry of the batch being written, its context (reused from batch to batch). */
  private readonly ofEntries: RequestContext[] = [];

  constructor(db: Db) {
    const known = db.prepare('SELECT 1 FROM analytics_contexts WHERE hash = ?').pluck();
    const find = db.prepare(`SELECT id, last_day FROM analytics_contexts WHERE hash = ? AND ${SAME_COLUMNS} LIMIT 1`);
    const insert = db.prepare(`INSERT INTO analytics_contexts (hash, ${COLUMNS}, last_day) VALUES (?, ${CONTEXT_FIELDS.map(() => '?').join(', ')}, ?)`);
    const lastDay = db.prepare('UPDATE analytics_contexts SET last_day = ? WHERE id = ? AND last_day < ?');
    // A new client's hash is in no row: one lookup in the hash index tells, without binding the strings.
    this.find = (hash, values) => (known.get(hash) === undefined ? undefined : (find.get(hash, ...values) as { id: number; last_day: number } | undefined));
    this.insert = (hash, values, day) => Number(insert.run(hash, ...values, day).lastInsertRowid);
    this.setLastDay = (context) => lastDay.run(context.lastDay, context.id, context.lastDay);
  }

  /**
   * The context of every entry of the batch, in order, stored or found; each
   * one's last_day moved up to its entries' latest day. Call inside the
   * batch's transaction, and forget() if it rolls back: the cache may then
   * name rows the store never kept. The answer is reused by the next call.
   */
  resolve(batch: EntryBatch): readonly RequestContext[] {
    const contexts = this.ofEntries;
    contexts.length = batch.count;
    const moved = new Set<RequestContext>();
    for (let index = 0; index < batch.count; index++) {
      const context = index > 0 && sameContextSpans(batch, index - 1, index) ? contexts[index - 1]! : this.contextOf(batch, index);
      const day = dayOf(requestAtOf(batch, index));
      if (day > context.lastDay) {
        context.lastDay = day;
        moved.add(context);
      }
      contexts[index] = context;
    }
    for (const context of moved) this.setLastDay(context);
    return contexts;
  }

  /** Drops every cached context: after a rollback, or once retention deleted contexts. */
  forget(): void {
    this.recent.clear();
    this.older.clear();
  }

  private contextOf(batch: EntryBatch, index: number): RequestContext {
    const hash = contextHash(batch, index);
    const recent = this.recent.get(hash);
    if (recent !== undefined && recent.bytes.matches(batch, index)) return recent;
    const older = this.older.get(hash);
    const context = older !== undefined && older.bytes.matches(batch, index) ? older : this.stored(batch, index, hash);
    if (this.recent.size >= GENERATION_SIZE) {
      this.older = this.recent;
      this.recent = new Map();
    }
    // A different context with the same hash is replaced: both are in the store.
    this.recent.set(hash, context);
    return context;
  }

  /** The entry's context from the store, added first if it is not there. */
  private stored(batch: EntryBatch, index: number, hash: number): RequestContext {
    const values = this.values;
    readContext(batch, index, values);
    const found = this.find(hash, values);
    const day = dayOf(requestAtOf(batch, index));
    return {
      id: found?.id ?? this.insert(hash, values, day),
      lastDay: found?.last_day ?? day,
      ip: values[IP] as string,
      userId: values[USER_ID] as string | null,
      userEmail: values[USER_EMAIL] as string | null,
      bytes: ContextBytes.of(batch, index),
    };
  }
}
