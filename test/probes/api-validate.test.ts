import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { REPO, runNode } from '../loader/support/run-node.ts'

// `outpost validate` on API checks, through the real CLI entry as a user runs it.
let dir: string
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'outpost-api-validate-'))
  writeFileSync(join(dir, 'sign.ts'), "request.headers['x-signature'] = 'abc'\n")
  writeFileSync(
    join(dir, 'api.check.ts'),
    `import { ApiCheck, AssertionBuilder } from 'outpost'
const url = 'http://127.0.0.1:3000/orders'
new ApiCheck('good', {
  name: 'Good',
  request: { url: '{{BASE}}/orders', method: 'POST', bodyType: 'JSON', body: '{}',
    assertions: [AssertionBuilder.jsonBody('$.id').notEmpty()] },
  setupScript: { entrypoint: './sign.ts' },
  tearDownScript: { content: 'response.body = response.body.trim()' },
})
new ApiCheck('bad-method', { name: 'M', request: { url, method: 'FETCH' } } as never)
new ApiCheck('bad-body-type', { name: 'B', request: { url, method: 'POST', bodyType: 'XML' } } as never)
new ApiCheck('too-slow', { name: 'T', request: { url, method: 'GET' }, maxResponseTime: 40000 })
new ApiCheck('degraded-over-max', {
  name: 'D', request: { url, method: 'GET' }, degradedResponseTime: 15000, maxResponseTime: 12000,
})
new ApiCheck('both-script-forms', {
  name: 'S', request: { url, method: 'GET' }, setupScript: { entrypoint: './sign.ts', content: 'x' },
})
new ApiCheck('no-script-form', { name: 'N', request: { url, method: 'GET' }, tearDownScript: {} })
`,
  )
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('outpost validate on API checks', () => {
  it('names file, logicalId, property and reason for each bad API check', async () => {
    const ran = await runNode([join(REPO, 'bin/outpost.mjs'), 'validate', dir])
    expect(ran.stderr).toBe('')
    expect(ran.code).toBe(1)
    expect(ran.stdout.trim().split('\n')).toEqual([
      'api.check.ts: bad-method: request.method: must be one of GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS, got "FETCH"',
      'api.check.ts: bad-body-type: request.bodyType: must be one of JSON, FORM, RAW, GRAPHQL, NONE, got "XML"',
      'api.check.ts: too-slow: maxResponseTime: must be an integer from 0 to 30000 ms, got 40000',
      'api.check.ts: degraded-over-max: degradedResponseTime: must not exceed maxResponseTime (12000 ms), got 15000 ms',
      'api.check.ts: both-script-forms: setupScript: has both entrypoint and content; give exactly one',
      'api.check.ts: no-script-form: tearDownScript: has neither entrypoint nor content; give exactly one (entrypoint: a .ts, .js or .mjs file)',
      `6 problems in ${dir} (1 valid check in 1 file)`,
    ])
  })
})
