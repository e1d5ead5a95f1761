// The domains a signup API call's options may point a welcome email at, as
// API Umbrella's known_domains.lua: a From address and a contact URL only
// within the gateway's own domains, an example API URL only on a host it
// serves. Otherwise anyone holding the (public) key of an embedded signup form
// could have the gateway mail links to, or From, any domain.
import { isIP } from 'node:net';
import { isWildcardHost } from '../api-backends/validate.js';
import type { Config } from '../config/schema.js';
import { isEmailAddress, mailboxAddress } from '../lib/email-address.js';
import type { PublishedConfig } from '../publish/published-config.js';

export interface KnownDomains {
  /** Hosts the operator configured or publishes: public_url, contact_url, contact_email, mailer.from, every frontend_host. */
  readonly domains: ReadonlySet<string>;
  /** Hosts an API is served on: public_url and every frontend_host that is no wildcard. */
  readonly apiHosts: ReadonlySet<string>;
}

export function knownDomains(config: Pick<Config, 'public_url' | 'contact_url' | 'contact_email' | 'mailer'>, published: PublishedConfig): KnownDomains {
  const publicHost = urlDomain(config.public_url);
  const frontendHosts = published.apis.map((api) => api.frontend_host.toLowerCase());
  const exactHosts = frontendHosts.filter((host) => !isWildcardHost(host)).map(withoutPort);
  // "*.example.com" and ".example.com" vouch for example.com (and so its subdomains); a bare "*" for nothing.
  const wildcardParents = frontendHosts.filter((host) => host !== '*' && isWildcardHost(host)).map((host) => withoutPort(host.replace(/^\*?\./, '')));
  const configured = [publicHost, urlDomain(config.contact_url), emailDomain(config.contact_email), emailDomain(config.mailer.from === null ? null : mailboxAddress(config.mailer.from))];
  return {
    domains: new Set([...configured, ...exactHosts, ...wildcardParents].filter((host): host is string => host !== null && host !== '')),
    apiHosts: new Set([publicHost, ...exactHosts].filter((host): host is string => host !== null && host !== '')),
  };
}

/**
 * A domain is known when it is a known host, a subdomain of one, or a parent
 * domain of one (of two labels at least). API Umbrella compares registrable
 * domains by the public suffix list; without one, a sibling (www.example.com
 * for api.example.com) is refused rather than risk a stranger's name under a
 * shared suffix (someone.cloudfront.net for ours.cloudfront.net).
 */
export function isKnownDomain(known: KnownDomains, domain: string | null): boolean {
  if (domain === null) return false;
  const name = domain.toLowerCase().replace(/\.$/, '');
  if (name === '') return false;
  for (const host of known.domains) {
    if (name === host) return true;
    if (isIP(host) !== 0 || isIP(name) !== 0) continue;
    if (name.endsWith(`.${host}`)) return true;
    if (name.includes('.') && host.endsWith(`.${name}`)) return true;
  }
  return false;
}

/** An email address at a known domain (API Umbrella's sanitized_email), else null. */
export function knownEmailAddress(known: KnownDomains, value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const address = value.trim();
  return isEmailAddress(address) && !/[\s<>]/.test(address) && isKnownDomain(known, emailDomain(address)) ? address : null;
}

/** An http(s) or mailto URL at a known domain (API Umbrella's sanitized_url), else null. */
export function knownContactUrl(known: KnownDomains, value: unknown): string | null {
  if (typeof value !== 'string' || !URL.canParse(value.trim())) return null;
  const url = new URL(value.trim());
  const domain = url.protocol === 'mailto:' ? emailDomain(decoded(url.pathname)) : url.protocol === 'http:' || url.protocol === 'https:' ? url.hostname : null;
  return isKnownDomain(known, domain) ? value.trim() : null;
}

/** An http(s) URL on a host an API is served on (API Umbrella's sanitized_api_url), else null. Kept as sent: it holds {{api_key}}. */
export function knownApiUrl(known: KnownDomains, value: unknown): string | null {
  if (typeof value !== 'string' || !/^https?:\/\//i.test(value.trim()) || !URL.canParse(value.trim())) return null;
  return known.apiHosts.has(new URL(value.trim()).hostname.toLowerCase()) ? value.trim() : null;
}

function urlDomain(url: string | null): string | null {
  if (url === null || !URL.canParse(url)) return null;
  const parsed = new URL(url);
  return parsed.protocol === 'mailto:' ? emailDomain(decoded(parsed.pathname)) : parsed.hostname.toLowerCase() || null;
}

function decoded(text: string): string | null {
  try {
    return decodeURIComponent(text);
  } catch {
    return null;
  }
}

function emailDomain(address: string | null): string | null {
  if (address === null) return null;
  const at = address.lastIndexOf('@');
  return at < 0 ? null : address.slice(at + 1).trim().toLowerCase() || null;
}

/** "api.example.com:8080" → "api.example.com" (an IPv6 literal keeps its brackets off). */
function withoutPort(host: string): string {
  const bracketed = /^\[([^\]]+)\](:\d+)?$/.exec(host);
  if (bracketed !== null) return bracketed[1]!;
  return host.replace(/:\d+$/, '');
}
