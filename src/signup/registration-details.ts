// Who is signing up, from the request that creates the user: recorded with
// the user, as API Umbrella records it, for admins looking into a wave of
// signups from one address or page.
import type { FastifyRequest } from 'fastify';
import type { ApiUser, RegistrationDetails } from '../api-users/model.js';

/** Header values past these lengths are cut (a client chooses them). */
const MAX_USER_AGENT = 1024;
const MAX_URL = 2048;

/** The client's IP (through trusted proxies), user agent, referer and origin. */
export function registrationDetailsOf(request: FastifyRequest): RegistrationDetails {
  const { headers } = request;
  return {
    registration_ip: request.clientIp,
    registration_user_agent: headerText(headers['user-agent'], MAX_USER_AGENT),
    registration_referer: headerText(headers.referer, MAX_URL),
    registration_origin: headerText(headers.origin, MAX_URL),
  };
}

/** A user as a key-creator key sees it: who signed up from where is for admins. */
export function withoutRegistrationDetails(user: ApiUser): Omit<ApiUser, keyof RegistrationDetails> {
  const { registration_ip: _ip, registration_user_agent: _agent, registration_referer: _referer, registration_origin: _origin, ...rest } = user;
  return rest;
}

/** Node reads a header a character per byte: UTF-8 is decoded as the text it is. */
function headerText(value: string | string[] | undefined, max: number): string | null {
  if (typeof value !== 'string' || value === '') return null;
  return Buffer.from(value, 'latin1').toString('utf8').slice(0, max);
}
