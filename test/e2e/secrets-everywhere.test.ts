// A multistep check that does its worst with secrets: sends them in a URL path, a query string, a
// JSON body, a form body and headers, logs them raw and encoded, names a step after one, and assigns
// a new SERVICE_SECRET_ mid-run. The real CLI runs it; then the result, the agent's logs and every
// file the run left (each entry of trace.zip included) are searched for every form of every secret.

import { execFile } from 'node:child_process'
import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import type { CheckResult } from '../../src/model/result.ts'
import { readZip } from '../../src/runner/zip.ts'

const root = path.resolve(import.meta.dirname, '../..')
const AGENT_SECRET = 'Tök€n/with+special&"chars'
const CHECK_SECRET = 'form $ecret value 42'
const LATE_SECRET = 'Late$ecret-4711/ü'
const BEARER = 'bearer-credential-9d8f7e'
let server: Server
let dir: string
const received: string[] = []

/** Every textual form the scrubber promises to catch, for one value. */
function formsOf(value: string): string[] {
  return [
    value,
    encodeURIComponent(value),
    new URLSearchParams({ v: value }).toString().slice(2),
    JSON.stringify(value).slice(1, -1),
    Buffer.from(value).toString('base64'),
    Buffer.from(value).toString('base64url'),
  ]
}

async function filesBelow(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true })
  return entries.filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name))
}

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = ''
    request.on('data', (c) => {
      body += c
    })
    request.on('end', () => {
      received.push(`${request.url} ${JSON.stringify(request.headers)} ${body}`)
      response.setHeader('content-type', 'application/json')
      response.end(JSON.stringify({ echo: body, url: request.url }))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  dir = await mkdtemp(path.join(tmpdir(), 'outpost-secrets-e2e-'))
  await writeFile(
    path.join(dir, 'leaky.check.ts'),
    `import { MultiStepCheck } from 'outpost'
new MultiStepCheck('leaky', {
  name: 'Leaky check',
  runtimeId: '2025.04',
  environmentVariables: [{ key: 'FORM_SECRET', value: ${JSON.stringify(CHECK_SECRET)}, secret: true }],
  code: {
    content: \`
import { expect, test } from '@playwright/test'
const base = '${base}'
test('leaks', async ({ request }) => {
  const token = process.env.SERVICE_SECRET_TOKEN
  const form = process.env.FORM_SECRET
  process.env.SERVICE_SECRET_LATE = ${JSON.stringify(LATE_SECRET)}
  const late = process.env.SERVICE_SECRET_LATE
  await test.step('path and query', async () => {
    await request.get(base + '/p/' + encodeURIComponent(token) + '?q=' + encodeURIComponent(late))
  })
  await test.step('json body', async () => {
    await request.post(base + '/json', { data: { token, form, late } })
  })
  await test.step('form body', async () => {
    await request.post(base + '/form', { form: { token, form, late } })
  })
  await test.step('headers', async () => {
    await request.get(base + '/h', { headers: { 'x-token': encodeURIComponent(token), authorization: 'Bearer ${BEARER}' } })
  })
  console.log('raw', token, form, late)
  console.log('encoded', encodeURIComponent(token), Buffer.from(late).toString('base64'), JSON.stringify({ form }))
  await test.step('named after ' + late, async () => {
    expect(token).toBe('something else: ' + form)
  })
})
\`,
  },
})
`,
  )
})

afterAll(() => server.close())

it('leaves no form of any secret in the result, the logs, trace.zip or any artifact', async () => {
  const dataDir = path.join(dir, 'data')
  const run = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      [path.join(root, 'bin/outpost.mjs'), 'test', dir, '--reporter', 'json'],
      {
        env: {
          PATH: process.env.PATH ?? '',
          HOME: process.env.HOME ?? '/tmp',
          AGENT_DATA_DIR: dataDir,
          AGENT_HEALTH_PORT: '0',
          LOG_LEVEL: 'debug',
          SERVICE_SECRET_TOKEN: AGENT_SECRET,
        },
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
    )
  })
  // The check really ran and really sent its secrets: the server saw them in clear.
  expect(received.join('\n')).toContain(encodeURIComponent(AGENT_SECRET))
  expect(received.join('\n')).toContain(BEARER)
  const [result] = JSON.parse(run.stdout) as CheckResult[]
  expect(run.code).toBe(1)
  expect(result?.status).toBe('failed')
  expect(result?.steps?.map((s) => s.status).slice(0, 5)).toEqual([
    'passed',
    'passed',
    'passed',
    'passed',
    'failed',
  ])

  const places: Array<[string, string]> = [
    ['stdout (result)', run.stdout],
    ['stderr (logs)', run.stderr],
  ]
  const files = await filesBelow(path.join(dataDir, 'runs'))
  expect(files.some((f) => f.endsWith('trace.zip'))).toBe(true)
  for (const file of files) {
    const bytes = await readFile(file)
    places.push([file, bytes.toString('latin1')])
    places.push([file, bytes.toString('utf8')])
    if (file.endsWith('.zip')) {
      for (const entry of readZip(bytes)) places.push([`${file}!${entry.name}`, entry.data.toString('utf8')])
    }
  }
  const leaks: string[] = []
  for (const secret of [AGENT_SECRET, CHECK_SECRET, LATE_SECRET, BEARER]) {
    for (const form of formsOf(secret)) {
      for (const [where, text] of places)
        if (text.includes(form)) leaks.push(`${JSON.stringify(form)} in ${where}`)
    }
  }
  expect(leaks).toEqual([])
})
