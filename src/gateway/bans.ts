// API Umbrella's `ban` (its nginx's): clients refused outright, by IP address
// or range and by User-Agent, on every path the gateway serves (APIs, signup,
// admin), before anything else looks at the request. Their answer is the
// same plain text for all, after an optional delay that slows a script down.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Config } from '../config/schema.js';
import { AddressRanges } from '../lib/address-ranges.js';
import { compileUserAgentPattern } from '../lib/user-agent-pattern.js';
import type { ProxyTrust } from './proxy-trust.js';

export type BanConfig = Config['ban'];

export class Bans {
  private readonly exactAgents: ReadonlySet<string>;
  private readonly agentPatterns: readonly RegExp[];
  private readonly body: Buffer;

  private constructor(
    private readonly config: BanConfig,
    private readonly ips: AddressRanges | null,
    private readonly trust: ProxyTrust,
  ) {
    const compiled = config.user_agents.map(compileUserAgentPattern);
    // nginx's map compares exact strings in any case.
    this.exactAgents = new Set(compiled.filter((pattern) => typeof pattern === 'string').map((agent) => agent.toLowerCase()));
    this.agentPatterns = compiled.filter((pattern) => typeof pattern !== 'string');
    // As API Umbrella's nginx sends it: the message as one line.
    this.body = Buffer.from(`${config.response.message}\n`);
  }

  /** null when nobody is banned: the request path then pays one null check. */
  static compile(config: BanConfig, trust: ProxyTrust): Bans | null {
    if (config.ips.length === 0 && config.user_agents.length === 0) return null;
    return new Bans(config, config.ips.length === 0 ? null : AddressRanges.compile(config.ips), trust);
  }

  refuses(request: IncomingMessage): boolean {
    const agent = request.headers['user-agent'];
    if (agent !== undefined && (this.exactAgents.has(agent.toLowerCase()) || this.agentPatterns.some((pattern) => pattern.test(agent)))) return true;
    return this.ips !== null && this.ips.has(this.trust.ipOf(request));
  }

  answer(request: IncomingMessage, response: ServerResponse): void {
    const { status_code: status, delay } = this.config.response;
    const send = (): void => {
      if (response.destroyed) return;
      response.writeHead(status, ['Content-Type', 'text/plain; charset=utf-8', 'Content-Length', String(this.body.length)]);
      response.end(request.method === 'HEAD' ? undefined : this.body);
    };
    if (delay === 0) send();
    else setTimeout(send, delay * 1000);
  }
}
