#!/usr/bin/env -S node --no-memory-reducer
// The parasol command: parse argv, load the config, run one command.
import { ConfigError, loadConfig } from './config/load.js';
import { parseCommandLine } from './cli/arguments.js';
import { runCommand, UsageError, USAGE } from './cli/commands.js';

async function main(argv: string[]): Promise<number> {
  try {
    // Before the config is read or a store touched: a mistyped option stops here.
    const { config, help, invocation } = parseCommandLine(argv);
    if (help || invocation === null) {
      process.stdout.write(USAGE);
      return help ? 0 : 1;
    }
    return await runCommand(invocation, loadConfig({ configPath: config }));
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
