// Analytics entries on their way to the writer thread, kept column by column
// in three typed arrays: numbers in a Float64Array, every string as UTF-8 in
// one byte buffer, and where each string starts and ends in an Int32Array.
// A string equal to the one before in its column (the same method, host,
// user, backend, … request after request) points at the bytes already
// written instead of writing them again.
//
// Handing a batch to the thread moves the three arrays without copying, where
// 5,000 entry objects cost more to clone, to rebuild in the thread and to
// collect than the proxy spends on them; and nothing of a request stays on
// the proxy's heap until its batch leaves, so the garbage collector never
// promotes it to the old generation only to sweep it later.
import { CONTEXT_FIELDS, FIELD_CAPS, type EntryField } from './fields.js';
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
] as const satisfies readonly EntryField[];

/**
 * The strings stored with each entry: its own; two that change from request
 * to request of one client (a browser's page, a limit hit); and the host,
 * which API Drilldown and admins' API scopes read with the path on every row.
 */
export const OWN_STRING_FIELDS = [
  'request_id',
  'request_host',
  'request_path',
  'request_url_query',
  'request_referer',
  'gatekeeper_denied_code',
] as const satisfies readonly EntryField[];

/**
 * A backend's custom dimensions (X-Api-Umbrella-Analytics-Custom1..3), kept
 * apart from the entry's own strings: few backends set them, and the writer
 * stores them, in a table of their own, only for entries that have one
 * (three NULL columns on every row cost it about 3 % more CPU an entry).
 */
export const CUSTOM_FIELDS = ['response_custom1', 'response_custom2', 'response_custom3'] as const satisfies readonly EntryField[];

/** The order of a batch's string columns; the builder's add() writes them by position. */
export const STRING_FIELDS = [...CONTEXT_FIELDS, ...OWN_STRING_FIELDS, ...CUSTOM_FIELDS] as const;

/** Every field once, in the order of the batch's numbers, then of its strings. */
export const PACKED_ORDER: readonly EntryField[] = [...NUMBER_FIELDS, ...STRING_FIELDS];

/** What crosses to the writer thread: no object per entry. */
export interface EntryBatch {
  readonly count: number;
  /** NUMBER_FIELDS.length numbers per entry (and maybe unused room after them). */
  readonly numbers: Float64Array;
  /** Per entry and STRING_FIELDS column, the string's start and end in `bytes`; a start of -1 is null. */
  readonly spans: Int32Array;
  /** The strings' UTF-8 bytes. */
  readonly bytes: Uint8Array;
}

const NUMBERS = NUMBER_FIELDS.length;
const CONTEXT = CONTEXT_FIELDS.length;
const STRINGS = STRING_FIELDS.length;
/** Where the custom dimensions' columns start. */
const CUSTOM = STRINGS - CUSTOM_FIELDS.length;
const SPAN = 2 * STRINGS;
const CAP = Object.fromEntries(FIELD_CAPS) as Record<(typeof FIELD_CAPS)[number][0], number>;
const FIRST_CAPACITY = 64;
/** Bytes to start with per entry: an id and a short path fit. */
const BYTES_PER_ENTRY = 64;
/** Stored batches kept for reuse: about as many as are written at once. */
const MAX_SPARES = 4;
/**
 * Text bytes a batch keeps room for and a reused batch may hold: 1,024 per
 * entry at 4,096 entries. Batches of longer URLs (up to ~35 KB an entry)
 * still fit, in memory allocated for them alone.
 */
const MAX_KEPT_BYTES = 4 * 1024 * 1024;
/** UTF-8 takes at most 3 bytes per UTF-16 code unit. */
const MAX_UTF8_PER_UNIT = 3;
/** Strings up to this long are copied byte by byte when ASCII; longer ones go through Buffer's encoder, which is faster for them. */
const MAX_COPIED_UNITS = 64;

type TextEncoding = 'utf8' | 'latin1';
/**
 * Node reads a header's bytes as latin1, one character each: written back as
 * latin1 they are the client's own bytes, so a UTF-8 user agent ("café") is
 * stored as the text it is instead of as "cafÃ©".
 */
const HEADER_BYTES: TextEncoding = 'latin1';

/** Collects entries into the next EntryBatch. */
export class EntryBatchBuilder {
  private count = 0;
  private capacity = FIRST_CAPACITY;
  private numbers = new Float64Array(FIRST_CAPACITY * NUMBERS);
  private spans = new Int32Array(FIRST_CAPACITY * SPAN);
  private bytes!: Uint8Array<ArrayBuffer>;
  /** The same memory as `bytes`, for Buffer's fast UTF-8 write. */
  private writer!: Buffer;
  private byteLength = 0;
  /** Per STRING_FIELDS column: the last string written and where its bytes are. */
  private lastValues: (string | null)[] = new Array(STRINGS).fill(null);
  private readonly lastSpans = new Int32Array(SPAN);
  private byteCapacity = FIRST_CAPACITY * BYTES_PER_ENTRY;
  /** Stored batches whose arrays the next batches take over. */
  private readonly spares: EntryBatch[] = [];

  constructor() {
    this.setBytes(new Uint8Array(this.byteCapacity));
  }

  get size(): number {
    return this.count;
  }

  /**
   * Runs once per proxied request: every field is named (a loop over field
   * names would make each read a megamorphic lookup). Long client-controlled
   * strings are cut to their FIELD_CAPS length.
   */
  add(entry: AnalyticsEntry): void {
    if (this.count === this.capacity) this.grow();
    const numbers = this.numbers;
    const at = this.count * NUMBERS;
    numbers[at] = entry.request_at;
    numbers[at + 1] = entry.request_size;
    numbers[at + 2] = entry.response_status;
    numbers[at + 3] = entry.response_size;
    numbers[at + 4] = entry.response_time;
    numbers[at + 5] = entry.upstream_time ?? NaN;
    numbers[at + 6] = entry.gateway_overhead;
    const span = this.count * SPAN;
    this.text(span, 0, entry.request_method);
    this.text(span, 1, entry.request_scheme);
    this.text(span, 2, entry.request_ip);
    this.text(span, 3, cappedBytes(entry.request_user_agent, CAP.request_user_agent), HEADER_BYTES);
    this.text(span, 4, entry.api_backend_id);
    this.text(span, 5, entry.user_id);
    this.text(span, 6, capped(entry.user_email, CAP.user_email));
    this.text(span, 7, entry.api_key_preview);
    this.text(span, 8, cappedBytes(entry.request_origin, CAP.request_origin), HEADER_BYTES);
    this.text(span, 9, cappedBytes(entry.response_content_type, CAP.response_content_type), HEADER_BYTES);
    this.text(span, 10, entry.request_id);
    this.text(span, 11, capped(entry.request_host, CAP.request_host));
    this.text(span, 12, capped(entry.request_path, CAP.request_path));
    this.text(span, 13, capped(entry.request_url_query, CAP.request_url_query));
    this.text(span, 14, cappedBytes(entry.request_referer, CAP.request_referer), HEADER_BYTES);
    this.text(span, 15, entry.gatekeeper_denied_code);
    this.text(span, 16, cappedBytes(entry.response_custom1, CAP.response_custom1), HEADER_BYTES);
    this.text(span, 17, cappedBytes(entry.response_custom2, CAP.response_custom2), HEADER_BYTES);
    this.text(span, 18, cappedBytes(entry.response_custom3, CAP.response_custom3), HEADER_BYTES);
    this.count++;
  }

  /**
   * Hands out what was added (its typed arrays as they are, room to spare
   * included: they are moved, not copied) and starts an empty batch in a
   * stored batch's arrays, or in new ones as large as any batch so far:
   * sizes never shrink, so a load seen before never regrows a batch.
   */
  take(): EntryBatch {
    const batch: EntryBatch = { count: this.count, numbers: this.numbers, spans: this.spans, bytes: this.bytes };
    this.byteCapacity = Math.min(MAX_KEPT_BYTES, Math.max(this.byteCapacity, this.byteLength));
    const spare = this.fittingSpare();
    if (spare !== undefined) {
      this.capacity = Math.min(spare.numbers.length / NUMBERS, spare.spans.length / SPAN);
      this.numbers = spare.numbers as Float64Array<ArrayBuffer>;
      this.spans = spare.spans as Int32Array<ArrayBuffer>;
      this.setBytes(spare.bytes as Uint8Array<ArrayBuffer>);
    } else {
      this.numbers = new Float64Array(this.capacity * NUMBERS);
      this.spans = new Int32Array(this.capacity * SPAN);
      this.setBytes(new Uint8Array(this.byteCapacity));
    }
    this.byteLength = 0;
    this.lastValues = new Array(STRINGS).fill(null);
    this.count = 0;
    return batch;
  }

  /**
   * Keeps a stored batch's arrays for a later take(). A steady load then
   * allocates no batch memory at all; otherwise every batch (1-2 MB) would be
   * garbage the proxy's collector only frees at its next full collection, and
   * tens of MB of them would wait for it.
   */
  reuse(batch: EntryBatch): void {
    if (this.spares.length < MAX_SPARES && batch.bytes.length <= MAX_KEPT_BYTES) this.spares.push(batch);
  }

  /** A spare as large as the batches now are; smaller ones never will be and go. */
  private fittingSpare(): EntryBatch | undefined {
    for (let spare = this.spares.pop(); spare !== undefined; spare = this.spares.pop()) {
      if (fits(spare, this.capacity, this.byteCapacity)) return spare;
    }
    return undefined;
  }

  private text(span: number, column: number, value: string | null, encoding: TextEncoding = 'utf8'): void {
    const at = span + 2 * column;
    const last = 2 * column;
    if (value === null) {
      this.spans[at] = -1;
      this.spans[at + 1] = -1;
      return;
    }
    if (value !== this.lastValues[column]) {
      this.lastSpans[last] = this.byteLength;
      this.lastSpans[last + 1] = this.write(value, encoding);
      this.lastValues[column] = value;
    }
    this.spans[at] = this.lastSpans[last]!;
    this.spans[at + 1] = this.lastSpans[last + 1]!;
  }

  /** Appends the string's bytes in `encoding`; answers where they end. */
  private write(value: string, encoding: TextEncoding): number {
    const room = this.byteLength + value.length * MAX_UTF8_PER_UNIT;
    if (room > this.bytes.length) this.setBytes(grown(this.bytes, room, this.byteLength));
    const end = value.length <= MAX_COPIED_UNITS ? copyAscii(value, this.bytes, this.byteLength) : -1;
    this.byteLength = end >= 0 ? end : this.byteLength + this.writer.write(value, this.byteLength, encoding);
    return this.byteLength;
  }

  private setBytes(bytes: Uint8Array<ArrayBuffer>): void {
    this.bytes = bytes;
    this.writer = Buffer.from(bytes.buffer);
  }

  private grow(): void {
    this.capacity *= 2;
    this.numbers = grown(this.numbers, this.capacity * NUMBERS);
    this.spans = grown(this.spans, this.capacity * SPAN);
  }
}

/**
 * Copies a string of ASCII characters (where UTF-8 is the character codes
 * themselves) into `bytes` at `at`; answers where it ends, or -1 at the first
 * other character. The request id and most short fields are ASCII, and for
 * them this loop is several times cheaper than a call into Buffer's encoder.
 */
function copyAscii(value: string, bytes: Uint8Array, at: number): number {
  for (let index = 0; index < value.length; index++) {
    const code = value.charCodeAt(index);
    if (code >= 0x80) return -1;
    bytes[at + index] = code;
  }
  return at + value.length;
}

/** A copy at least `length` long (twice as long as before, at least) holding the first `used` items. */
function grown<T extends Float64Array<ArrayBuffer> | Int32Array<ArrayBuffer> | Uint8Array<ArrayBuffer>>(array: T, length: number, used = array.length): T {
  const copy = new (array.constructor as new (length: number) => T)(Math.max(length, 2 * array.length));
  copy.set(array.subarray(0, used));
  return copy;
}

function fits(batch: EntryBatch, capacity: number, byteCapacity: number): boolean {
  return batch.numbers.length >= capacity * NUMBERS && batch.spans.length >= capacity * SPAN && batch.bytes.length >= byteCapacity;
}

function capped(value: string | null, cap: number): string | null {
  return value !== null && value.length > cap ? value.slice(0, cap) : value;
}

/** A header's bytes (a character each) cut at `cap`, and before a UTF-8 character the cut would split. */
function cappedBytes(value: string | null, cap: number): string | null {
  if (value === null || value.length <= cap) return value;
  // A UTF-8 character is at most 4 bytes: its lead byte, if split, is among the last 3 kept.
  for (let at = cap - 1; at >= Math.max(0, cap - 3); at--) {
    const byte = value.charCodeAt(at);
    if (byte < 0x80) break;
    if (byte >= 0xc0) return value.slice(0, at + utf8Length(byte) > cap ? at : cap);
  }
  return value.slice(0, cap);
}

/** The bytes of the UTF-8 character a lead byte starts. */
function utf8Length(lead: number): number {
  return lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2;
}

/** The batch of these entries (tests, the seed script). */
export function batchOf(entries: readonly AnalyticsEntry[]): EntryBatch {
  const builder = new EntryBatchBuilder();
  for (const entry of entries) builder.add(entry);
  return builder.take();
}

function readRow(batch: EntryBatch, index: number, row: unknown[], offset: number, text: SpanReader<unknown>): void {
  let to = readNumbers(batch, index, row, offset);
  const span = index * SPAN;
  for (let column = 0; column < STRINGS; column++) row[to++] = text.read(batch, span, column);
}

/** Entry `index`'s NUMBER_FIELDS into `row` from `offset`; answers where the next value goes. */
function readNumbers(batch: EntryBatch, index: number, row: unknown[], offset: number): number {
  const numberAt = index * NUMBERS;
  for (let field = 0; field < NUMBERS; field++) row[offset + field] = numberOf(batch, numberAt + field);
  return offset + NUMBERS;
}

/**
 * Entry `index`'s NUMBER_FIELDS, then its OWN_STRING_FIELDS, into `row` from
 * `offset` (reused from entry to entry by the writer), each string as a view
 * of its UTF-8 bytes, for an INSERT that stores it with CAST(? AS TEXT): the
 * writer neither decodes the text nor has better-sqlite3 encode it again.
 */
export function readOwnAsUtf8(batch: EntryBatch, index: number, row: unknown[], offset = 0): void {
  let to = readNumbers(batch, index, row, offset);
  const span = index * SPAN;
  for (let column = CONTEXT; column < CUSTOM; column++) row[to++] = utf8Views.read(batch, span, column);
}

/** Entry `index`'s CUSTOM_FIELDS into `row` from `offset`, as readOwnAsUtf8 reads strings. */
export function readCustomAsUtf8(batch: EntryBatch, index: number, row: unknown[], offset: number): void {
  const span = index * SPAN;
  for (let column = CUSTOM; column < STRINGS; column++) row[offset++] = utf8Views.read(batch, span, column);
}

/** Whether entries [from, to) have any custom dimension. */
export function anyCustom(batch: EntryBatch, from: number, to: number): boolean {
  const spans = batch.spans;
  for (let index = from; index < to; index++) {
    for (let column = CUSTOM; column < STRINGS; column++) if (spans[index * SPAN + 2 * column] !== -1) return true;
  }
  return false;
}

/** Entry `index`'s CONTEXT_FIELDS as strings, into `row` (a new client's context, once). */
export function readContext(batch: EntryBatch, index: number, row: unknown[]): void {
  const span = index * SPAN;
  for (let column = 0; column < CONTEXT; column++) row[column] = strings.read(batch, span, column);
}

/**
 * Whether two entries have the same CONTEXT_FIELDS by where their bytes are.
 * The builder points a string equal to the one before in its column at the
 * same bytes, so a run of one client's entries has equal spans; a value that
 * came back after another one in between has new bytes, and answers false.
 */
export function sameContextSpans(batch: EntryBatch, first: number, second: number): boolean {
  const spans = batch.spans;
  const a = first * SPAN;
  const b = second * SPAN;
  for (let slot = 0; slot < 2 * CONTEXT; slot++) if (spans[a + slot] !== spans[b + slot]) return false;
  return true;
}

/**
 * An entry's CONTEXT_FIELDS as bytes of their own, to compare later entries
 * with (ContextBytes.matches). The writer keeps one for each of the last
 * 10,000 to 20,000 clients, so they are two flat strings rather than typed
 * arrays: a small typed array costs about 200 bytes before its contents, and
 * kept in a Uint8Array and an Int32Array 10,000 clients' contexts took 10 MB.
 */
export class ContextBytes {
  private constructor(
    /** The columns' bytes one after another, a latin1 character each. */
    private readonly text: string,
    /**
     * Per column, a character whose code is where its bytes end in `text`,
     * plus one; 0 for null. FIELD_CAPS keep a context's bytes a few KB long,
     * far from a code unit's 65,535.
     */
    private readonly ends: string,
  ) {}

  static of(batch: EntryBatch, index: number): ContextBytes {
    const span = index * SPAN;
    const ends: number[] = new Array(CONTEXT);
    let length = 0;
    for (let column = 0; column < CONTEXT; column++) {
      const start = batch.spans[span + 2 * column]!;
      if (start < 0) {
        ends[column] = 0;
        continue;
      }
      const end = batch.spans[span + 2 * column + 1]!;
      if (length + end - start > contextScratch.length) contextScratch = grown(contextScratch, length + end - start, length);
      contextScratch.set(batch.bytes.subarray(start, end), length);
      length += end - start;
      ends[column] = length + 1;
    }
    return new ContextBytes(Buffer.from(contextScratch.buffer, 0, length).toString('latin1'), String.fromCharCode(...ends));
  }

  /** Whether entry `index` of `batch` has these CONTEXT_FIELDS, byte for byte. */
  matches(batch: EntryBatch, index: number): boolean {
    const span = index * SPAN;
    let at = 0;
    for (let column = 0; column < CONTEXT; column++) {
      const start = batch.spans[span + 2 * column]!;
      const end = this.ends.charCodeAt(column) - 1;
      if (start < 0 || end < 0) {
        if (start >= 0 || end >= 0) return false;
        continue;
      }
      const length = batch.spans[span + 2 * column + 1]! - start;
      if (length !== end - at) return false;
      for (let offset = 0; offset < length; offset++) if (batch.bytes[start + offset] !== this.text.charCodeAt(at + offset)) return false;
      at = end;
    }
    return true;
  }
}

/** Where ContextBytes.of gathers a context's bytes before they become a string. */
let contextScratch = new Uint8Array(1024);

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
/** Hashed after each column: no byte value, so ("ab", "c") and ("a", "bc") differ. */
const END_OF_STRING = 0x100;
const NULL_STRING = 0x101;

/** A 32-bit FNV-1a hash of entry `index`'s CONTEXT_FIELDS' bytes: the writer's cache key for its context. */
export function contextHash(batch: EntryBatch, index: number): number {
  const span = index * SPAN;
  let hash = FNV_OFFSET;
  for (let column = 0; column < CONTEXT; column++) {
    const start = batch.spans[span + 2 * column]!;
    if (start < 0) {
      hash = Math.imul(hash ^ NULL_STRING, FNV_PRIME);
      continue;
    }
    const end = batch.spans[span + 2 * column + 1]!;
    for (let at = start; at < end; at++) hash = Math.imul(hash ^ batch.bytes[at]!, FNV_PRIME);
    hash = Math.imul(hash ^ END_OF_STRING, FNV_PRIME);
  }
  return hash >>> 0;
}

/** Reads one field of any entry of a batch, without reading the others. */
export function fieldReader<Name extends EntryField>(name: Name): (batch: EntryBatch, index: number) => AnalyticsEntry[Name] {
  const number = (NUMBER_FIELDS as readonly EntryField[]).indexOf(name);
  if (number >= 0) return (batch, index) => numberOf(batch, index * NUMBERS + number) as AnalyticsEntry[Name];
  const column = (STRING_FIELDS as readonly EntryField[]).indexOf(name);
  return (batch, index) => strings.read(batch, index * SPAN, column) as AnalyticsEntry[Name];
}

/** Entry `index` as an object again (a put-back batch, tests): not for the hot path. */
export function entryAt(batch: EntryBatch, index: number): AnalyticsEntry {
  const row: unknown[] = [];
  readRow(batch, index, row, 0, strings);
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
  return [batch.numbers.buffer, batch.spans.buffer, batch.bytes.buffer] as ArrayBuffer[];
}

function numberOf(batch: EntryBatch, slot: number): number | null {
  const value = batch.numbers[slot]!;
  return Number.isNaN(value) ? null : value;
}

/**
 * Per column, the last span read and what it became: a string repeated in its
 * column is converted once. Keyed by the bytes array itself, which holds for
 * a batch's life: memory the builder reuses comes back from the writer thread
 * as new arrays.
 */
class SpanReader<T> {
  private readonly from: (Uint8Array | null)[] = new Array(STRINGS).fill(null);
  private readonly at = new Int32Array(STRINGS);
  private readonly values: T[] = new Array(STRINGS);

  constructor(private readonly convert: (bytes: Uint8Array, start: number, end: number) => T) {}

  read(batch: EntryBatch, span: number, column: number): T | null {
    const start = batch.spans[span + 2 * column]!;
    if (start < 0) return null;
    if (this.from[column] !== batch.bytes || this.at[column] !== start) {
      this.values[column] = this.convert(batch.bytes, start, batch.spans[span + 2 * column + 1]!);
      this.from[column] = batch.bytes;
      this.at[column] = start;
    }
    return this.values[column]!;
  }
}

const utf8 = new TextDecoder();
const strings = new SpanReader((bytes, start, end) => utf8.decode(bytes.subarray(start, end)));
// An empty string stays a string: an empty view could bind as NULL.
const utf8Views = new SpanReader<Uint8Array | string>((bytes, start, end) => (start === end ? '' : bytes.subarray(start, end)));
