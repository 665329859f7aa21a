// Spawns the project's Node 24 (the npm `node` package), as `npm run outpost` would.

import { execFile } from 'node:child_process'
import { resolve } from 'node:path'

export const REPO = resolve(import.meta.dirname, '../../..')
const NODE = resolve(REPO, 'node_modules/.bin/node')

export interface Ran {
  code: number
  stdout: string
  stderr: string
}

export function runNode(args: string[], cwd = REPO): Promise<Ran> {
  return new Promise((done) => {
    execFile(NODE, args, { cwd, env: { ...process.env, NO_COLOR: '1' } }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0
      done({ code, stdout, stderr })
    })
  })
}
