#!/usr/bin/env -S node --no-memory-reducer
// The parasol command: parse argv, load the config, run one command.
import { ConfigError, ConfigValueError, loadConfig, type LoadedConfig } from './config/load.js';
import { parseCommandLine } from './cli/arguments.js';
import { runCommand, UsageError, USAGE } from './cli/commands.js';
import { PARASOL_VERSION } from './lib/parasol-version.js';

async function main(argv: string[]): Promise<number> {
  let loaded: LoadedConfig | null = null;
  try {
    // Before the config is read or a store touched: a mistyped option stops here.
    const { config, help, version, invocation } = parseCommandLine(argv);
    if (version && !help) {
      process.stdout.write(`parasol ${PARASOL_VERSION}\n`);
      return 0;
    }
    if (help || invocation === null) {
      process.stdout.write(USAGE);
      return help ? 0 : 1;
    }
    loaded = loadConfig({ configPath: config });
    return await runCommand(invocation, loaded);
  } catch (error) {
    if (error instanceof ConfigError || error instanceof UsageError) {
      process.stderr.write(`parasol: ${lineOf(error, loaded)}\n`);
      return error instanceof UsageError ? 2 : 1;
    }
    process.stderr.write(`parasol: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

/** A value found unusable after loading (a port in use) is said, as the loader says its own, after where its keys were set. */
function lineOf(error: Error, loaded: LoadedConfig | null): string {
  return error instanceof ConfigValueError && loaded !== null ? `${loaded.sourceOf(error.keys)}: ${error.message}` : error.message;
}

main(process.argv.slice(2)).then((code) => {
  // serve keeps running until a signal; every other command ends here.
  if (code !== -1) process.exitCode = code;
});
