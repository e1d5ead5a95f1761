// Analytics entries on their way to the writer thread, kept column by column:
// numbers in a Float64Array, the strings that repeat from request to request
// (method, host, IP, user, backend, …) once per batch with an index per
// entry, and only the strings of each request's own (id, path, query) one by
// one. Handing a batch to the thread then moves two typed arrays and copies a
// few strings, where 5,000 entry objects cost more to clone, to rebuild in
// the thread and to collect than the proxy spends on them.
import { FIELD_CAPS, type FieldName } from './fields.js';
import type { AnalyticsEntry } from './log-entry.js';

/** Stored as numbers; NaN stands for null (only upstream_time is ever null). */
export const NUMBER_FIELDS = [
  'request_at',
  'request_size',
  'response_status',
  'response_size',
  'response_time',
  'upstream_time',
  'gateway_overhead',
] as const satisfies readonly FieldName[];

/** Strings that repeat across requests: one copy per batch. */
export const SHARED_FIELDS = [
  'request_method',
  'request_scheme',
  'request_host',
  'request_ip',
  'request_user_agent',
  'request_referer',
  'api_backend_id',
  'user_id',
  'user_email',
  'api_key_preview',
  'gatekeeper_denied_code',
] as const satisfies readonly FieldName[];

/** Strings that differ for (almost) every request. */
export const OWN_FIELDS = ['request_id', 'request_path', 'request_url_query'] as const satisfies readonly FieldName[];

/** Every field once, in the order readRow() gives the values. */
export const PACKED_ORDER: readonly FieldName[] = [...NUMBER_FIELDS, ...SHARED_FIELDS, ...OWN_FIELDS];

/** What crosses to the writer thread: no object per entry. */
export interface EntryBatch {
  readonly count: number;
  /** NUMBER_FIELDS.length numbers per entry. */
  readonly numbers: Float64Array;
  /** SHARED_FIELDS.length indexes into `strings` per entry; -1 is null. */
  readonly refs: Int32Array;
  readonly strings: readonly string[];
  /** OWN_FIELDS.length strings per entry. */
  readonly own: readonly string[];
}

const NUMBERS = NUMBER_FIELDS.length;
const SHARED = SHARED_FIELDS.length;
const OWN = OWN_FIELDS.length;
const CAP = Object.fromEntries(FIELD_CAPS) as Record<(typeof FIELD_CAPS)[number][0], number>;
const FIRST_CAPACITY = 64;

/** Collects entries into the next EntryBatch. */
export class EntryBatchBuilder {
  private count = 0;
  private capacity = FIRST_CAPACITY;
  private numbers = new Float64Array(FIRST_CAPACITY * NUMBERS);
  private refs = new Int32Array(FIRST_CAPACITY * SHARED);
  private strings: string[] = [];
  private stringIndex = new Map<string, number>();
  private own: string[] = [];
  /** Per SHARED_FIELDS column: the last value added and its index. */
  private lastValues: (string | null)[] = new Array(SHARED).fill(null);
  private readonly lastRefs = new Int32Array(SHARED);

  get size(): number {
    return this.count;
  }

  /**
   * Runs once per proxied request: every field is named (a loop over field
   * names would make each read a megamorphic lookup), and a value equal to
   * the one before in its column reuses its index without hashing it.
   * Long client-controlled strings are cut to their FIELD_CAPS length.
   */
  add(entry: AnalyticsEntry): void {
    if (this.count === this.capacity) this.grow();
    const numbers = this.numbers;
    let at = this.count * NUMBERS;
    numbers[at++] = entry.request_at;
    numbers[at++] = entry.request_size;
    numbers[at++] = entry.response_status;
    numbers[at++] = entry.response_size;
    numbers[at++] = entry.response_time;
    numbers[at++] = entry.upstream_time ?? NaN;
    numbers[at] = entry.gateway_overhead;
    const refs = this.refs;
    at = this.count * SHARED;
    refs[at] = this.refOf(0, entry.request_method);
    refs[at + 1] = this.refOf(1, entry.request_scheme);
    refs[at + 2] = this.refOf(2, capped(entry.request_host, CAP.request_host));
    refs[at + 3] = this.refOf(3, entry.request_ip);
    refs[at + 4] = this.refOf(4, capped(entry.request_user_agent, CAP.request_user_agent));
    refs[at + 5] = this.refOf(5, capped(entry.request_referer, CAP.request_referer));
    refs[at + 6] = this.refOf(6, entry.api_backend_id);
    refs[at + 7] = this.refOf(7, entry.user_id);
    refs[at + 8] = this.refOf(8, capped(entry.user_email, CAP.user_email));
    refs[at + 9] = this.refOf(9, entry.api_key_preview);
    refs[at + 10] = this.refOf(10, entry.gatekeeper_denied_code);
    this.own.push(entry.request_id, capped(entry.request_path, CAP.request_path)!, capped(entry.request_url_query, CAP.request_url_query)!);
    this.count++;
  }

  /** Hands out what was added and starts an empty batch. */
  take(): EntryBatch {
    const batch: EntryBatch = {
      count: this.count,
      numbers: this.numbers.slice(0, this.count * NUMBERS),
      refs: this.refs.slice(0, this.count * SHARED),
      strings: this.strings,
      own: this.own,
    };
    this.count = 0;
    this.strings = [];
    this.stringIndex = new Map();
    this.own = [];
    this.lastValues = new Array(SHARED).fill(null);
    return batch;
  }

  private refOf(column: number, value: string | null): number {
    if (value === null) return -1;
    if (value === this.lastValues[column]) return this.lastRefs[column]!;
    let ref = this.stringIndex.get(value);
    if (ref === undefined) {
      ref = this.strings.push(value) - 1;
      this.stringIndex.set(value, ref);
    }
    this.lastValues[column] = value;
    this.lastRefs[column] = ref;
    return ref;
  }

  private grow(): void {
    this.capacity *= 2;
    const numbers = new Float64Array(this.capacity * NUMBERS);
    numbers.set(this.numbers);
    const refs = new Int32Array(this.capacity * SHARED);
    refs.set(this.refs);
    this.numbers = numbers;
    this.refs = refs;
  }
}

function capped(value: string | null, cap: number): string | null {
  return value !== null && value.length > cap ? value.slice(0, cap) : value;
}

/** The batch of these entries (tests, the seed script). */
export function batchOf(entries: readonly AnalyticsEntry[]): EntryBatch {
  const builder = new EntryBatchBuilder();
  for (const entry of entries) builder.add(entry);
  return builder.take();
}

/**
 * Entry `index`'s values in PACKED_ORDER, written into `row` (reused from
 * entry to entry by the writer, so reading a batch allocates nothing per entry).
 */
export function readRow(batch: EntryBatch, index: number, row: unknown[], offset = 0): void {
  let to = offset;
  const numberAt = index * NUMBERS;
  for (let field = 0; field < NUMBERS; field++) {
    const value = batch.numbers[numberAt + field]!;
    row[to++] = Number.isNaN(value) ? null : value;
  }
  const refAt = index * SHARED;
  for (let field = 0; field < SHARED; field++) {
    const ref = batch.refs[refAt + field]!;
    row[to++] = ref < 0 ? null : batch.strings[ref];
  }
  const ownAt = index * OWN;
  for (let field = 0; field < OWN; field++) row[to++] = batch.own[ownAt + field];
}

/** Reads one field of any entry of a batch, without reading the others. */
export function fieldReader<Name extends FieldName>(name: Name): (batch: EntryBatch, index: number) => AnalyticsEntry[Name] {
  const number = (NUMBER_FIELDS as readonly FieldName[]).indexOf(name);
  const shared = (SHARED_FIELDS as readonly FieldName[]).indexOf(name);
  const own = (OWN_FIELDS as readonly FieldName[]).indexOf(name);
  if (number >= 0) {
    return (batch, index) => {
      const value = batch.numbers[index * NUMBERS + number]!;
      return (Number.isNaN(value) ? null : value) as AnalyticsEntry[Name];
    };
  }
  if (shared >= 0) {
    return (batch, index) => {
      const ref = batch.refs[index * SHARED + shared]!;
      return (ref < 0 ? null : batch.strings[ref]) as AnalyticsEntry[Name];
    };
  }
  return (batch, index) => batch.own[index * OWN + own] as AnalyticsEntry[Name];
}

/** Entry `index` as an object again (a put-back batch, tests): not for the hot path. */
export function entryAt(batch: EntryBatch, index: number): AnalyticsEntry {
  const row: unknown[] = [];
  readRow(batch, index, row);
  return Object.fromEntries(PACKED_ORDER.map((name, field) => [name, row[field]])) as unknown as AnalyticsEntry;
}

/** The first `count` entries of a batch, as a batch of their own. */
export function firstEntries(batch: EntryBatch, count: number): EntryBatch {
  if (count >= batch.count) return batch;
  const builder = new EntryBatchBuilder();
  for (let index = 0; index < count; index++) builder.add(entryAt(batch, index));
  return builder.take();
}

/** The buffers postMessage can move instead of copying. */
export function transferablesOf(batch: EntryBatch): ArrayBuffer[] {
  return [batch.numbers.buffer as ArrayBuffer, batch.refs.buffer as ArrayBuffer];
}
