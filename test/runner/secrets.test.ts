import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RuntimeId } from '../../src/model/checks.ts'
import type { ProbeOutcome } from '../../src/model/probe.ts'
import { createPlaywrightRunner } from '../../src/runner/index.ts'
import { readZip } from '../../src/runner/zip.ts'
import {
  context,
  memoryLogger,
  multistep,
  RUNTIMES_DIR,
  startServer,
  type TestServer,
  tempDir,
  testDataDir,
} from './helpers.ts'

async function traceText(out: ProbeOutcome): Promise<string> {
  const trace = out.artifacts?.find((a) => a.kind === 'trace')
  if (!trace) throw new Error('no trace artifact')
  return readZip(await readFile(trace.location))
    .map((e) => `${e.name}\n${e.data.toString('utf8')}`)
    .join('\n')
}

describe('secrets in runs', () => {
  let server: TestServer
  const { log } = memoryLogger()
  const discovered: string[] = []
  const runner = createPlaywrightRunner({
    runtimesDir: RUNTIMES_DIR,
    dataDir: testDataDir(),
    secrets: { values: ['configured-agent-secret'] },
    log,
    chromiumPath: '/usr/bin/chromium',
    env: process.env,
    onSecrets: (values) => discovered.push(...values),
  })
  beforeAll(async () => {
    server = await startServer()
  })
  afterAll(async () => {
    await runner.close()
    await server.close()
  })

  it('scrubs a secret the check assigns while it runs from the result and the trace', async () => {
    const dir = await tempDir('ms-secret-')
    const spec = `
import { test, expect } from '@playwright/test'
test('assigns a secret', async ({ request }) => {
  await test.step('make secret', async () => {
    process.env.SERVICE_SECRET_TOKEN = 'assigned in-run/' + 's3cr3t&+='
    console.log('token is', process.env.SERVICE_SECRET_TOKEN, 'conf is', process.env.SERVICE_SECRET_CONF)
  })
  await test.step('use secret ' + process.env.SERVICE_SECRET_CONF, async () => {
    const r = await request.get('${server.url}/json?token=' + encodeURIComponent(process.env.SERVICE_SECRET_TOKEN ?? ''), {
      headers: { 'x-token': process.env.SERVICE_SECRET_TOKEN ?? '' },
    })
    expect(r.status()).toBe(200)
  })
})
`
    // Twice: the first run starts Playwright cold, the second takes the warm runner the first left.
    for (const warmStart of [false, true]) {
      const out = await runner.multistep(
        multistep(spec, { env: { SERVICE_SECRET_CONF: 'configured-check-secret' } }),
        context(log, join(dir.path, String(warmStart))),
      )
      expect(out.status).toBe('passed')
      expect(out.details?.warmStart).toBe(warmStart)
      const result = JSON.stringify(out)
      const trace = await traceText(out)
      const assigned = 'assigned in-run/s3cr3t&+='
      for (const secret of [
        assigned,
        encodeURIComponent(assigned),
        JSON.stringify(assigned),
        'configured-check-secret',
      ]) {
        expect(result).not.toContain(secret)
        expect(trace).not.toContain(secret)
      }
      expect(result).toContain('token is *********')
      expect(trace).toContain('token=*********')
    }
    expect(server.requests.some((r) => r.url.includes(encodeURIComponent('assigned in-run/s3cr3t&+=')))).toBe(
      true,
    )
    expect(discovered).toContain('assigned in-run/s3cr3t&+=')
    await dir.remove()
  })

  const authSpec = (url: string) => `
import { test, expect } from '@playwright/test'
import axios from 'axios'
test('sends authorization', async ({ request }) => {
  await test.step('bearer', async () => {
    const r = await request.get('${url}/json', { headers: { Authorization: 'Bearer pw-auth-' + 'value-1' } })
    expect(r.status()).toBe(200)
    const a = await axios.get('${url}/ok', { headers: { Authorization: 'Basic axios-auth-' + 'value-2' } })
    expect(a.status).toBe(200)
    console.log('sent', r.url(), 'pw-auth-' + 'value-1', 'axios-auth-' + 'value-2')
  })
})
`
  const runAuth = async (runtimeId: RuntimeId) => {
    const dir = await tempDir(`ms-auth-${runtimeId}-`)
    const out = await runner.multistep(multistep(authSpec(server.url), { runtimeId }), context(log, dir.path))
    const texts = { result: JSON.stringify(out), trace: await traceText(out) }
    await dir.remove()
    return { out, ...texts }
  }

  it('scrubs Authorization header values on 2025.04, from the result and the trace', async () => {
    const { out, result, trace } = await runAuth('2025.04')
    expect(out.status).toBe('passed')
    expect(trace).toContain('/json')
    for (const value of ['pw-auth-value-1', 'axios-auth-value-2']) {
      expect(result).not.toContain(value)
      expect(trace).not.toContain(value)
    }
    expect(result).toContain('sent')
  })

  it('keeps Authorization header values on 2023.09', async () => {
    const { out, result, trace } = await runAuth('2023.09')
    expect(out.status).toBe('passed')
    expect(trace).toContain('Bearer pw-auth-value-1')
    expect(result).toContain('axios-auth-value-2')
  })
})
