import type { ApiBackend } from '../api-backends/model.js';

/** What the gateway serves: one config version, immutable. */
export interface PublishedConfig {
  /** null before the first publish. */
  readonly version: number | null;
  readonly apis: readonly ApiBackend[];
}

export const EMPTY_PUBLISHED_CONFIG: PublishedConfig = Object.freeze({ version: null, apis: Object.freeze([]) });

export interface VersionChanges {
  readonly new: readonly string[];
  readonly modified: readonly string[];
  readonly deleted: readonly string[];
}

export interface ConfigVersion {
  readonly id: number;
  readonly published_at: string;
  readonly publisher: string | null;
  readonly changes: VersionChanges;
  readonly rollback_of: number | null;
}
