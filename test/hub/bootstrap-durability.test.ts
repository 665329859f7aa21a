// The first start's credentials survive a power cut: the file is synced, renamed into place, and
// then the data directory is synced, so the rename itself is on disk before the database learns the
// key. Seen through strace on a real first start (a power cut cannot be staged in a test).

import { execFile } from 'node:child_process'
import { mkdtemp, readFile, realpath, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterEach, expect, it } from 'vitest'

const run = promisify(execFile)
const root = path.resolve(import.meta.dirname, '../..')
const FIRST_START = path.join(root, 'test/hub/fixtures/first-start.ts')

const dirs: string[] = []
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true })
})

it('credentials.json is renamed into place and then the data directory is fsynced', {
  timeout: 120_000,
}, async () => {
  const work = await realpath(await mkdtemp(path.join(tmpdir(), 'outpost-first-start-')))
  dirs.push(work)
  const dataDir = path.join(work, 'data')
  const trace = path.join(work, 'trace.txt')
  // -f: libuv does file work on its thread pool; -y: each fd printed with its path.
  await run(
    'strace',
    [
      '-f',
      '-y',
      '-qq',
      '-o',
      trace,
      '-e',
      'trace=rename,renameat,renameat2,fsync,fdatasync',
      process.execPath,
      FIRST_START,
      dataDir,
    ],
    { cwd: root, timeout: 110_000 },
  )
  const calls = (await readFile(trace, 'utf8')).split('\n')
  const file = path.join(dataDir, 'credentials.json')
  const renamed = calls.findIndex((line) => /rename/.test(line) && line.includes(`"${file}"`))
  expect(renamed, 'the rename of the side file into credentials.json').toBeGreaterThan(-1)
  const directorySynced = calls.findIndex(
    (line, i) => i > renamed && /\bf(data)?sync\(\d+</.test(line) && line.includes(`<${dataDir}>)`),
  )
  expect(directorySynced, `an fsync of ${dataDir} after the rename:\n${calls.join('\n')}`).toBeGreaterThan(-1)
})
