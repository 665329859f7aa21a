// Network namespaces for tests: made by the test, joined by veth pairs, removed in cleanup(). Addresses
// come from 198.18.0.0/15 (benchmarking range), never from private ranges. Both ends of every link live
// in namespaces we create, so nothing is added to the host's own network namespace.

import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { mkdir, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'

const execFileAsync = promisify(execFile)

export type NetnsSupport = { ok: true } | { ok: false; reason: string }

/** Namespaces need root and iproute2; CI runs as root, so there these tests always run. */
export async function netnsSupport(): Promise<NetnsSupport> {
  if (process.getuid?.() !== 0)
    return { ok: false, reason: 'network namespace tests need root (CI runs them as root)' }
  try {
    await execFileAsync('ip', ['-V'])
  } catch {
    return { ok: false, reason: 'the `ip` command (iproute2) is not installed' }
  }
  return { ok: true }
}

export interface CommandResult {
  code: number
  stdout: string
  stderr: string
}

export interface NetnsLab {
  /** Creates a namespace with its loopback up; returns its full name. */
  addNamespace(suffix: string): Promise<string>
  /** Joins two namespaces with a veth pair and gives each end an address (CIDR). */
  link(a: { ns: string; cidr: string }, b: { ns: string; cidr: string }): Promise<void>
  /** A file that `ip netns exec` bind-mounts over /etc/<name> inside the namespace (hosts, resolv.conf). */
  etcFile(ns: string, name: string, content: string): Promise<void>
  sysctl(ns: string, key: string, value: string): Promise<void>
  exec(ns: string, command: string, args: string[], options?: { timeoutMs?: number }): Promise<CommandResult>
  /** Starts a long-running process in the namespace; it is killed in cleanup(). */
  start(ns: string, command: string, args: string[]): ChildProcess
  cleanup(): Promise<void>
}

export function createNetnsLab(prefix: string): NetnsLab {
  const tag = `${prefix}${process.pid % 100000}`
  const namespaces: string[] = []
  const children: ChildProcess[] = []
  let links = 0

  const ip = async (args: string[]): Promise<void> => {
    await execFileAsync('ip', args)
  }

  return {
    async addNamespace(suffix) {
      const name = `${tag}-${suffix}`
      await ip(['netns', 'add', name])
      namespaces.push(name)
      await ip(['-n', name, 'link', 'set', 'lo', 'up'])
      return name
    },
    async link(a, b) {
      links += 1
      // Interface names are at most 15 characters.
      const left = `v${tag}a${links}`.slice(-15)
      const right = `v${tag}b${links}`.slice(-15)
      await ip(['link', 'add', left, 'netns', a.ns, 'type', 'veth', 'peer', 'name', right, 'netns', b.ns])
      await ip(['-n', a.ns, 'addr', 'add', a.cidr, 'dev', left])
      await ip(['-n', b.ns, 'addr', 'add', b.cidr, 'dev', right])
      await ip(['-n', a.ns, 'link', 'set', left, 'up'])
      await ip(['-n', b.ns, 'link', 'set', right, 'up'])
    },
    async etcFile(ns, name, content) {
      const dir = join('/etc/netns', ns)
      await mkdir(dir, { recursive: true })
      await writeFile(join(dir, name), content)
    },
    async sysctl(ns, key, value) {
      // Written through /proc rather than the sysctl tool, which slim images (no procps) lack.
      const file = `/proc/sys/${key.replaceAll('.', '/')}`
      await ip(['netns', 'exec', ns, 'sh', '-c', 'printf "%s\n" "$1" > "$2"', 'sh', value, file])
    },
    exec(ns, command, args, options = {}) {
      return new Promise((resolve) => {
        execFile(
          'ip',
          ['netns', 'exec', ns, command, ...args],
          { timeout: options.timeoutMs ?? 120_000, maxBuffer: 16 * 1024 * 1024 },
          (error, stdout, stderr) => {
            const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0
            resolve({ code, stdout, stderr })
          },
        )
      })
    },
    start(ns, command, args) {
      const child = spawn('ip', ['netns', 'exec', ns, command, ...args], {
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      children.push(child)
      return child
    },
    async cleanup() {
      for (const child of children) if (child.exitCode === null) child.kill('SIGKILL')
      // Deleting a namespace removes its veth ends, and their peers with them.
      for (const name of namespaces) {
        await execFileAsync('ip', ['netns', 'del', name]).catch(() => {})
        await rm(join('/etc/netns', name), { recursive: true, force: true })
      }
      namespaces.length = 0
    },
  }
}

/** Resolves once the child prints `line` on stdout; rejects if it exits first. */
export function waitForLine(child: ChildProcess, line: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let seen = ''
    let errors = ''
    child.stderr?.on('data', (chunk: Buffer) => {
      errors += chunk.toString()
    })
    child.stdout?.on('data', (chunk: Buffer) => {
      seen += chunk.toString()
      if (seen.split('\n').includes(line)) resolve()
    })
    child.once('exit', (code) =>
      reject(new Error(`process exited (${code}) before printing "${line}": ${errors}`)),
    )
  })
}
