// An API user as API Umbrella's admin API answers it: each rate limit's id
// also as `_id`, which its answer has always held beside `id` and keeps "for
// backwards compatibility" (its test/apis/v1/users/test_show.rb), so scripts
// may read either. Not its `accuracy` and `distributed`: API Umbrella derives
// them from the duration on every save (its bucket size and whether nodes
// share the count), Parasol counts with neither, and a value answered would
// say how it counts, wrongly; sent, they are taken and ignored. An empty
// list of allowed IPs or referers (no restriction) is null, as API Umbrella
// answers it (its test_empty_input_saves_as_null); null and [] are both taken.
import type { ApiUser } from '../api-users/model.js';

export function apiUserJson<U extends Pick<ApiUser, 'settings'>>(user: U) {
  const { settings } = user;
  return {
    ...user,
    settings: {
      ...settings,
      rate_limits: settings.rate_limits.map((limit) => ({ ...limit, _id: limit.id })),
      allowed_ips: orNull(settings.allowed_ips),
      allowed_referers: orNull(settings.allowed_referers),
    },
  };
}

function orNull(list: readonly string[]): readonly string[] | null {
  return list.length === 0 ? null : list;
}
