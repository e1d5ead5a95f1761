// Writes batches of entries into the analytics store and the daily rollups
// (and, with a GeoIP database, their IPs' locations), one transaction per
// batch. Each entry is a row of analytics_requests pointing at its client's
// context (request-contexts.ts); analytics_logs is their view. Rows go in
// ROWS_PER_INSERT at a time with positional parameters, strings as their
// UTF-8 bytes (CAST to TEXT in SQL), which matters because the writer shares
// the CPU with the proxy. The rare entry with custom dimensions goes alone,
// its dimensions into analytics_request_dimensions on its row's id.
import type { Transaction } from 'better-sqlite3';
import type { Db } from '../store/db.js';
import { DailyRollups } from './daily-rollups.js';
import { anyCustom, batchOf, CUSTOM_FIELDS, NUMBER_FIELDS, OWN_STRING_FIELDS, readCustomAsUtf8, readOwnAsUtf8, type EntryBatch } from './entry-batch.js';
import type { GeoIpDatabase } from './geoip.js';
import { IpLocations } from './ip-locations.js';
import type { AnalyticsEntry } from './log-entry.js';
import { RequestContexts } from './request-contexts.js';

const ROWS_PER_INSERT = 50;
/** An entry's own values (readOwnAsUtf8), then its context's id. */
const ROW = [...NUMBER_FIELDS, ...OWN_STRING_FIELDS, 'context_id'];
const WIDTH = ROW.length;
const CONTEXT_ID = WIDTH - 1;
/** Numbers bind as they are; the strings come as UTF-8 bytes (or null) and are stored as TEXT. */
const PLACEHOLDERS = ROW.map((_, column) => (column < NUMBER_FIELDS.length || column === CONTEXT_ID ? '?' : 'CAST(? AS TEXT)')).join(', ');
/** A row of analytics_request_dimensions: the request's row id, then its custom dimensions (readCustomAsUtf8). */
const DIMENSIONS_ROW = ['request_row', ...CUSTOM_FIELDS];

export class AnalyticsWriter {
  private readonly writeBatch: Transaction<(batch: EntryBatch) => void>;
  private readonly contexts: RequestContexts;

  /** With a GeoIP database, each batch's client IPs are located too (analytics_ip_locations). */
  constructor(db: Db, geoip: GeoIpDatabase | null = null) {
    const insert = (rows: number) =>
      db.prepare(`INSERT INTO analytics_requests (${ROW.join(', ')}) VALUES ${Array.from({ length: rows }, () => `(${PLACEHOLDERS})`).join(', ')}`);
    const many = insert(ROWS_PER_INSERT);
    const one = insert(1);
    const dimensions = db.prepare(`INSERT INTO analytics_request_dimensions (${DIMENSIONS_ROW.join(', ')}) VALUES (?${', CAST(? AS TEXT)'.repeat(CUSTOM_FIELDS.length)})`);
    const manyValues: unknown[] = new Array(ROWS_PER_INSERT * WIDTH);
    const oneValues: unknown[] = new Array(WIDTH);
    const dimensionValues: unknown[] = new Array(DIMENSIONS_ROW.length);
    /** One entry alone, and its custom dimensions when it has any, on its row's id. */
    const insertOne = (batch: EntryBatch, index: number, contextId: number): void => {
      readOwnAsUtf8(batch, index, oneValues);
      oneValues[CONTEXT_ID] = contextId;
      const { lastInsertRowid } = one.run(...oneValues);
      if (!anyCustom(batch, index, index + 1)) return;
      dimensionValues[0] = lastInsertRowid;
      readCustomAsUtf8(batch, index, dimensionValues, 1);
      dimensions.run(...dimensionValues);
    };
    const contexts = new RequestContexts(db);
    const rollups = new DailyRollups(db);
    const locations = geoip === null ? null : new IpLocations(db, geoip);
    this.contexts = contexts;
    this.writeBatch = db.transaction((batch: EntryBatch) => {
      const contextOf = contexts.resolve(batch);
      const whole = batch.count - (batch.count % ROWS_PER_INSERT);
      // As arguments, not one array: better-sqlite3 reads an array's items through V8's generic element lookup, which was a third of the binding.
      for (let first = 0; first < whole; first += ROWS_PER_INSERT) {
        // Rows with custom dimensions are rare: their fifty go one by one.
        if (anyCustom(batch, first, first + ROWS_PER_INSERT)) {
          for (let index = first; index < first + ROWS_PER_INSERT; index++) insertOne(batch, index, contextOf[index]!.id);
          continue;
        }
        for (let slot = 0; slot < ROWS_PER_INSERT; slot++) {
          readOwnAsUtf8(batch, first + slot, manyValues, slot * WIDTH);
          manyValues[slot * WIDTH + CONTEXT_ID] = contextOf[first + slot]!.id;
        }
        many.run(...manyValues);
      }
      for (let index = whole; index < batch.count; index++) insertOne(batch, index, contextOf[index]!.id);
      const ipRows = rollups.add(batch, contextOf);
      locations?.add(ipRows);
    });
  }

  /** All or nothing: on an error no entry of the batch is stored. */
  write(batch: EntryBatch): void {
    if (batch.count === 0) return;
    try {
      // IMMEDIATE: a deferred transaction that has read (a client context) cannot wait for a write lock another connection holds; SQLite answers SQLITE_BUSY at once.
      this.writeBatch.immediate(batch);
    } catch (error) {
      // Contexts the batch added were rolled back with it.
      this.contexts.forget();
      throw error;
    }
  }

  /** The same for entries not yet in a batch (tests, the seed script). */
  writeEntries(entries: readonly AnalyticsEntry[]): void {
    this.write(batchOf(entries));
  }

  /** Retention deleted contexts: none may be named from the cache again. */
  contextsDeleted(): void {
    this.contexts.forget();
  }
}
