import { execFile } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { promisify } from 'node:util'
import { expect, it } from 'vitest'

const root = path.resolve(import.meta.dirname, '../..')

it('prints the newest release in CHANGELOG.md, which is package.json version', async () => {
  const changelog = await readFile(path.join(root, 'CHANGELOG.md'), 'utf8')
  const newest = /^## \[(\d+\.\d+\.\d+)\]/m.exec(changelog)?.[1]
  const pkg = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8')) as { version: string }
  const { stdout } = await promisify(execFile)(process.execPath, [
    path.join(root, 'bin/outpost.mjs'),
    'version',
  ])
  expect(newest).toBe(pkg.version)
  expect(stdout).toBe(`${pkg.version}\n`)
})

it('keeps releases newest first with Unreleased on top', async () => {
  const changelog = await readFile(path.join(root, 'CHANGELOG.md'), 'utf8')
  const headings = [...changelog.matchAll(/^## \[([^\]]+)\]/gm)].map((m) => m[1]!)
  expect(headings[0]).toBe('Unreleased')
  const versions = headings.slice(1).map((v) => v.split('.').map(Number))
  const sorted = [...versions].sort((a, b) => b[0]! - a[0]! || b[1]! - a[1]! || b[2]! - a[2]!)
  expect(versions).toEqual(sorted)
  expect(headings.slice(1, 2).concat(headings.slice(-1))).toEqual(['7.0.1', '6.0.7'])
})
