import pkg from '../package.json' with { type: 'json' }

/** The agent's version: package.json's, which matches the newest release in CHANGELOG.md. */
export const AGENT_VERSION: string = pkg.version
