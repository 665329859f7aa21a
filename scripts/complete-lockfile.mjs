#!/usr/bin/env node
// Adds the lockfile entries npm leaves out for other platforms' optional packages (the native
// binaries of biome, pnpm, ...) when it installs from a mirror registry (npm/cli#9342). Without
// them `npm ci` refuses the lockfile on every machine. Run after adding or updating a package:
//   node scripts/complete-lockfile.mjs [--check]
// --check only reports what is missing and exits 1 if anything is.

import { execFileSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'

const root = path.resolve(import.meta.dirname, '..')
const file = path.join(root, 'package-lock.json')
const checkOnly = process.argv.includes('--check')
if (process.argv.includes('--help')) {
  console.log('usage: node scripts/complete-lockfile.mjs [--check]')
  process.exit(0)
}
const lock = JSON.parse(readFileSync(file, 'utf8'))
const packages = lock.packages

/** Where Node would find `name` from the package at `from` (nested first, then up to the root). */
function resolvedKey(from, name) {
  let dir = from
  for (;;) {
    const key = dir ? `${dir}/node_modules/${name}` : `node_modules/${name}`
    if (packages[key]) return key
    if (!dir) return undefined
    const cut = dir.lastIndexOf('/node_modules/')
    dir = cut === -1 ? '' : dir.slice(0, cut)
  }
}

const missing = []
for (const [key, entry] of Object.entries(packages)) {
  for (const [name, range] of Object.entries(entry.optionalDependencies ?? {})) {
    if (!resolvedKey(key, name)) missing.push({ name, range, dev: entry.dev === true })
  }
}
const unique = [...new Map(missing.map((m) => [m.name, m])).values()]
if (unique.length === 0) {
  console.log('complete-lockfile: nothing missing')
  process.exit(0)
}
for (const m of unique) console.log(`complete-lockfile: missing ${m.name}@${m.range}`)
if (checkOnly) process.exit(1)

for (const m of unique) {
  const entry = registryEntry(m) ?? platformOnlyEntry(m)
  packages[`node_modules/${m.name}`] = entry
  console.log(
    `complete-lockfile: added ${m.name}@${entry.version}${entry.integrity ? '' : ' (not on this registry: os/cpu from its name)'}`,
  )
}

/** The entry as npm would write it, when the registry has the package. */
function registryEntry(m) {
  let view
  try {
    const args = [
      'view',
      `${m.name}@${m.range}`,
      '--json',
      'version',
      'dist',
      'os',
      'cpu',
      'libc',
      'license',
      'engines',
    ]
    view = JSON.parse(execFileSync('npm', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }))
  } catch {
    return undefined
  }
  const info = Array.isArray(view) ? view[view.length - 1] : view
  return ordered({ ...info, integrity: info.dist?.integrity, dev: m.dev })
}

/**
 * Mirrors often carry only the platforms they serve. A pinned version and the platform from the
 * package's name are what `npm ci` needs to accept the lockfile and skip the package elsewhere.
 */
function platformOnlyEntry(m) {
  if (!/^\d+\.\d+\.\d+/.test(m.range))
    throw new Error(`${m.name}@${m.range}: not on the registry and not pinned`)
  const platform =
    /(android|darwin|linux|win32|freebsd|openbsd|netbsd|sunos|aix)-(arm64|arm|x64|ia32|ppc64|riscv64|s390x|loong64)(?:-(musl|gnu))?/.exec(
      m.name,
    )
  if (!platform) throw new Error(`${m.name}: not on the registry, and its name names no platform`)
  const [, os, cpu, libc] = platform
  return ordered({
    version: m.range,
    os: [os],
    cpu: [cpu],
    libc: libc ? [libc === 'gnu' ? 'glibc' : libc] : undefined,
    dev: m.dev,
  })
}

function ordered(info) {
  const entry = { version: info.version }
  if (info.integrity) entry.integrity = info.integrity
  if (info.cpu) entry.cpu = info.cpu
  if (info.dev) entry.dev = true
  if (info.engines) entry.engines = info.engines
  if (info.libc) entry.libc = info.libc
  if (info.license) entry.license = info.license
  entry.optional = true
  if (info.os) entry.os = info.os
  return entry
}

lock.packages = Object.fromEntries(
  Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))),
)
writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`)
