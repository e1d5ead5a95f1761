// A backend's URL rewrites, as API Umbrella applies them: each rule in turn,
// for its HTTP method, over the upstream path and query after the prefix,
// api_key and append_query_string edits (so sub-settings, which match before,
// see the unrewritten target). A "regex" rule replaces every case-insensitive
// match ($1, ${1}, $0 in the replacement). A "route" rule matches the path
// against a pattern (":name" one segment, "*name" or "*" any run) and the
// query against its parameters, then replaces the whole target with its
// Mustache template of the captures, escaped when they go in the query.
import Mustache from 'mustache';
import type { SubSettingMethod, UrlRewrite } from '../api-backends/model.js';
import { decodeQueryComponent } from './request-url.js';

type Rewrite = (target: string) => string;

interface CompiledRule {
  readonly method: SubSettingMethod;
  readonly rewrite: Rewrite;
}

export class UrlRewrites {
  private constructor(private readonly rules: readonly CompiledRule[]) {}

  /** null when there is nothing to rewrite. A rule that does not compile (validation refuses those) is left out. */
  static compile(rules: readonly UrlRewrite[]): UrlRewrites | null {
    const compiled = rules.flatMap((rule) => {
      try {
        return [{ method: rule.http_method, rewrite: compileRule(rule) }];
      } catch {
        return [];
      }
    });
    return compiled.length === 0 ? null : new UrlRewrites(compiled);
  }

  /** `target` (path and query, as sent upstream) after every rule for `method`. */
  apply(method: string, target: string): string {
    let rewritten = target;
    for (const rule of this.rules) {
      if (rule.method === 'any' || rule.method === method) rewritten = applied(rule.rewrite, rewritten);
    }
    return rewritten === target ? target : asRequestTarget(rewritten);
  }
}

/** A rule that fails on this target (a template that cannot render it) leaves it as it was, as API Umbrella's pcall does. */
function applied(rewrite: Rewrite, target: string): string {
  try {
    return rewrite(target);
  } catch {
    return target;
  }
}

/** Why `rule` does not compile (its regular expression, route pattern or template), or null. */
export function rewriteError(rule: UrlRewrite): string | null {
  try {
    compileRule(rule);
    return null;
  } catch (error) {
    return (error as Error).message.split('\n')[0]!;
  }
}

function compileRule(rule: UrlRewrite): Rewrite {
  return rule.matcher_type === 'regex' ? regexRewrite(rule.frontend_matcher, rule.backend_replacement) : routeRewrite(rule.frontend_matcher, rule.backend_replacement);
}

function regexRewrite(matcher: string, replacement: string): Rewrite {
  const regex = new RegExp(matcher, 'gi');
  const groups = new RegExp(`${matcher}|`).exec('')!.length - 1;
  const parts = replacementParts(replacement);
  // A function, not a replacement string: JavaScript's own "$&", "$`" and "$<name>" are not nginx's.
  // Past the last group, replace() passes the offset and the whole string: those are no captures.
  const expand = (...match: unknown[]) => parts.map((part) => (typeof part !== 'number' ? part : part > groups ? '' : ((match[part] as string | undefined) ?? ''))).join('');
  return (target) => target.replace(regex, expand);
}

/** nginx's replacement syntax: "$N" and "${N}" a capture ($0 the whole match), "$$" a dollar. */
function replacementParts(replacement: string): (string | number)[] {
  const parts: (string | number)[] = [];
  let last = 0;
  for (const reference of replacement.matchAll(/\$(?:(\d+)|\{(\d+)\}|(\$))/g)) {
    parts.push(replacement.slice(last, reference.index));
    parts.push(reference[3] === undefined ? Number(reference[1] ?? reference[2]) : '$');
    last = reference.index + reference[0].length;
  }
  parts.push(replacement.slice(last));
  return parts;
}

/** Query parameters as nginx's decode_args reads them: a bare name is true, a repeated one a list. */
type QueryArgs = Map<string, string | true | (string | true)[]>;

interface ArgMatcher {
  /** The value the parameter must have, or null to capture it under `capture`. */
  readonly mustEqual: string | true | null;
  readonly capture: string;
}

interface QueryMatcher {
  /** "*" among the pattern's parameters: other parameters may come too. */
  readonly allowsOthers: boolean;
  readonly count: number;
  readonly args: ReadonlyMap<string, ArgMatcher>;
}

/** Captures are text; "{{.}}" (the view itself) or a section's non-text value renders as nothing. */
const UNESCAPED = { escape: (value: unknown): string => (typeof value === 'string' || typeof value === 'number' ? String(value) : '') };

type Captures = Record<string, string | undefined>;
type Template = (captures: Captures) => string;

function routeRewrite(matcher: string, replacement: string): Rewrite {
  const [pathPattern, queryPattern] = splitTarget(matcher);
  const pathRegex = routePathRegex(pathPattern);
  const query = queryPattern === undefined ? null : queryMatcher(queryPattern);
  const [pathTemplate, queryTemplate] = splitTarget(replacement);
  const renderPath = compileTemplate(pathTemplate, (value) => value);
  const renderQuery = queryTemplate === undefined ? null : compileTemplate(queryTemplate, queryEscaped);
  return (target) => {
    const [path, requestQuery] = splitTarget(target);
    const match = pathRegex.exec(path);
    if (match === null) return target;
    // A match's groups object has no prototype already: {{constructor}} is just an unknown name.
    const captures: Captures = match.groups ?? viewOf(undefined);
    if (query !== null && !captureQuery(query, decodeArgs(requestQuery ?? ''), captures)) return target;
    const rewrittenPath = renderPath(captures);
    if (renderQuery === null) return rewrittenPath;
    const rewrittenQuery = renderQuery(captures);
    // nginx sends no "?" for an empty query.
    return rewrittenQuery === '' ? rewrittenPath : `${rewrittenPath}?${rewrittenQuery}`;
  };
}

/**
 * A replacement template: text and plain {{name}} tags (nearly every one) are
 * joined directly, about ten times faster than a Mustache render; anything
 * else (sections, dotted names) is rendered by Mustache. `escape` is applied
 * to each capture.
 */
function compileTemplate(template: string, escape: (value: string) => string): Template {
  const tokens = Mustache.parse(template);
  const plain = tokens.every(([type, value]) => type === 'text' || ((type === 'name' || type === '&') && !value.includes('.')));
  if (!plain) {
    return (captures) => {
      const escaped = Object.fromEntries(Object.entries(captures).map(([name, value]) => [name, value === undefined ? '' : escape(value)]));
      return Mustache.render(template, viewOf(escaped), undefined, UNESCAPED);
    };
  }
  const parts = tokens.map(([type, value]) => (type === 'text' ? value : { name: value }));
  return (captures) => {
    let rendered = '';
    for (const part of parts) {
      if (typeof part === 'string') rendered += part;
      else {
        const value = captures[part.name];
        if (value !== undefined) rendered += escape(value);
      }
    }
    return rendered;
  };
}

/** Without a prototype, so that a template's {{constructor}} or {{toString}} is just an unknown name. */
function viewOf(values: Captures | undefined): Captures {
  return Object.assign(Object.create(null) as Captures, values);
}

/** As nginx's escape_uri leaves a joined list of values readable: "a,b", not "a%2Cb". */
function queryEscaped(value: string): string {
  let escaped: string;
  try {
    escaped = encodeURIComponent(value);
  } catch {
    escaped = encodeURIComponent(wellFormed(value));
  }
  return escaped.includes('%2C') ? escaped.replaceAll('%2C', ',') : escaped;
}

/** [path, query]; the query undefined when there is no "?". */
function splitTarget(target: string): [string, string | undefined] {
  const queryAt = target.indexOf('?');
  return queryAt < 0 ? [target, undefined] : [target.slice(0, queryAt), target.slice(queryAt + 1)];
}

/** The route-pattern syntax API Umbrella took from bjoerge/route-pattern; a trailing "/" is optional either way. */
function routePathRegex(pattern: string): RegExp {
  const source = pattern
    .replace(/[-{}[\]+?.,\\^$|#\s]/g, '\\$&')
    .replace(/\*(\W|$)/g, '.*?$1')
    .replace(/:(\w+)/g, '(?<$1>[^/]+)')
    .replace(/\*(\w+)/g, '(?<$1>.*?)')
    .replace(/\/$/, '');
  return new RegExp(`^${source}/?$`);
}

function queryMatcher(pattern: string): QueryMatcher {
  const parsed = decodeArgs(pattern);
  const args = new Map<string, ArgMatcher>();
  for (const [name, value] of parsed) {
    if (name === '*' && value === true) continue;
    const single = Array.isArray(value) ? value[value.length - 1]! : value;
    const captures = typeof single === 'string' && single.startsWith(':');
    args.set(name, { mustEqual: captures ? null : single, capture: captures ? single.slice(1) : '' });
  }
  return { allowsOthers: parsed.get('*') === true, count: parsed.size, args };
}

/** Whether the request's parameters fit; captures go into `captures` (a repeated parameter's values joined by ","). */
function captureQuery(matcher: QueryMatcher, args: QueryArgs, captures: Captures): boolean {
  if (!matcher.allowsOthers && args.size !== matcher.count) return false;
  for (const [name, expected] of matcher.args) {
    const value = args.get(name);
    if (expected.mustEqual !== null) {
      if (value !== expected.mustEqual) return false;
    } else {
      captures[expected.capture] = Array.isArray(value) ? value.map(argText).join(',') : argText(value);
    }
  }
  return true;
}

function argText(value: string | true | undefined): string {
  return typeof value === 'string' ? value : '';
}

function decodeArgs(query: string): QueryArgs {
  const args: QueryArgs = new Map();
  for (const pair of query.split('&')) {
    if (pair === '') continue;
    const equals = pair.indexOf('=');
    const name = decodeQueryComponent(equals < 0 ? pair : pair.slice(0, equals));
    const value = equals < 0 ? true : decodeQueryComponent(pair.slice(equals + 1));
    const existing = args.get(name);
    args.set(name, existing === undefined ? value : Array.isArray(existing) ? [...existing, value] : [existing, value]);
  }
  return args;
}

/** Bytes a request line cannot carry (or that would end it early) percent-encoded, and a leading "/". */
const NOT_SENDABLE = /[^\x21-\x7e]|#/gu;

const HAS_NOT_SENDABLE = /[^\x21-\x7e]|#/;

function asRequestTarget(target: string): string {
  const sendable = HAS_NOT_SENDABLE.test(target) ? wellFormed(target).replace(NOT_SENDABLE, (character) => encodeURIComponent(character)) : target;
  return sendable.startsWith('/') ? sendable : `/${sendable}`;
}

const LONE_SURROGATE = /[\ud800-\udfff]/gu;

/** A lone surrogate (which a replacement may hold) as a UTF-8 decoder would read it: encodeURIComponent throws on one. */
function wellFormed(text: string): string {
  return text.replace(LONE_SURROGATE, '\ufffd');
}
