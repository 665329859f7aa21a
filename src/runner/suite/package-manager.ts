// Which package manager a suite uses, from the lockfile it ships, and how to install with it.

import { access } from 'node:fs/promises'
import { join } from 'node:path'

export const PackageManager = ['npm', 'pnpm', 'yarn', 'bun'] as const
export type PackageManager = (typeof PackageManager)[number]

export interface LockfileChoice {
  manager: PackageManager
  lockfile: string
  /** Arguments of a reproducible install: the lockfile is followed, never rewritten. */
  installArgs: string[]
}

// Order matters when several are present: the more specific managers first, npm last.
const LOCKFILES: LockfileChoice[] = [
  { manager: 'bun', lockfile: 'bun.lock', installArgs: ['install', '--frozen-lockfile'] },
  { manager: 'bun', lockfile: 'bun.lockb', installArgs: ['install', '--frozen-lockfile'] },
  { manager: 'pnpm', lockfile: 'pnpm-lock.yaml', installArgs: ['install', '--frozen-lockfile'] },
  {
    manager: 'yarn',
    lockfile: 'yarn.lock',
    installArgs: ['install', '--frozen-lockfile', '--non-interactive'],
  },
  { manager: 'npm', lockfile: 'package-lock.json', installArgs: ['ci', '--no-audit', '--no-fund'] },
  { manager: 'npm', lockfile: 'npm-shrinkwrap.json', installArgs: ['ci', '--no-audit', '--no-fund'] },
]

/** Files besides package.json and the lockfile that change what an install produces. */
export const INSTALL_INPUTS = [
  'package.json',
  '.npmrc',
  '.yarnrc',
  '.yarnrc.yml',
  'pnpm-workspace.yaml',
  '.pnpmfile.cjs',
  'bunfig.toml',
]

export async function detectLockfile(suiteDir: string): Promise<LockfileChoice | undefined> {
  for (const choice of LOCKFILES) {
    const found = await access(join(suiteDir, choice.lockfile)).then(
      () => true,
      () => false,
    )
    if (found) return choice
  }
  return undefined
}

export const LOCKFILE_NAMES = LOCKFILES.map((l) => l.lockfile)
