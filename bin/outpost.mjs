#!/usr/bin/env node
// Entry point. Checks the Node version before loading TypeScript sources, which older Nodes cannot run.
import '../scripts/require-node.mjs'

const { main } = await import('../src/cli/main.ts')
process.exitCode = await main(process.argv.slice(2))
