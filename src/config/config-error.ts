// The config errors, apart from the loader so that code it imports (the
// data_dir check) can throw them too.

/** A config that cannot be used: one line naming where the key was set, the key and what is wrong. */
export class ConfigError extends Error {
  override readonly name: string = 'ConfigError';
}

/**
 * A value found unusable after the config was loaded: a port in use, a
 * data_dir that cannot be made. The message starts with the key, as the
 * loader's do after their source; whoever holds the loaded config (the
 * command line) puts in front where `keys` were set
 * (LoadedConfig.sourceOf), so that every config error reads alike:
 * `/etc/parasol/parasol.yml: listen.port: 80 is in use on 0.0.0.0 (EADDRINUSE)`.
 */
export class ConfigValueError extends ConfigError {
  override readonly name: string = 'ConfigValueError';

  /** The keys whose values the message is about, in the order a source should name them. */
  constructor(
    readonly keys: readonly string[],
    message: string,
  ) {
    super(message);
  }
}
