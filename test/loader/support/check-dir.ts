// Temporary check directories outside the repository, like a user's /checks mount: no package.json,
// no node_modules, `outpost` resolved by the loader alone.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import type { Diagnostic } from '../../../src/constructs/diagnostics.ts'
import type { CheckDefinition } from '../../../src/model/checks.ts'
import { runNode } from './run-node.ts'

export interface CheckDir {
  path: string
  write(relativePath: string, content: string): string
  remove(): void
}

export function makeCheckDir(files: Record<string, string>): CheckDir {
  const path = mkdtempSync(join(tmpdir(), 'outpost-checks-'))
  const dir: CheckDir = {
    path,
    write(relativePath, content) {
      const file = join(path, relativePath)
      mkdirSync(dirname(file), { recursive: true })
      writeFileSync(file, content)
      return file
    },
    remove: () => rmSync(path, { recursive: true, force: true }),
  }
  for (const [file, content] of Object.entries(files)) dir.write(file, content)
  return dir
}

export interface Loaded {
  checks: CheckDefinition[]
  diagnostics: Diagnostic[]
  files: string[]
  configFile?: string
  error?: string
}

export interface LoadPlan {
  dirs: string[][]
  writes?: (Record<string, string> | null)[]
  importTimeoutMs?: number
}

/** Runs the plan in a fresh Node process; returns, per round, the result of each dir. */
export async function loadInNode(plan: LoadPlan): Promise<Loaded[][]> {
  const ran = await runNode([join(import.meta.dirname, 'load-checks-json.ts'), JSON.stringify(plan)])
  if (ran.code !== 0) throw new Error(`loader process exited ${ran.code}: ${ran.stderr}`)
  return JSON.parse(ran.stdout) as Loaded[][]
}

export async function loadOnce(dir: string, importTimeoutMs?: number): Promise<Loaded> {
  const plan: LoadPlan =
    importTimeoutMs === undefined ? { dirs: [[dir]] } : { dirs: [[dir]], importTimeoutMs }
  const [[loaded]] = (await loadInNode(plan)) as [[Loaded]]
  return loaded
}

export const lines = (loaded: Loaded) =>
  loaded.diagnostics.map((d) => [d.file, d.logicalId, d.property, d.reason].filter((x) => x).join(': '))
