// listen.host and the ports as the system takes them: each refusal as one
// line naming the key at fault, for `parasol serve` and `parasol config
// check` alike, and the host judged before anything is made (a store, a
// secret) for a start that would fail on it.
import { lookup } from 'node:dns/promises';
import { createServer } from 'node:net';
import { ConfigValueError } from './config/config-error.js';

/**
 * The listener resolves listen.host with dns.lookup() before it binds; a name
 * or a malformed address (256.1.1.1) that does not resolve stops start-up.
 * In the words of listenError() below.
 */
export async function listenHostProblem(host: string | null): Promise<ConfigValueError | null> {
  if (host === null) return null;
  try {
    await lookup(host);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return unresolvedHost(host, code);
    throw error;
  }
  return notLocalHostProblem(host);
}

/** An address of another machine is refused when bound: tried on a port the system picks, which no running gateway holds. */
async function notLocalHostProblem(host: string): Promise<ConfigValueError | null> {
  const probe = createServer();
  try {
    await new Promise<void>((resolve, reject) => probe.once('error', reject).listen(0, host, resolve));
    return null;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EADDRNOTAVAIL') return notLocalHost(host);
    throw error;
  } finally {
    probe.close();
  }
}

function unresolvedHost(host: string, code: string): ConfigValueError {
  return new ConfigValueError(['listen.host'], `listen.host: ${host} does not resolve to an address (${code})`);
}

function notLocalHost(host: string): ConfigValueError {
  return new ConfigValueError(['listen.host'], `listen.host: ${host} is not an address of this machine (EADDRNOTAVAIL)`);
}

/**
 * A listener the system refused, as one line naming the key at fault (and,
 * through the keys it carries, where the values were set); any other error
 * as it is. A port in use is about the host too: it may be free on another.
 */
export function listenError(error: unknown, portKey: 'listen.port' | 'listen.https_port', host: string | null, port: number): unknown {
  switch ((error as NodeJS.ErrnoException).code) {
    case 'EADDRINUSE':
      return new ConfigValueError([portKey, 'listen.host'], `${portKey}: ${port} is in use${host === null ? '' : ` on ${host}`} (EADDRINUSE)`);
    case 'EACCES':
      return new ConfigValueError([portKey], `${portKey}: ${port} needs privileges this user lacks (EACCES); use a port from 1024, or see the README's Install`);
    // The next ones name a host: without one (every interface), there is none to blame.
    case 'EADDRNOTAVAIL':
      return host === null ? error : notLocalHost(host);
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return host === null ? error : unresolvedHost(host, (error as NodeJS.ErrnoException).code!);
    default:
      return error;
  }
}
