// Suite dependencies, installed once per lockfile: the install is keyed by a hash of the lockfile and
// the files that steer the package manager, and kept under the data directory. An install happens
// in a staging directory and is renamed into place only when it succeeded, so a failed or
// concurrent install never leaves a half-filled cache entry behind.

import { createHash, randomUUID } from 'node:crypto'
import { copyFile, mkdir, readFile, rename, rm, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { INSTALL_INPUTS, type LockfileChoice } from './package-manager.ts'

export async function installKey(
  suiteDir: string,
  choice: LockfileChoice,
  installCommand?: string,
): Promise<string> {
  const hash = createHash('sha256')
  hash.update(`${choice.manager}\0${installCommand ?? ''}\0${process.version}\0`)
  for (const name of [choice.lockfile, ...INSTALL_INPUTS]) {
    const data = await readFile(join(suiteDir, name)).catch(() => undefined)
    hash.update(`${name}\0${data ? data.length : -1}\0`)
    if (data) hash.update(data)
  }
  return hash.digest('hex').slice(0, 32)
}

export interface CachedInstall {
  /** The node_modules directory to link into the suite's copy. */
  nodeModules: string
  cached: boolean
  key: string
}

/** Runs the install in `dir`; resolves when it succeeded, rejects with the reason otherwise. */
export type InstallRunner = (dir: string) => Promise<void>

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  )
}

export async function ensureInstalled(options: {
  cacheDir: string
  suiteDir: string
  choice: LockfileChoice
  installCommand?: string
  install: InstallRunner
}): Promise<CachedInstall> {
  const key = await installKey(options.suiteDir, options.choice, options.installCommand)
  const final = join(options.cacheDir, key)
  const nodeModules = join(final, 'node_modules')
  if (await exists(nodeModules)) return { nodeModules, cached: true, key }

  await mkdir(options.cacheDir, { recursive: true })
  const staging = join(options.cacheDir, `.staging-${key}-${randomUUID()}`)
  await mkdir(staging)
  try {
    for (const name of [options.choice.lockfile, ...INSTALL_INPUTS]) {
      await copyFile(join(options.suiteDir, name), join(staging, name)).catch(
        (err: NodeJS.ErrnoException) => {
          if (err.code !== 'ENOENT') throw err
        },
      )
    }
    await options.install(staging)
    if (!(await exists(join(staging, 'node_modules')))) {
      throw new Error('the install finished without creating node_modules')
    }
    try {
      await rename(staging, final)
    } catch (err) {
      // Another run installed the same lockfile meanwhile: theirs is as good as ours.
      if (!(await exists(nodeModules))) throw err
    }
    return { nodeModules, cached: false, key }
  } finally {
    await rm(staging, { recursive: true, force: true })
  }
}
