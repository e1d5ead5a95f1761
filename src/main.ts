#!/usr/bin/env -S node --no-memory-reducer
// The parasol command: parse argv, load the config, run one command.
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from './config/load.js';
import { runCommand, UsageError, USAGE } from './cli/commands.js';

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: false,
    options: { config: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help === true || positionals.length === 0) {
    process.stdout.write(USAGE);
    return positionals.length === 0 && values.help !== true ? 1 : 0;
  }
  try {
    const loaded = loadConfig({ configPath: typeof values.config === 'string' ? values.config : undefined });
    return await runCommand(positionals, argv, loaded);
  } catch (error) {
    if (error instanceof ConfigError || error instanceof UsageError) {
      process.stderr.write(`parasol: ${error.message}\n`);
      return error instanceof UsageError ? 2 : 1;
    }
    process.stderr.write(`parasol: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

main(process.argv.slice(2)).then((code) => {
  // serve keeps running until a signal; every other command ends here.
  if (code !== -1) process.exitCode = code;
});
