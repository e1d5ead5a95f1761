// Publishing: drafts → a new numbered config version → the live config that
// the gateway compiles into its routing table. Each publish swaps one
// immutable PublishedConfig; listeners get it after the version is committed.
import { deepFreeze } from '../lib/deep-freeze.js';
import { compareBackendOrder, type ApiBackend } from '../api-backends/model.js';
import type { ApiBackendRepository } from '../api-backends/repository.js';
import type { Db } from '../store/db.js';
import { pendingChanges, sameConfig, type PendingChanges } from './pending-changes.js';
import { withTransitionStarts } from './transition-starts.js';
import { EMPTY_PUBLISHED_CONFIG, type ConfigVersion, type PublishedConfig, type VersionChanges } from './published-config.js';
import { storeVersionBackends, versionBackends, type DocumentIds } from './version-documents.js';

/** A version stored but not live yet. */
interface Committed {
  readonly version: ConfigVersion;
  readonly apis: ApiBackend[];
  readonly documents: DocumentIds;
}

interface VersionRow {
  id: number;
  published_at: string;
  publisher: string | null;
  changes: string;
  rollback_of: number | null;
}

export class Publisher {
  private live: PublishedConfig;
  /** The live version's documents, which the next version points at for every backend it leaves as it is. */
  private liveDocuments: DocumentIds;
  private readonly listeners: ((config: PublishedConfig) => void)[] = [];

  constructor(
    private readonly db: Db,
    private readonly backends: ApiBackendRepository,
  ) {
    const latest = this.loadLatest();
    this.live = latest.config;
    this.liveDocuments = latest.documents;
  }

  get current(): PublishedConfig {
    return this.live;
  }

  /** Calls the listener now with the live config, and again after every publish until the returned function is called. */
  subscribe(listener: (config: PublishedConfig) => void): () => void {
    this.listeners.push(listener);
    listener(this.live);
    return () => {
      const index = this.listeners.indexOf(listener);
      if (index !== -1) this.listeners.splice(index, 1);
    };
  }

  pendingChanges(): PendingChanges {
    return pendingChanges(this.backends.list(), this.live.apis, new Date().toISOString());
  }

  /**
   * Publishes the selected backends: a selected draft replaces (or adds) its
   * published copy, a selected deleted backend disappears, the rest stay as
   * they are live. Returns null when that changes nothing: no version is made.
   */
  publish(selectedIds: readonly string[], publisher: string | null): ConfigVersion | null {
    const selected = new Set(selectedIds);
    const now = new Date().toISOString();
    const liveById = new Map(this.live.apis.map((api) => [api.id, api]));
    const committed = this.backends.transaction(() => {
      const drafts = new Map(this.backends.list().map((api) => [api.id, api]));
      const kept = this.live.apis.filter((api) => !selected.has(api.id));
      const chosen = [...selected].flatMap((id) => {
        const draft = drafts.get(id);
        return draft === undefined ? [] : [withTransitionStarts(draft, liveById.get(id) ?? null, now)];
      });
      const version = this.insertVersion(sortByOrder([...kept, ...chosen]), publisher, null, this.liveDocuments, now);
      // A transition start set or cleared for publishing goes into the draft too, so the two still match.
      if (version !== null) for (const api of chosen) if (api !== drafts.get(api.id)) this.saveDraft(api, publisher);
      return version;
    });
    return committed === null ? null : this.goLive(committed);
  }

  /** Publishes an earlier version's config again, as a new version; drafts stay as they are. */
  rollback(versionId: number, publisher: string | null): ConfigVersion | null | 'not_found' {
    if (!this.hasVersion(versionId)) return 'not_found';
    // Its backends keep the documents they have.
    const { apis, documents } = versionBackends(this.db, versionId);
    const committed = this.backends.transaction(() => this.insertVersion(apis, publisher, versionId, documents));
    return committed === null ? null : this.goLive(committed);
  }

  versions(limit = 100): ConfigVersion[] {
    const rows = this.db.prepare('SELECT id, published_at, publisher, changes, rollback_of FROM config_versions ORDER BY id DESC LIMIT ?').all(limit) as VersionRow[];
    return rows.map(toVersion);
  }

  /** The config a version published, for showing or diffing it. */
  versionConfig(id: number): PublishedConfig | null {
    return this.hasVersion(id) ? freezeConfig(id, versionBackends(this.db, id).apis) : null;
  }

  private hasVersion(id: number): boolean {
    return this.db.prepare('SELECT 1 FROM config_versions WHERE id = ?').get(id) !== undefined;
  }

  private saveDraft(api: ApiBackend, publisher: string | null): void {
    const { id, sort_order, created_at, updated_at, created_by, updated_by, ...config } = api;
    this.backends.update(id, config, publisher);
  }

  /** Stores the version; null when it would change nothing. Goes live only once its transaction has committed (goLive). */
  private insertVersion(
    apis: ApiBackend[],
    publisher: string | null,
    rollbackOf: number | null,
    known: DocumentIds,
    publishedAt = new Date().toISOString(),
  ): Committed | null {
    const changes = describeChanges(this.live.apis, apis);
    if (changes.new.length + changes.modified.length + changes.deleted.length === 0) return null;
    const { lastInsertRowid } = this.db
      .prepare('INSERT INTO config_versions (published_at, publisher, changes, rollback_of) VALUES (?, ?, ?, ?)')
      .run(publishedAt, publisher, JSON.stringify(changes), rollbackOf);
    const id = Number(lastInsertRowid);
    const documents = storeVersionBackends(this.db, id, apis, known);
    return { version: { id, published_at: publishedAt, publisher, changes, rollback_of: rollbackOf }, apis, documents };
  }

  private goLive({ version, apis, documents }: Committed): ConfigVersion {
    this.live = freezeConfig(version.id, apis);
    this.liveDocuments = documents;
    for (const listener of this.listeners) listener(this.live);
    return version;
  }

  private loadLatest(): { config: PublishedConfig; documents: DocumentIds } {
    const id = this.db.prepare('SELECT id FROM config_versions ORDER BY id DESC LIMIT 1').pluck().get() as number | undefined;
    if (id === undefined) return { config: EMPTY_PUBLISHED_CONFIG, documents: new Map() };
    const { apis, documents } = versionBackends(this.db, id);
    return { config: freezeConfig(id, apis), documents };
  }
}

function describeChanges(before: readonly ApiBackend[], after: readonly ApiBackend[]): VersionChanges {
  const beforeById = new Map(before.map((api) => [api.id, api]));
  const afterIds = new Set(after.map((api) => api.id));
  return {
    new: after.filter((api) => !beforeById.has(api.id)).map((api) => api.name),
    modified: after.filter((api) => beforeById.has(api.id) && !sameConfig(beforeById.get(api.id)!, api)).map((api) => api.name),
    deleted: before.filter((api) => !afterIds.has(api.id)).map((api) => api.name),
  };
}

/** In the backends' order, the one the routing table breaks ties by. */
function sortByOrder(apis: ApiBackend[]): ApiBackend[] {
  return apis.sort(compareBackendOrder);
}

function freezeConfig(version: number, apis: ApiBackend[]): PublishedConfig {
  return deepFreeze({ version, apis });
}

function toVersion(row: VersionRow): ConfigVersion {
  return { id: row.id, published_at: row.published_at, publisher: row.publisher, changes: JSON.parse(row.changes) as VersionChanges, rollback_of: row.rollback_of };
}
