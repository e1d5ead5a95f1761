/** What the caller asked cannot be done as asked (exit 2); a config or store that cannot be used is exit 1. */
export class UsageError extends Error {}
