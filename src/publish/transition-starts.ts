// API Umbrella's two transitions, require_https transition_return_error and
// api_key_verification_level transition_email, hold keys of users created
// from a start on to the new rule while older keys keep the old one. As in
// API Umbrella, publishing gives a transition left without a start the time
// of publishing, and clears the start of a setting not (or no longer) in
// transition, so the live config always says when each transition began and
// a draft can be switched back and forth before then without losing it.
// A transition already live keeps its start when a draft lost it (a blanked
// field, an API client's PUT without it): starting it again later would let
// keys made in between off the new rule.
import { inHttpsTransition, inVerificationTransition, type ApiBackendConfig, type ApiSettings } from '../api-backends/model.js';

interface Transition {
  readonly inTransition: (settings: ApiSettings) => boolean;
  readonly start: 'require_https_transition_start_at' | 'api_key_verification_transition_start_at';
}

const TRANSITIONS: readonly Transition[] = [
  { inTransition: inHttpsTransition, start: 'require_https_transition_start_at' },
  { inTransition: inVerificationTransition, start: 'api_key_verification_transition_start_at' },
];

/**
 * The draft with its transition starts set or cleared for publishing at
 * `now` (ISO), `live` being its published copy (null for a new backend);
 * the same object when none changes.
 */
export function withTransitionStarts<T extends ApiBackendConfig>(api: T, live: ApiBackendConfig | null, now: string): T {
  const settings = stamped(api.settings, live?.settings ?? null, now);
  const subSettings = api.sub_settings.map((sub) => {
    // A sub-setting is the same one live when it matches the same requests.
    const liveSub = live?.sub_settings.find((each) => each.http_method === sub.http_method && each.regex === sub.regex);
    const subStamped = stamped(sub.settings, liveSub?.settings ?? null, now);
    return subStamped === sub.settings ? sub : { ...sub, settings: subStamped };
  });
  if (settings === api.settings && subSettings.every((sub, index) => sub === api.sub_settings[index])) return api;
  return { ...api, settings, sub_settings: subSettings };
}

function stamped(settings: ApiSettings, live: ApiSettings | null, now: string): ApiSettings {
  let result = settings;
  for (const { inTransition, start } of TRANSITIONS) {
    const liveStart = live !== null && inTransition(live) ? live[start] : null;
    const wanted = inTransition(settings) ? (settings[start] ?? liveStart ?? now) : null;
    if (wanted !== settings[start]) result = { ...result, [start]: wanted };
  }
  return result;
}
