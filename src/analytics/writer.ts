// Writes batches of entries into analytics_logs and the daily rollups (and,
// with a GeoIP database, their IPs' locations), one transaction per batch.
// Rows go in ROWS_PER_INSERT at a time with positional parameters, strings
// as their UTF-8 bytes (CAST to TEXT in SQL), which matters because the
// writer shares the CPU with the proxy. Fifty rows in a
// row from one client (the same CONTEXT_FIELDS) bind those eleven strings
// once: about 1.9 µs of user time an entry instead of 2.9 in a micro-bench.
// Mixed rows bind all 21 values each, 6-7 µs an entry less than one
// named-parameter insert per row of decoded strings did.
import type { Db } from '../store/db.js';
import { DailyRollups } from './daily-rollups.js';
import {
  batchOf,
  CONTEXT_FIELDS,
  NUMBER_FIELDS,
  OWN_STRING_FIELDS,
  PACKED_ORDER,
  readContextAsUtf8,
  readOwnAsUtf8,
  readRowAsUtf8,
  sharesContext,
  type EntryBatch,
} from './entry-batch.js';
import type { GeoIpDatabase } from './geoip.js';
import { IpLocations } from './ip-locations.js';
import type { AnalyticsEntry } from './log-entry.js';

const ROWS_PER_INSERT = 50;
const WIDTH = PACKED_ORDER.length;
const OWN_WIDTH = NUMBER_FIELDS.length + OWN_STRING_FIELDS.length;
const CONTEXT_WIDTH = CONTEXT_FIELDS.length;
const TEXT = 'CAST(? AS TEXT)';
/** Numbers bind as they are; every other column comes as UTF-8 bytes (or null) and is stored as TEXT. */
const PLACEHOLDERS = PACKED_ORDER.map((_, column) => (column < NUMBER_FIELDS.length ? '?' : TEXT)).join(', ');

export class AnalyticsWriter {
  private readonly writeBatch: (batch: EntryBatch) => void;

  /** With a GeoIP database, each batch's client IPs are located too (analytics_ip_locations). */
  constructor(db: Db, geoip: GeoIpDatabase | null = null) {
    const insert = (rows: number) =>
      db.prepare(`INSERT INTO analytics_logs (${PACKED_ORDER.join(', ')}) VALUES ${Array.from({ length: rows }, () => `(${PLACEHOLDERS})`).join(', ')}`);
    const many = insert(ROWS_PER_INSERT);
    const one = insert(1);
    const shared = db.prepare(sharedContextInsert(ROWS_PER_INSERT));
    const manyValues: unknown[] = new Array(ROWS_PER_INSERT * WIDTH);
    const sharedValues: unknown[] = new Array(CONTEXT_WIDTH + ROWS_PER_INSERT * OWN_WIDTH);
    const oneValues: unknown[] = new Array(WIDTH);
    const rollups = new DailyRollups(db);
    const locations = geoip === null ? null : new IpLocations(db, geoip);
    this.writeBatch = db.transaction((batch: EntryBatch) => {
      const whole = batch.count - (batch.count % ROWS_PER_INSERT);
      // As arguments, not one array: better-sqlite3 reads an array's items through V8's generic element lookup, which was a third of the binding.
      for (let first = 0; first < whole; first += ROWS_PER_INSERT) {
        if (sharesContext(batch, first, ROWS_PER_INSERT)) {
          readContextAsUtf8(batch, first, sharedValues);
          for (let slot = 0; slot < ROWS_PER_INSERT; slot++) readOwnAsUtf8(batch, first + slot, sharedValues, CONTEXT_WIDTH + slot * OWN_WIDTH);
          shared.run(...sharedValues);
        } else {
          for (let slot = 0; slot < ROWS_PER_INSERT; slot++) readRowAsUtf8(batch, first + slot, manyValues, slot * WIDTH);
          many.run(...manyValues);
        }
      }
      for (let index = whole; index < batch.count; index++) {
        readRowAsUtf8(batch, index, oneValues);
        one.run(...oneValues);
      }
      const ipRows = rollups.add(batch);
      locations?.add(ipRows);
    });
  }

  /** All or nothing: on an error no entry of the batch is stored. */
  write(batch: EntryBatch): void {
    if (batch.count > 0) this.writeBatch(batch);
  }

  /** The same for entries not yet in a batch (tests, the seed script). */
  writeEntries(entries: readonly AnalyticsEntry[]): void {
    this.write(batchOf(entries));
  }
}

/** `rows` rows that take CONTEXT_FIELDS from the first CONTEXT_WIDTH parameters, then each its own numbers and strings. */
function sharedContextInsert(rows: number): string {
  const context = CONTEXT_FIELDS.map((name) => `${TEXT} AS ${name}`).join(', ');
  const ownRow = `(${new Array(OWN_WIDTH).fill('?').join(', ')})`;
  const ownColumns = [...NUMBER_FIELDS, ...OWN_STRING_FIELDS].map((_, column) =>
    column < NUMBER_FIELDS.length ? `own.column${column + 1}` : `CAST(own.column${column + 1} AS TEXT)`,
  );
  return (
    `INSERT INTO analytics_logs (${[...CONTEXT_FIELDS, ...NUMBER_FIELDS, ...OWN_STRING_FIELDS].join(', ')}) ` +
    `SELECT ${[...CONTEXT_FIELDS.map((name) => `context.${name}`), ...ownColumns].join(', ')} ` +
    `FROM (SELECT ${context}) AS context, (VALUES ${Array.from({ length: rows }, () => ownRow).join(', ')}) AS own`
  );
}
