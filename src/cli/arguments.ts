// Reads the command line into a command and its options, and refuses
// anything else: a mistyped option that was ignored would run the command on
// the built-in defaults (another store, another port) without a word.
//
// util.parseArgs cuts argv into tokens; its strict mode is not used because
// its errors do not name the option structurally (no hint could be given),
// and it takes an option given twice (the last one wins). The checks below
// refuse what strict mode would, and those too.
import { parseArgs } from 'node:util';
import { didYouMean as hintAt } from '../config/messages.js';
import { editDistance } from '../lib/spelling.js';
import { UsageError } from './usage-error.js';

/** Each command's required options, all taking a value. Every command also takes --config, --help and --version. */
export const COMMAND_OPTIONS = {
  serve: [],
  reload: [],
  health: [],
  status: [],
  stop: [],
  'config check': [],
  'admins create': ['email', 'password'],
  'admins reset-password': ['email', 'password'],
  'users create-signup-key': ['email'],
  'users delete': ['id'],
  backup: ['to'],
  restore: ['from'],
} as const satisfies Record<string, readonly string[]>;

export type CommandName = keyof typeof COMMAND_OPTIONS;

/** The options a command takes besides its required ones, all taking a value. */
const OPTIONAL_OPTIONS = {
  health: ['wait-for-status', 'wait-timeout'],
} as const satisfies Partial<Record<CommandName, readonly string[]>>;

type OptionalOptionOf<C extends CommandName> = C extends keyof typeof OPTIONAL_OPTIONS ? (typeof OPTIONAL_OPTIONS)[C][number] : never;

/** A command with its options, typed by the command: `admins create` has `email` and `password`, `health` may have `wait-for-status`. */
export type Invocation = {
  [C in CommandName]: {
    readonly command: C;
    readonly options: Readonly<Record<(typeof COMMAND_OPTIONS)[C][number], string> & Partial<Record<OptionalOptionOf<C>, string>>>;
  };
}[CommandName];

export interface CommandLine {
  /** --config PATH, when given. */
  readonly config: string | undefined;
  readonly help: boolean;
  readonly version: boolean;
  /** null when argv names no command. */
  readonly invocation: Invocation | null;
}

const GLOBAL_OPTIONS = ['config'] as const;
const EVERY_OPTION: readonly string[] = [...new Set([...GLOBAL_OPTIONS, ...Object.values(COMMAND_OPTIONS).flat(), ...Object.values(OPTIONAL_OPTIONS).flat()])];
const SEE_HELP = '; see parasol --help';
/** Options that take no value and answer on their own. */
const FLAGS: readonly string[] = ['help', 'version'];

type Token = ReturnType<typeof tokenize>[number];
type OptionToken = Extract<Token, { kind: 'option' }>;

/** Throws a UsageError naming the first thing wrong, in argv order. */
export function parseCommandLine(argv: readonly string[]): CommandLine {
  const tokens = tokenize(argv);
  const positionals = tokens.flatMap((token) => (token.kind === 'positional' ? [token.value] : []));
  const command = commandOf(positionals);
  // Until the command is known, an option of any command may be meant for it.
  const accepted = command === null ? EVERY_OPTION : [...GLOBAL_OPTIONS, ...COMMAND_OPTIONS[command], ...optionalOptionsOf(command)];
  const values = checkTokens(tokens, command, accepted);
  // API Umbrella's `api-umbrella version` and `help` are words, not options.
  const alone = positionals.length === 1 ? positionals[0] : undefined;
  const help = values.has('help') || alone === 'help';
  const version = values.has('version') || alone === 'version';
  const answersItself = help || version;
  if (command === null && positionals.length > 0 && !answersItself) throw new UsageError(`unknown command "${positionals.join(' ')}"${SEE_HELP}`);
  if (command !== null && !answersItself) requireOptions(command, values);
  const options = Object.fromEntries([...values].filter(([name]) => !FLAGS.includes(name) && name !== 'config'));
  return {
    config: values.get('config'),
    help,
    version,
    invocation: command === null ? null : ({ command, options } as Invocation),
  };
}

function optionalOptionsOf(command: CommandName): readonly string[] {
  return Object.hasOwn(OPTIONAL_OPTIONS, command) ? OPTIONAL_OPTIONS[command as keyof typeof OPTIONAL_OPTIONS] : [];
}

function tokenize(argv: readonly string[]) {
  // Every command's options are declared, so that `--email E` before the command's words leaves E out of the positionals.
  const options = Object.fromEntries(EVERY_OPTION.map((name) => [name, { type: 'string' as const }]));
  const flags = { help: { type: 'boolean', short: 'h' }, version: { type: 'boolean' } } as const;
  return parseArgs({ args: [...argv], options: { ...options, ...flags }, strict: false, allowPositionals: true, tokens: true }).tokens;
}

/** The command the first one or two words name; null for none or an unknown one. */
function commandOf(positionals: readonly string[]): CommandName | null {
  for (const words of [positionals.slice(0, 2), positionals.slice(0, 1)]) {
    const name = words.join(' ');
    if (words.length > 0 && Object.hasOwn(COMMAND_OPTIONS, name)) return name as CommandName;
  }
  return null;
}

/** The options' values by name ('help' for --help, 'version' for --version); refuses an unknown, repeated or empty option and a word after the command's. */
function checkTokens(tokens: readonly Token[], command: CommandName | null, accepted: readonly string[]): Map<string, string> {
  const values = new Map<string, string>();
  let commandWords = command?.split(' ').length ?? 0;
  for (const token of tokens) {
    if (token.kind === 'positional') {
      if (command !== null && commandWords-- <= 0) throw new UsageError(`unexpected argument ${JSON.stringify(token.value)} after "${command}"${SEE_HELP}`);
    } else if (token.kind === 'option') {
      const name = FLAGS.includes(token.name) ? token.name : checkOption(token, command, accepted);
      if (values.has(name)) throw new UsageError(`option "${token.rawName}" given twice${SEE_HELP}`);
      values.set(name, FLAGS.includes(name) ? checkFlag(token) : checkValue(token));
    }
  }
  return values;
}

function checkOption(token: OptionToken, command: CommandName | null, accepted: readonly string[]): string {
  if (accepted.includes(token.name)) return token.name;
  const forCommand = command !== null && EVERY_OPTION.includes(token.name) ? ` for ${command}` : '';
  throw new UsageError(`unknown option "${token.rawName}"${forCommand}${didYouMean(token.name, [...accepted, ...FLAGS])}${SEE_HELP}`);
}

function checkFlag(token: OptionToken): string {
  if (token.value !== undefined) throw new UsageError(`option "${token.rawName}" takes no value${SEE_HELP}`);
  return 'true';
}

/**
 * A value that looks like an option, given as the next word, means the value
 * was left out (`--config --email E`), as in strict parseArgs; such a value
 * is given as --name=VALUE. An empty one is no value: `--config ""` would
 * otherwise fall back to config/parasol.yml.
 */
function checkValue(token: OptionToken): string {
  const { value, rawName } = token;
  if (value === undefined || value === '') throw new UsageError(`option "${rawName}" needs a value${SEE_HELP}`);
  if (!token.inlineValue && value.startsWith('-')) {
    throw new UsageError(`option "${rawName}" needs a value (a value starting with "-" is given as ${rawName}=VALUE)${SEE_HELP}`);
  }
  return value;
}

function requireOptions(command: CommandName, values: ReadonlyMap<string, string>): void {
  for (const name of COMMAND_OPTIONS[command]) {
    if (!values.has(name)) throw new UsageError(`--${name} is required`);
  }
}

/** The accepted names one slip away: a letter or two wrong, missing or extra (conifg → config; one for a name of 4 letters or fewer), or a prefix of at least 3 letters. */
function didYouMean(name: string, accepted: readonly string[]): string {
  const near = accepted.filter((candidate) => {
    const [shorter, longer] = name.length < candidate.length ? [name, candidate] : [candidate, name];
    if (shorter.length >= 3 && longer.startsWith(shorter)) return true;
    return editDistance(name, candidate) <= (Math.min(name.length, candidate.length) <= 4 ? 1 : 2);
  });
  return hintAt(near.map((candidate) => `--${candidate}`));
}
