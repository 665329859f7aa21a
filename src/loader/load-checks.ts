// Loads a directory of check files into CheckDefinitions plus every problem found on the way.
// Nothing a check file does (a syntax error, a throw, a bad option, a never-settling top-level await)
// stops the load: each becomes a diagnostic and the other files still load.

import { randomUUID } from 'node:crypto'
import { existsSync, statSync } from 'node:fs'
import { relative, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { Check, CheckContext } from '../constructs/check.ts'
import { type Diagnostic, Diagnostics } from '../constructs/diagnostics.ts'
import { type ResolvedProjectConfig, resolveProjectConfig } from '../constructs/project-config.ts'
import { runInFileScope } from '../constructs/session.ts'
import type { CheckDefinition } from '../model/checks.ts'
import { findCheckFiles } from './find-check-files.ts'
import { LOAD_MARKER, registerCheckImportHooks, withLoadMarker } from './import-hooks.ts'

export interface LoadChecksOptions {
  /** A check file whose import has not settled by then is reported and skipped (default 30 s). */
  importTimeoutMs?: number
}

export interface LoadedChecks {
  checks: CheckDefinition[]
  /** `file` is relative to the loaded directory. */
  diagnostics: Diagnostic[]
  /** Check files matched, relative to the directory, sorted. */
  files: string[]
  /** The globs the files were matched with (the config's checkMatch, else the default). */
  checkMatch: string[]
  /** The project config file used, relative to the directory, if any. */
  configFile?: string
}

/** The directory itself is unusable: a usage error rather than a problem in a check. */
export class ChecksDirectoryError extends Error {
  override name = 'ChecksDirectoryError'
}

export const CONFIG_FILE_NAMES = ['outpost.config.ts', 'outpost.config.mjs', 'outpost.config.js'] as const
const DEFAULT_IMPORT_TIMEOUT_MS = 30_000

interface Declared {
  file: string
  construct: Check
}

export async function loadChecks(dir: string, options: LoadChecksOptions = {}): Promise<LoadedChecks> {
  const root = resolve(dir)
  if (!existsSync(root) || !statSync(root).isDirectory()) {
    throw new ChecksDirectoryError(`${dir} is not a directory`)
  }
  const timeoutMs = options.importTimeoutMs ?? DEFAULT_IMPORT_TIMEOUT_MS
  const loadId = randomUUID()
  const diagnostics = new Diagnostics()
  const hooks = registerCheckImportHooks({
    packageEntryUrl: new URL('../index.ts', import.meta.url).href,
    packageSourcesUrl: new URL('../', import.meta.url).href,
  })
  const releaseExit = guardProcessExit()
  try {
    const configFile = CONFIG_FILE_NAMES.map((name) => resolve(root, name)).find((file) => existsSync(file))
    const config = configFile
      ? await loadConfig(configFile, loadId, timeoutMs, diagnostics)
      : resolveProjectConfig(() => {}, undefined)
    const files = await findCheckFiles(root, config.checkMatch, config.ignoreDirectoriesMatch)
    const declared: Declared[] = []
    for (const file of files) {
      declared.push(...(await importCheckFile(resolve(root, file), loadId, timeoutMs, diagnostics)))
    }
    const checks = buildDefinitions(root, declared, config, diagnostics)
    const result: LoadedChecks = {
      checks,
      diagnostics: inFileOrder(diagnostics.items, configFile).map((d) =>
        d.file ? { ...d, file: relative(root, d.file) } : d,
      ),
      files,
      checkMatch: config.checkMatch,
    }
    if (configFile) result.configFile = relative(root, configFile)
    return result
  } finally {
    releaseExit()
    hooks.deregister()
  }
}

/** What process.exit throws while check files load: a check file must never end the agent. */
class ProcessExitInCheckFile extends Error {
  constructor(code: unknown) {
    super(
      `process.exit(${code === undefined ? '' : String(code)}) was called; a check file must not end the agent`,
    )
    this.name = 'ProcessExitInCheckFile'
  }
}

interface ExitGuard {
  (code?: number | string | null): never
  real: typeof process.exit
  loads: number
}

/**
 * Replaces process.exit while check files load; loads may overlap, so the guard counts them and the
 * real function comes back when the last one ends.
 */
function guardProcessExit(): () => void {
  let guard = process.exit as unknown as Partial<ExitGuard>
  if (guard.real === undefined) {
    const fresh = ((code?: number | string | null) => {
      throw new ProcessExitInCheckFile(code)
    }) as ExitGuard
    fresh.real = process.exit
    fresh.loads = 0
    process.exit = fresh
    guard = fresh
  }
  const installed = guard as ExitGuard
  installed.loads += 1
  return () => {
    installed.loads -= 1
    if (installed.loads === 0 && process.exit === (installed as unknown)) process.exit = installed.real
  }
}

async function loadConfig(
  file: string,
  loadId: string,
  timeoutMs: number,
  diagnostics: Diagnostics,
): Promise<ResolvedProjectConfig> {
  const report = (property: string, reason: string) => diagnostics.add({ file, property, reason })
  let exported: unknown
  try {
    const module = await importWithTimeout(withLoadMarker(pathToFileURL(file).href, loadId), timeoutMs)
    exported = (module as { default?: unknown }).default
    if (exported === undefined)
      report('default export', 'is missing; write export default defineConfig({...})')
  } catch (error) {
    diagnostics.add({ file, reason: describeImportError(error, file) })
  }
  return resolveProjectConfig(report, exported)
}

async function importCheckFile(
  file: string,
  loadId: string,
  timeoutMs: number,
  diagnostics: Diagnostics,
): Promise<Declared[]> {
  const constructs: Check[] = []
  let open = true
  const scope = {
    file,
    add(construct: Check) {
      // A file still running after its timeout must not add checks to a load that moved on.
      if (open) constructs.push(construct)
    },
  }
  try {
    await runInFileScope(scope, () =>
      importWithTimeout(withLoadMarker(pathToFileURL(file).href, loadId), timeoutMs),
    )
  } catch (error) {
    // A half-run file's checks are left out: they may depend on what failed after them.
    diagnostics.add({ file, reason: describeImportError(error, file) })
    return []
  } finally {
    open = false
  }
  return constructs.map((construct) => ({ file, construct }))
}

class ImportTimeout extends Error {}

async function importWithTimeout(url: string, timeoutMs: number): Promise<unknown> {
  // Not unref'd: the caller may be awaiting nothing else, and an unref'd timer would let Node exit
  // mid-load. It is cleared as soon as the import settles.
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new ImportTimeout(
            `did not finish loading within ${timeoutMs} ms (a top-level await that never settles?)`,
          ),
        ),
      timeoutMs,
    )
  })
  try {
    return await Promise.race([import(url), timeout])
  } finally {
    clearTimeout(timer)
  }
}

function describeImportError(error: unknown, file: string): string {
  if (error instanceof ImportTimeout) return error.message
  const message = error instanceof Error ? `${error.name}: ${error.message}` : `threw ${String(error)}`
  const where = error instanceof Error ? lineIn(error.stack ?? '', file) : undefined
  const clean = message.split('\n')[0]?.replace(new RegExp(`\\?${LOAD_MARKER}=[\\w-]+`, 'g'), '') ?? message
  return `failed to load${where ? ` (line ${where})` : ''}: ${clean}`
}

/** The line of `file` in a stack, so the user sees where in their file it went wrong. */
function lineIn(stack: string, file: string): string | undefined {
  const url = pathToFileURL(file).href
  for (const line of stack.split('\n')) {
    const at = line.indexOf(url)
    if (at === -1) continue
    const match = /:(\d+):\d+\)?\s*$/.exec(line.slice(at))
    if (match) return match[1]
  }
  return undefined
}

function buildDefinitions(
  root: string,
  declared: readonly Declared[],
  config: ResolvedProjectConfig,
  diagnostics: Diagnostics,
): CheckDefinition[] {
  const checks: CheckDefinition[] = []
  const firstFileOf = new Map<string, string>()
  for (const { file, construct } of declared) {
    const context: CheckContext = { checkFile: file, defaults: config.defaults }
    const before = diagnostics.count
    construct.validate(diagnostics, context)
    const id = construct.logicalId
    const first = firstFileOf.get(id)
    if (first !== undefined) {
      const where = first === file ? 'earlier in this file' : `in ${relative(root, first)}`
      diagnostics.add({
        file,
        logicalId: id,
        property: 'logicalId',
        reason: `duplicate: also declared ${where}`,
      })
      continue
    }
    firstFileOf.set(id, file)
    if (diagnostics.count > before) continue
    try {
      checks.push(construct.toDefinition(context))
    } catch (error) {
      // validate() passed, so this is our bug; report it against the check rather than crash.
      diagnostics.add({ file, logicalId: id, reason: `could not be built: ${(error as Error).message}` })
    }
  }
  return checks
}

/** Grouped by file (the config first), keeping each file's problems in the order they were found. */
function inFileOrder(items: readonly Diagnostic[], configFile: string | undefined): Diagnostic[] {
  const rank = (d: Diagnostic) => (d.file === configFile ? '' : (d.file ?? ''))
  return [...items].sort((a, b) => (rank(a) < rank(b) ? -1 : rank(a) > rank(b) ? 1 : 0))
}
