// An API user as API Umbrella's admin API answers it: each rate limit's id
// also as `_id`, which its answer has always held beside `id` and keeps "for
// backwards compatibility" (its test/apis/v1/users/test_show.rb), so scripts
// may read either. Not its `accuracy` and `distributed`: API Umbrella derives
// them from the duration on every save (its bucket size and whether nodes
// share the count), Parasol counts with neither, and a value answered would
// say how it counts, wrongly; sent, they are taken and ignored.
import type { ApiUser } from '../api-users/model.js';

export function apiUserJson<U extends Pick<ApiUser, 'settings'>>(user: U) {
  return { ...user, settings: { ...user.settings, rate_limits: user.settings.rate_limits.map((limit) => ({ ...limit, _id: limit.id })) } };
}
