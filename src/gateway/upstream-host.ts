// The Host a backend is sent, from its backend_host: as written; the
// client's own when empty; or, for a wildcard ("*", "*.example.net",
// ".example.net", which API Umbrella takes only with a wildcard frontend
// host), filled with what the frontend host's wildcard matched in the
// client's host, as API Umbrella's api_matcher does:
//   frontend "*.example.com", backend "*.example.net": a.example.com → a.example.net
//   frontend ".example.com",  backend ".example.net": a.example.com → a.example.net, example.com → example.net
//   frontend "*",             backend "*":            the client's host name
// (Where API Umbrella would glue the parts without a dot, "*.x" with
// ".example.net", or send an empty Host, the name here keeps its dot, or
// falls back to the client's Host.)
import { hostnameOf } from './request-url.js';

/** `clientHost`: the request's Host value, port and all. */
export type UpstreamHost = (clientHost: string) => string;

export function upstreamHostOf(frontendHost: string, backendHost: string): UpstreamHost {
  if (backendHost === '') return (clientHost) => clientHost;
  if (!isWildcardBackendHost(backendHost)) return () => backendHost;
  // What follows the wildcard: ".example.net" (and a port, if written), or "" / ":port" after a bare "*".
  const rest = backendHost.startsWith('*') ? backendHost.slice(1) : backendHost;
  const suffix = frontendWildcardSuffix(frontendHost);
  return (clientHost) => {
    const matched = wildcardPart(hostnameOf(clientHost).toLowerCase(), suffix);
    if (rest.startsWith('.')) return matched === '' ? rest.slice(1) : matched + rest;
    return matched === '' ? clientHost : matched + rest;
  };
}

/** "*", "*:8080", "*.example.net", ".example.net": a backend_host filled from the client's host. */
export function isWildcardBackendHost(backendHost: string): boolean {
  return backendHost.startsWith('*') || backendHost.startsWith('.');
}

/** What the frontend's wildcard covers of `hostname`: "a" of a.example.com for *.example.com or .example.com, "" for the apex example.com, all of it for "*". */
function wildcardPart(hostname: string, suffix: string | null): string {
  if (suffix === null) return '';
  if (suffix === '') return hostname;
  return hostname.endsWith(suffix) ? hostname.slice(0, hostname.length - suffix.length) : '';
}

/**
 * The part of a client's host name the frontend's wildcard does not cover
 * (".example.com" of "*.example.com" and ".example.com"; "" of "*"), or
 * null for a frontend host without a wildcard.
 */
function frontendWildcardSuffix(frontendHost: string): string | null {
  const name = hostnameOf(frontendHost).toLowerCase();
  if (name === '*') return '';
  if (name.startsWith('*.')) return name.slice(1);
  if (name.startsWith('.')) return name;
  return null;
}
