// Runtime resolution and verification. A runtime is runtimes/<id>/ installed by scripts/install-runtimes;
// an install can be broken (a dangling symlink, a package missing), and a broken runtime must be
// reported with what is missing instead of failing obscurely inside a check run.

import { readdir, readFile, realpath, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { RuntimeId } from '../model/checks.ts'

export interface RuntimeStatus {
  id: RuntimeId
  dir: string
  available: boolean
  /** The @playwright/test version installed, when it could be read. */
  playwrightVersion?: string
  /** What does not resolve: package paths from the lockfile, or dangling links. */
  missing: string[]
  /** One line saying why the runtime is unavailable. */
  reason?: string
}

interface LockPackage {
  version?: string
  link?: boolean
  optional?: boolean
  dev?: boolean
}

async function exists(path: string): Promise<boolean> {
  // stat follows symlinks, so a link pointing nowhere counts as missing.
  return stat(path).then(
    () => true,
    () => false,
  )
}

async function readJson(path: string): Promise<unknown> {
  return JSON.parse(await readFile(path, 'utf8'))
}

function lockPackages(lock: unknown): Record<string, LockPackage> {
  if (typeof lock !== 'object' || lock === null || !('packages' in lock)) return {}
  const packages = (lock as { packages: unknown }).packages
  return typeof packages === 'object' && packages !== null ? (packages as Record<string, LockPackage>) : {}
}

async function danglingBinLinks(nodeModules: string): Promise<string[]> {
  const bin = join(nodeModules, '.bin')
  const names = await readdir(bin).catch(() => [] as string[])
  const out: string[] = []
  for (const name of names) if (!(await exists(join(bin, name)))) out.push(`node_modules/.bin/${name}`)
  return out
}

/** Checks that every package the runtime's lockfile names, and every bin link, resolves on disk. */
export async function verifyRuntime(runtimesDir: string, id: RuntimeId): Promise<RuntimeStatus> {
  const dir = join(runtimesDir, id)
  const unavailable = (missing: string[], reason: string): RuntimeStatus => ({
    id,
    dir,
    available: false,
    missing,
    reason,
  })
  let lock: unknown
  try {
    lock = await readJson(join(dir, 'package-lock.json'))
  } catch {
    return unavailable(
      ['package-lock.json'],
      `runtime ${id}: ${dir}/package-lock.json is missing or unreadable`,
    )
  }
  const missing: string[] = []
  for (const [path, meta] of Object.entries(lockPackages(lock))) {
    if (path === '' || meta.optional || meta.dev) continue
    if (!(await exists(join(dir, path, 'package.json')))) missing.push(path)
  }
  missing.push(...(await danglingBinLinks(join(dir, 'node_modules'))))
  const cli = join(dir, 'node_modules', '@playwright', 'test', 'cli.js')
  if (!missing.includes('node_modules/@playwright/test') && !(await exists(cli))) {
    missing.push('node_modules/@playwright/test/cli.js')
  }
  if (missing.length > 0) {
    const shown =
      missing.slice(0, 10).join(', ') + (missing.length > 10 ? `, and ${missing.length - 10} more` : '')
    return unavailable(
      missing,
      `runtime ${id} is broken: ${shown} do not resolve; run scripts/install-runtimes ${id}`,
    )
  }
  const pw = (await readJson(join(dir, 'node_modules', '@playwright', 'test', 'package.json')).catch(
    () => ({}),
  )) as { version?: string }
  return { id, dir, available: true, missing: [], playwrightVersion: pw.version }
}

export async function verifyRuntimes(runtimesDir: string): Promise<RuntimeStatus[]> {
  return Promise.all(RuntimeId.map((id) => verifyRuntime(runtimesDir, id)))
}

/** The Playwright Test CLI of a runtime, by its real path so the spec and the CLI share one copy. */
export async function playwrightCli(runtimeDir: string): Promise<string> {
  return realpath(join(runtimeDir, 'node_modules', '@playwright', 'test', 'cli.js'))
}

/** Authorization headers are scrubbed on 2025.04 and later (the product's release history). */
export function scrubsAuthorization(id: RuntimeId): boolean {
  return id >= '2025.04'
}
