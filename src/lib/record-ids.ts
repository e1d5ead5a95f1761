// The ids of records a document embeds (a backend's servers and headers, a
// user's rate limits): UUIDs, as API Umbrella gives them, kept as a client
// sends them so that its scripts can match rows across a PUT.
import { createHash, randomUUID } from 'node:crypto';

/**
 * An embedded record's id, by which API Umbrella's operators' scripts match
 * rows. Admin data only: the gateway never reads it, and the pending-changes
 * diff leaves a backend's out.
 */
export interface Identified {
  readonly id: string;
}

/** A record as a document embeds it; the gateway's own types (RateLimit, HeaderSetting, …) go without the id. */
export type Embedded<T> = T & Identified;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}

/** The id a client sent with a record, when it is a UUID; else a new one, as API Umbrella gives a record without one. */
export function sentIdOf(record: Record<string, unknown>): string {
  return isUuid(record.id) ? record.id : randomUUID();
}

/**
 * Ids within a document are unique: a record sent with the id of one before
 * it (a row copied in a script) gets a new one, so that an id names one row.
 * The visitor remembers the ids it passed: one per document, in document order.
 */
export function distinctIds(): <R extends Identified>(record: R) => R {
  const seen = new Set<string>();
  return (record) => {
    const id = seen.has(record.id) ? randomUUID() : record.id;
    seen.add(id);
    return id === record.id ? record : { ...record, id };
  };
}

/**
 * A stored record with an id. One written before records had ids gets an id
 * derived from `name` (its document's id and its place there), rather than a
 * random one: the same on every read and in every process, without rewriting
 * what is stored. Saving the document stores it.
 */
export function withStoredId<R extends object>(record: R & Partial<Identified>, name: string): Embedded<R> {
  return isUuid(record.id) ? (record as Embedded<R>) : { ...record, id: nameBasedUuid(name) };
}

/** Parasol's namespace for name-based (version 5, RFC 9562) UUIDs of embedded records. */
const NAMESPACE = Buffer.from('9b2f6a1e4c7d4e0a8f3b5d6c7e8f9a0b', 'hex');

function nameBasedUuid(name: string): string {
  const bytes = createHash('sha1').update(NAMESPACE).update(name).digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x50;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
