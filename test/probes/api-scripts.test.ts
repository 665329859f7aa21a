import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AssertionBuilder } from '../../src/constructs/api-assertion.ts'
import { apiCheck, apiProbe, type Echo, HMAC_KEY, startApiServer, tempRunDir } from './api-fixtures.ts'
import { probeContext, type TestServer } from './url-fixtures.ts'

let server: TestServer
let run: ReturnType<typeof tempRunDir>
beforeAll(async () => {
  server = await startApiServer()
  run = tempRunDir('scripts')
})
afterAll(async () => {
  await server.close()
  run.remove()
})

const ctx = () => probeContext(run.dir)

// Signs method, path and body with HMAC-SHA256 like a webhook provider would; the key comes from the
// check's environment, the crypto from node:crypto, lodash from the check's runtime.
const SIGNING_SETUP = `
const { createHmac } = require('node:crypto')
const _ = require('lodash')
const path = new URL(request.url).pathname
request.body = JSON.stringify({ ..._.pick(JSON.parse(request.body), ['order']), signedAt: 'now' })
request.headers['X-Signature'] = createHmac('sha256', process.env.HMAC_KEY)
  .update(request.method + '\\n' + path + '\\n' + request.body)
  .digest('hex')
console.log('signed', path, 'api key:', process.env.API_KEY ?? 'unset')
console.warn('careful')
`

/** Alive and not a zombie: /proc/<pid>/stat exists and its state is not Z. */
function alive(pid: number): boolean {
  const stat = existsSync(`/proc/${pid}/stat`) ? readFileSync(`/proc/${pid}/stat`, 'utf8') : ''
  if (!stat) return false
  return stat.charAt(stat.lastIndexOf(')') + 2) !== 'Z'
}

describe('API probe: setup and teardown scripts', () => {
  it('a setup script signs the request with an HMAC header; its console output is in the logs', async () => {
    const check = apiCheck(
      {
        url: `${server.origin}/signed`,
        method: 'POST',
        body: '{"order":42,"drop":"me"}',
        bodyType: 'JSON',
        assertions: [
          AssertionBuilder.statusCode().equals(200),
          AssertionBuilder.jsonBody('$.verified').equals(true as unknown as number),
        ],
      },
      {
        setupScript: { content: SIGNING_SETUP },
        environmentVariables: [{ key: 'HMAC_KEY', value: HMAC_KEY }],
      },
    )
    const outcome = await apiProbe({ env: { PATH: process.env.PATH, API_KEY: 'agent-api-key-0001' } })(
      check,
      ctx(),
    )
    expect(outcome.error).toBeUndefined()
    expect(outcome.status).toBe('passed')
    expect(outcome.logs?.map((l) => [l.level, l.message])).toEqual([
      ['info', '[setup] signed /signed api key: unset'],
      ['warn', '[setup] careful'],
    ])
    expect(outcome.details?.scripts).toMatchObject({ setup: { ok: true } })
    // Without the script the same request is refused: the signature is what made it pass.
    const unsigned = await apiProbe()({ ...check, setupScript: undefined }, ctx())
    expect(unsigned.status).toBe('failed')
    expect(unsigned.assertions.map((r) => r.actual)).toEqual([401, false])
  })

  it('runs an entrypoint file as an ES module, with files beside it importable', async () => {
    const dir = path.join(run.dir, 'project')
    mkdirSync(dir, { recursive: true })
    writeFileSync(path.join(dir, 'tenant.ts'), "export const tenant: string = 'acme'\n")
    writeFileSync(
      path.join(dir, 'setup.ts'),
      "import { tenant } from './tenant.ts'\nimport dayjs from 'dayjs'\n" +
        "request.headers['x-tenant'] = tenant\nrequest.queryParameters.year = String(dayjs('2030-01-02').year())\n" +
        "request.method = 'put'\nawait new Promise((r) => setTimeout(r, 10))\n",
    )
    const outcome = await apiProbe()(
      apiCheck({ url: `${server.origin}/echo` }, { setupScript: { entrypoint: path.join(dir, 'setup.ts') } }),
      ctx(),
    )
    expect(outcome.error).toBeUndefined()
    const response = outcome.details?.response as { body: string } | undefined
    const echo = JSON.parse(response?.body ?? 'null') as Echo
    expect(echo).toMatchObject({ method: 'PUT', url: '/echo?year=2030', headers: { 'x-tenant': 'acme' } })
  })

  it('variables a setup script sets fill {{NAME}} in the request; still-unknown names send nothing', async () => {
    const outcome = await apiProbe()(
      apiCheck(
        {
          url: `${server.origin}/echo`,
          method: 'POST',
          bodyType: 'JSON',
          body: '{"order":"{{ORDER_ID}}","tenant":"{{TENANT}}"}',
        },
        {
          environmentVariables: [{ key: 'TENANT', value: 'acme' }],
          setupScript: { content: "console.log(request.body)\nprocess.env.ORDER_ID = 'ord-' + (40 + 2)\n" },
        },
      ),
      ctx(),
    )
    expect(outcome.error).toBeUndefined()
    const response = outcome.details?.response as { body: string } | undefined
    expect((JSON.parse(response?.body ?? 'null') as Echo).body).toBe('{"order":"ord-42","tenant":"acme"}')
    // The script saw the known variables filled and the unknown one as written.
    expect(outcome.logs?.map((l) => l.message)).toEqual(['[setup] {"order":"{{ORDER_ID}}","tenant":"acme"}'])

    const before = server.requests.length
    const missing = await apiProbe()(
      apiCheck(
        { url: `${server.origin}/echo`, body: '{{NEVER_SET}}' },
        { setupScript: { content: "console.log('ran')\n" } },
      ),
      ctx(),
    )
    expect(server.requests.length).toBe(before)
    expect(missing.error?.code).toBe('UNKNOWN_VARIABLE')
    expect(missing.error?.message).toMatch(/^unknown variable \{\{NEVER_SET\}\} in request\.body: /)
    expect(missing.logs?.map((l) => l.message)).toEqual(['[setup] ran'])
  })

  it('a teardown script reshapes the response before assertions', async () => {
    const outcome = await apiProbe()(
      apiCheck(
        {
          url: `${server.origin}/wrapped`,
          assertions: [
            AssertionBuilder.statusCode().equals(200),
            AssertionBuilder.jsonBody('$.value').equals(5),
            AssertionBuilder.headers('x-unwrapped').equals('yes' as unknown as number),
          ],
        },
        {
          tearDownScript: {
            content:
              "console.log('got', response.statusCode, request.url.endsWith('/wrapped'))\n" +
              'response.body = JSON.stringify(JSON.parse(response.body).envelope.data)\n' +
              "response.statusCode = 200\nresponse.headers['X-Unwrapped'] = 'yes'\n",
          },
        },
      ),
      ctx(),
    )
    expect(outcome.error).toBeUndefined()
    expect(outcome.status).toBe('passed')
    expect(outcome.assertions.map((r) => r.actual)).toEqual([200, 5, 'yes'])
    expect(outcome.logs?.map((l) => l.message)).toEqual(['[teardown] got 503 true'])
    // What the server really said stays in the result beside what was asserted.
    expect(outcome.details).toMatchObject({
      statusCode: 503,
      assertedResponse: { statusCode: 200, body: '{"value":5}' },
    })
  })

  it('a script that throws fails the run with its message; a failed setup sends nothing', async () => {
    const before = server.requests.length
    const outcome = await apiProbe()(
      apiCheck(
        { url: `${server.origin}/echo` },
        {
          setupScript: {
            content: "console.log('about to fail')\nthrow new Error('token service said no')\n",
          },
        },
      ),
      ctx(),
    )
    expect(server.requests.length).toBe(before)
    expect(outcome.status).toBe('failed')
    expect(outcome.error?.code).toBe('SETUP_SCRIPT_FAILED')
    expect(outcome.error?.message).toMatch(/^setup script failed: Error: token service said no/)
    expect(outcome.logs?.map((l) => l.message)).toEqual(['[setup] about to fail'])
  })

  it('a teardown that leaves a bad response is a clear failure', async () => {
    const outcome = await apiProbe()(
      apiCheck(
        { url: `${server.origin}/doc` },
        { tearDownScript: { content: "response.statusCode = 'fine'\n" } },
      ),
      ctx(),
    )
    expect(outcome.error).toEqual({
      code: 'TEARDOWN_SCRIPT_FAILED',
      message: 'teardown script: response.statusCode must be an integer, the script left "fine"',
    })
  })

  it('secrets a script assigns or receives are scrubbed from logs and result', async () => {
    const secret = 'check-secret-for-script'
    const assigned = 'assigned-at-runtime-789'
    const outcome = await apiProbe()(
      apiCheck(
        { url: `${server.origin}/echo`, method: 'POST', bodyType: 'RAW' },
        {
          environmentVariables: [{ key: 'SERVICE_SECRET_PASS', value: secret }],
          setupScript: {
            content:
              `process.env.SERVICE_SECRET_NEW = '${assigned}'\n` +
              "request.body = process.env.SERVICE_SECRET_PASS + ' ' + process.env.SERVICE_SECRET_NEW\n" +
              'console.log(request.body)\n',
          },
        },
      ),
      ctx(),
    )
    expect(outcome.status).toBe('passed')
    const text = JSON.stringify(outcome)
    expect(text).not.toContain(secret)
    expect(text).not.toContain(assigned)
    expect(outcome.logs?.[0]?.message).toBe('[setup] ********* *********')
  })

  it('a script that hangs is killed at its timeout with everything it started', async () => {
    const pidFile = path.join(run.dir, 'pids.json')
    const before = server.requests.length
    const outcome = await apiProbe({ scriptTimeoutMs: 1500, scriptGraceMs: 200 })(
      apiCheck(
        { url: `${server.origin}/echo` },
        {
          environmentVariables: [{ key: 'PID_FILE', value: pidFile }],
          setupScript: {
            content:
              "const { spawn } = require('node:child_process')\nconst fs = require('node:fs')\n" +
              "const sleeper = spawn('sleep', ['300'], { stdio: 'ignore' })\n" +
              'fs.writeFileSync(process.env.PID_FILE, JSON.stringify([process.pid, sleeper.pid]))\n' +
              "console.log('hanging')\nsetInterval(() => {}, 1000)\nawait new Promise(() => {})\n",
          },
        },
      ),
      ctx(),
    )
    expect(outcome.status).toBe('failed')
    expect(outcome.error).toEqual({
      code: 'SCRIPT_TIMEOUT',
      message: 'setup script did not finish within 1500 ms and was stopped',
    })
    expect(outcome.logs?.map((l) => l.message)).toEqual(['[setup] hanging'])
    expect(server.requests.length).toBe(before)
    const pids = JSON.parse(readFileSync(pidFile, 'utf8')) as number[]
    expect(pids).toHaveLength(2)
    for (const pid of pids) expect(alive(pid)).toBe(false)
  })

  it('a job stopped while its script runs stops the script', async () => {
    const controller = new AbortController()
    const pending = apiProbe()(
      apiCheck(
        { url: `${server.origin}/echo` },
        {
          setupScript: {
            content:
              "setInterval(() => {}, 1000)\nconsole.log('started')\n" + 'await new Promise(() => {})\n',
          },
        },
      ),
      probeContext(run.dir, controller.signal),
    )
    setTimeout(() => controller.abort(new Error('agent shutting down')), 300)
    const outcome = await pending
    expect(outcome.error).toEqual({
      code: 'SCRIPT_STOPPED',
      message: 'setup script was stopped: Error: agent shutting down',
    })
  })

  it('leaves no script files behind and refuses a runtime that is not installed', async () => {
    expect(readdirSync(run.dir).filter((f) => f.endsWith('-script'))).toEqual([])
    const outcome = await apiProbe({ runtimesDir: path.join(run.dir, 'no-runtimes') })(
      apiCheck({ url: `${server.origin}/echo` }, { setupScript: { content: '' } }),
      ctx(),
    )
    expect(outcome.error?.code).toBe('RUNTIME_UNAVAILABLE')
    expect(outcome.error?.message).toContain('runtime 2026.04 is not installed')
  })
})
