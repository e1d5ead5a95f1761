import type { ApiUserInput } from '../../src/api-users/model.js';
import { DEFAULT_USER_SETTINGS } from '../../src/api-users/model.js';

/** A valid API user for tests to create, with the fields they care about overridden. */
export function apiUserInput(overrides: Partial<ApiUserInput> = {}): ApiUserInput {
  return {
    email: 'user@example.com',
    first_name: 'Test',
    last_name: 'User',
    website: null,
    use_description: null,
    roles: [],
    enabled: true,
    email_verified: true,
    throttle_by_ip: false,
    settings: DEFAULT_USER_SETTINGS,
    expires_at: null,
    registration_source: 'test',
    ...overrides,
  };
}
