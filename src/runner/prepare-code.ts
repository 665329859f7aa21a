// Puts a check's code in the run's directory. `content` becomes a spec file; an `entrypoint` is run
// from a copy of its directory, so the files beside it can be imported and a run cannot write into
// the user's project. Package imports resolve to the runtime through a node_modules link, never to
// whatever node_modules happens to sit above the checks.

import { cp, mkdir, readFile, realpath, stat, symlink, writeFile } from 'node:fs/promises'
import { basename, dirname, isAbsolute, join } from 'node:path'
import type { CheckCode } from '../model/checks.ts'

export interface PreparedCode {
  testDir: string
  specFile: string
  source: string
}

export class CodeError extends Error {
  override name = 'CodeError'
}

const SKIPPED_DIRS = new Set(['node_modules', '.git'])
const MAX_COPIED_FILES = 2000

export async function prepareCode(
  code: CheckCode,
  codeDir: string,
  runtimeDir: string,
): Promise<PreparedCode> {
  await mkdir(codeDir, { recursive: true })
  let prepared: PreparedCode
  if (code.content !== undefined && code.entrypoint === undefined) {
    const specFile = join(codeDir, 'check.spec.ts')
    await writeFile(specFile, code.content)
    prepared = { testDir: codeDir, specFile, source: code.content }
  } else if (code.entrypoint !== undefined && code.content === undefined) {
    const entry = code.entrypoint
    if (!isAbsolute(entry)) {
      throw new CodeError(`code.entrypoint '${entry}' is not an absolute path; the loader must resolve it`)
    }
    const source = await readFile(entry, 'utf8').catch((err: NodeJS.ErrnoException) => {
      throw new CodeError(`code.entrypoint '${entry}' cannot be read: ${err.code ?? err.message}`)
    })
    let copied = 0
    await cp(dirname(entry), codeDir, {
      recursive: true,
      dereference: true,
      filter: async (src) => {
        if (SKIPPED_DIRS.has(basename(src))) return false
        if ((await stat(src)).isFile() && ++copied > MAX_COPIED_FILES) {
          throw new CodeError(
            `code.entrypoint '${entry}': its directory holds more than ${MAX_COPIED_FILES} files; ` +
              'keep a check and the files it imports in a directory of their own',
          )
        }
        return true
      },
    })
    prepared = { testDir: codeDir, specFile: join(codeDir, basename(entry)), source }
  } else {
    throw new CodeError('code: exactly one of entrypoint and content must be given')
  }
  await symlink(await realpath(join(runtimeDir, 'node_modules')), join(codeDir, 'node_modules'), 'dir')
  return prepared
}
