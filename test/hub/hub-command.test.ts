// `outpost hub` as a user meets it: bad settings exit 2 with one line; the first start creates and
// prints an account and an API key (kept 0600 in the data dir); a later start prints the same ones.

import { mkdtemp, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { hubCommand } from '../../src/cli/commands/hub.ts'
import type { Hub } from '../../src/hub/hub.ts'
import { spawnScript } from './helpers/child.ts'

function io(env: Record<string, string>) {
  const out: string[] = []
  const err: string[] = []
  return {
    io: { stdout: (t: string) => out.push(t), stderr: (t: string) => err.push(t), env, cwd: tmpdir() },
    out: () => out.join(''),
    err: () => err.join(''),
  }
}

async function runUntilStarted(env: Record<string, string>) {
  const captured = io(env)
  let stop: () => void = () => {}
  const stopSignal = new Promise<void>((resolve) => {
    stop = resolve
  })
  let started: (hub: Hub) => void = () => {}
  const hubReady = new Promise<Hub>((resolve) => {
    started = resolve
  })
  const exit = hubCommand([], captured.io, { onStarted: started, stopSignal })
  const hub = await Promise.race([
    hubReady,
    exit.then((code) => Promise.reject(new Error(`exited ${code}: ${captured.err()}`))),
  ])
  return {
    hub,
    captured,
    stop: async () => {
      stop()
      return exit
    },
  }
}

describe('outpost hub', () => {
  const dirs: string[] = []
  afterEach(async () => {
    for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true })
  })

  it('--help prints the usage and the environment', async () => {
    const captured = io({})
    expect(await hubCommand(['--help'], captured.io)).toBe(0)
    expect(captured.out()).toMatch(/usage: outpost hub/)
    expect(captured.out()).toMatch(/DATABASE_URL/)
    expect(await hubCommand(['--nope'], io({}).io)).toBe(2)
  })

  it.each([
    ['HUB_PORT', 'abc', /HUB_PORT="abc" is not valid: expected a whole number from 0 to 65535/],
    ['HUB_PORT', '70000', /HUB_PORT="70000"/],
    [
      'DATABASE_URL',
      'mysql://db/hub',
      /DATABASE_URL="mysql:\/\/db\/hub" is not valid: expected a URL with scheme postgres or postgresql/,
    ],
    ['HUB_LEASE_SECONDS', '0', /HUB_LEASE_SECONDS="0"/],
    [
      'HUB_DATABASE_TIMEOUT_SECONDS',
      '0',
      /HUB_DATABASE_TIMEOUT_SECONDS="0" is not valid: expected a whole number from 1 to 3600/,
    ],
    ['HUB_HOST', 'not a host!', /HUB_HOST="not a host!" is not valid: expected an IP address/],
  ])('%s=%s exits 2 with one line naming variable, value and rule', async (name, value, message) => {
    const captured = io({ [name]: value })
    expect(await hubCommand([], captured.io)).toBe(2)
    expect(captured.err()).toMatch(message)
    expect(captured.err().trim().split('\n')).toHaveLength(1)
  })

  it('first start creates and prints an account and an API key; the next start prints the same', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'outpost-hubcmd-'))
    dirs.push(dataDir)
    const env = { HUB_PORT: '0', HUB_DATA_DIR: dataDir }
    const first = await runUntilStarted(env)
    const out = first.captured.out()
    const key = /^API key: (\S+)$/m.exec(out)?.[1]
    const account = /^Account: (\S+)$/m.exec(out)?.[1]
    expect(key).toMatch(/^op_/)
    expect(account).toBeDefined()
    expect(out).toContain(`listening on ${first.hub.url}`)
    const response = await fetch(`${first.hub.url}/v1/status-pages/incidents`, {
      headers: { authorization: `Bearer ${key}` },
    })
    expect(response.status).toBe(200)
    expect((await stat(path.join(dataDir, 'credentials.json'))).mode & 0o777).toBe(0o600)
    expect(await first.stop()).toBe(0)

    const second = await runUntilStarted(env)
    expect(second.captured.out()).toContain(`API key: ${key}\n`)
    expect(second.captured.out()).toContain(`Account: ${account}\n`)
    expect(await second.stop()).toBe(0)
  })

  it('as a process: prints the URL, key and account, serves, and exits 0 on SIGTERM', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'outpost-hubproc-'))
    dirs.push(dataDir)
    const root = path.resolve(import.meta.dirname, '../..')
    const hub = spawnScript(
      path.join(root, 'test/hub/fixtures/hub-main.ts'),
      { HUB_PORT: '0', HUB_DATA_DIR: dataDir },
      root,
    )
    const url = (await hub.waitFor(/listening on (http:\/\/\S+)/))[1] as string
    const key = (await hub.waitFor(/^API key: (\S+)$/m))[1] as string
    await hub.waitFor(/^Account: \S+$/m)
    const response = await fetch(`${url}/v1/status-pages/incidents`, {
      headers: { authorization: `Bearer ${key}` },
    })
    expect(response.status).toBe(200)
    await hub.kill('SIGTERM')
    expect(await hub.exited).toEqual({ code: 0, signal: null })
    // The key is printed once, on its own line, and in no log line.
    expect(hub.output().split(key).length - 1).toBe(1)
  })
})

describe('the embedded hub of npm start', () => {
  it('creates credentials once, prints them, and reuses them', async () => {
    const { startEmbeddedHub } = await import('../../src/hub/embedded.ts')
    const dataDir = await mkdtemp(path.join(tmpdir(), 'outpost-embedded-'))
    try {
      const first = await startEmbeddedHub({ dataDir, port: 0 })
      expect(first.banner).toContain(`API key: ${first.apiKey}\n`)
      expect(first.banner).toContain(`Account: ${first.accountId}`)
      const response = await fetch(`${first.url}/v1/status-pages/incidents`, {
        headers: { authorization: `Bearer ${first.apiKey}` },
      })
      expect(response.status).toBe(200)
      await first.hub.close()
      const second = await startEmbeddedHub({ dataDir, port: 0 })
      expect([second.apiKey, second.accountId]).toEqual([first.apiKey, first.accountId])
      await second.hub.close()
    } finally {
      await rm(dataDir, { recursive: true, force: true })
    }
  })
})
