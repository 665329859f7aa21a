import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { type CheckDir, lines, loadInNode, loadOnce, makeCheckDir } from './support/check-dir.ts'

const dirs: CheckDir[] = []
function checkDir(files: Record<string, string>): CheckDir {
  const dir = makeCheckDir(files)
  dirs.push(dir)
  return dir
}
afterEach(() => {
  for (const dir of dirs.splice(0)) dir.remove()
})

const url = (id: string, extra = '') =>
  `import { UrlMonitor } from 'outpost'\nnew UrlMonitor('${id}', { name: '${id}', request: { url: 'http://127.0.0.1:8081/health' }${extra} })\n`

describe('loadChecks', () => {
  it('loads .check.ts, .check.js and .check.mjs files from a directory outside the repository', async () => {
    const dir = checkDir({
      'a.check.ts': url('from-ts', ", frequency: 'EVERY_1M' as const"),
      'nested/deeper/b.check.js': url('from-js'),
      'c.check.mjs': url('from-mjs'),
      'helper.ts': url('not-a-check-file'),
      'notes.md': '# not code',
      'node_modules/pkg/x.check.ts': 'throw new Error("node_modules must be skipped")',
    })
    const loaded = await loadOnce(dir.path)
    expect(loaded.diagnostics).toEqual([])
    expect(loaded.files).toEqual(['a.check.ts', 'c.check.mjs', 'nested/deeper/b.check.js'])
    expect(loaded.checks.map((c) => [c.logicalId, c.type, c.frequencySeconds])).toEqual([
      ['from-ts', 'URL', 60],
      ['from-mjs', 'URL', 600],
      ['from-js', 'URL', 600],
    ])
    expect(loaded.checks[2]?.sourceFile).toBe(join(dir.path, 'nested/deeper/b.check.js'))
  })

  it('attributes checks made in an imported helper to the check file that imported it', async () => {
    const dir = checkDir({
      'site.check.ts': "import { makeUrl } from './lib/make.ts'\nmakeUrl('one')\nmakeUrl('two')\n",
      'lib/make.ts':
        "import { UrlMonitor } from 'outpost'\nexport function makeUrl(id: string) {\n  new UrlMonitor(id, { name: id, request: { url: 'http://127.0.0.1/' + id } })\n}\n",
    })
    const loaded = await loadOnce(dir.path)
    expect(loaded.diagnostics).toEqual([])
    expect(loaded.checks.map((c) => [c.logicalId, c.sourceFile])).toEqual([
      ['one', join(dir.path, 'site.check.ts')],
      ['two', join(dir.path, 'site.check.ts')],
    ])
  })

  it('reports every problem as file, logicalId, property and reason, relative to the directory', async () => {
    const dir = checkDir({
      'sub/ports.check.ts': `import { TcpMonitor } from 'outpost'
new TcpMonitor('db', { name: 'DB', request: { hostname: '127.0.0.1', port: 70000 }, degradedResponseTime: 6000 })
new TcpMonitor('ok', { name: 'OK', request: { hostname: '127.0.0.1', port: 5432 } })
`,
    })
    const loaded = await loadOnce(dir.path)
    expect(lines(loaded)).toEqual([
      'sub/ports.check.ts: db: degradedResponseTime: must be an integer from 0 to 5000 ms, got 6000',
      'sub/ports.check.ts: db: request.port: must be an integer from 1 to 65535, got 70000',
    ])
    expect(loaded.checks.map((c) => c.logicalId)).toEqual(['ok'])
  })

  it('refuses duplicate logicalIds across files and within one, keeping the first', async () => {
    const dir = checkDir({
      'a.check.ts': url('home'),
      'b.check.ts': [url('home'), url('api'), url('api')]
        .map((source, i) => (i === 0 ? source : source.replace("import { UrlMonitor } from 'outpost'\n", '')))
        .join(''),
    })
    const loaded = await loadOnce(dir.path)
    expect(lines(loaded)).toEqual([
      'b.check.ts: home: logicalId: duplicate: also declared in a.check.ts',
      'b.check.ts: api: logicalId: duplicate: also declared earlier in this file',
    ])
    expect(loaded.checks.map((c) => [c.logicalId, c.sourceFile])).toEqual([
      ['home', join(dir.path, 'a.check.ts')],
      ['api', join(dir.path, 'b.check.ts')],
    ])
  })

  it('turns a file that fails to import into a diagnostic and loads the others', async () => {
    const dir = checkDir({
      'a-syntax.check.ts': 'const = ;\n',
      'b-throws.check.ts': `${url('made-before-throw')}\nthrow new Error('no config for you')\n`,
      'c-missing-import.check.ts': "import { x } from './nowhere.ts'\nconsole.log(x)\n",
      'd-missing-export.check.ts': "import { NoSuchMonitor } from 'outpost'\nnew NoSuchMonitor()\n",
      'e-good.check.ts': url('good'),
    })
    const loaded = await loadOnce(dir.path)
    const found = lines(loaded)
    expect(found).toHaveLength(4)
    expect(found[0]).toMatch(/^a-syntax\.check\.ts: failed to load: SyntaxError: /)
    expect(found[1]).toBe('b-throws.check.ts: failed to load (line 4): Error: no config for you')
    expect(found[2]).toMatch(
      /^c-missing-import\.check\.ts: failed to load: Error: Cannot find module '.*nowhere\.ts'/,
    )
    expect(found[2]).not.toContain('outpost-load')
    expect(found[3]).toMatch(/^d-missing-export\.check\.ts: failed to load: SyntaxError: .*NoSuchMonitor/)
    // A half-run file's checks are dropped; the good file still loads.
    expect(loaded.checks.map((c) => c.logicalId)).toEqual(['good'])
  })

  it('reports a file whose import never settles, and goes on', async () => {
    const dir = checkDir({
      'a-hangs.check.ts': `${url('too-late')}await new Promise(() => {})\n`,
      'b-good.check.ts': url('good'),
    })
    const loaded = await loadOnce(dir.path, 500)
    expect(lines(loaded)).toEqual([
      'a-hangs.check.ts: did not finish loading within 500 ms (a top-level await that never settles?)',
    ])
    expect(loaded.checks.map((c) => c.logicalId)).toEqual(['good'])
  })

  it('loads the same directory again in one process and sees edits, helpers included', async () => {
    const dir = checkDir({
      'site.check.ts':
        "import { name } from './lib/name.ts'\nimport { UrlMonitor } from 'outpost'\nnew UrlMonitor('site', { name, request: { url: 'http://127.0.0.1/' } })\n",
      'lib/name.ts': "export const name = 'first'\n",
    })
    const rounds = await loadInNode({
      dirs: [[dir.path], [dir.path], [dir.path]],
      writes: [null, null, { [join(dir.path, 'lib/name.ts')]: "export const name = 'second'\n" }],
    })
    expect(rounds.map(([loaded]) => loaded?.checks.map((c) => c.name))).toEqual([
      ['first'],
      ['first'],
      ['second'],
    ])
  })

  it('keeps concurrent loads apart', async () => {
    const one = checkDir({ 'a.check.ts': url('only-in-one') })
    const two = checkDir({ 'a.check.ts': url('only-in-two'), 'b.check.ts': url('also-in-two') })
    const [[first, second]] = (await loadInNode({ dirs: [[one.path, two.path]] })) as [[never, never]]
    expect((first as { checks: { logicalId: string }[] }).checks.map((c) => c.logicalId)).toEqual([
      'only-in-one',
    ])
    expect((second as { checks: { logicalId: string }[] }).checks.map((c) => c.logicalId)).toEqual([
      'only-in-two',
      'also-in-two',
    ])
  })

  it('refuses a directory that does not exist', async () => {
    const loaded = await loadOnce('/nonexistent/outpost-checks')
    expect(loaded.error).toBe('ChecksDirectoryError: /nonexistent/outpost-checks is not a directory')
  })
})

describe('outpost.config.ts', () => {
  it('applies project defaults and its checkMatch', async () => {
    const dir = checkDir({
      'outpost.config.ts': `import { defineConfig, Frequency, RetryStrategyBuilder } from 'outpost'
export default defineConfig({
  projectName: 'Shop',
  checks: {
    frequency: Frequency.EVERY_5M,
    locations: ['eu-west-1'],
    tags: ['shop'],
    runtimeId: '2025.04',
    retryStrategy: RetryStrategyBuilder.fixedStrategy({ maxRetries: 1 }),
    checkMatch: ['monitors/**/*.mon.ts'],
    ignoreDirectoriesMatch: ['monitors/drafts/**'],
  },
})
`,
      'monitors/site.mon.ts': `import { MultiStepCheck } from 'outpost'
${url('site').replace("import { UrlMonitor } from 'outpost'\n", "import { UrlMonitor } from 'outpost'\n")}
new MultiStepCheck('flow', { name: 'Flow', code: { content: "test('x', () => {})" } })
`,
      'ignored.check.ts': url('not-matched'),
      'monitors/drafts/wip.mon.ts': "throw new Error('drafts are ignored')\n",
    })
    const loaded = await loadOnce(dir.path)
    expect(loaded.diagnostics).toEqual([])
    expect(loaded.configFile).toBe('outpost.config.ts')
    expect(loaded.files).toEqual(['monitors/site.mon.ts'])
    expect(loaded.checks).toMatchObject([
      {
        logicalId: 'site',
        frequencySeconds: 300,
        locations: ['eu-west-1'],
        tags: ['shop'],
        retryStrategy: { type: 'FIXED', maxRetries: 1 },
      },
      { logicalId: 'flow', frequencySeconds: 300, runtimeId: '2025.04' },
    ])
  })

  it('reports its own problems, and a default frequency a check type cannot use', async () => {
    const dir = checkDir({
      'outpost.config.mjs': `export default {
  checks: { frequency: 'EVERY_10S', runtimeId: '2022.10', locations: ['mars-1'], colour: 'blue' },
}
`,
      'flow.check.ts': `import { MultiStepCheck } from 'outpost'
new MultiStepCheck('flow', { name: 'Flow', code: { content: "test('x', () => {})" } })
`,
    })
    const loaded = await loadOnce(dir.path)
    expect(lines(loaded)).toEqual([
      'outpost.config.mjs: checks.colour: unknown option; known: frequency, locations, privateLocations, tags, activated, muted, retryStrategy, runtimeId, checkMatch, ignoreDirectoriesMatch',
      'outpost.config.mjs: checks.locations: unknown mars-1; known: us-east-1, us-west-1, eu-west-1, ap-southeast-1, ap-northeast-1',
      'outpost.config.mjs: checks.runtimeId: runtime 2022.10 does not support multistep checks: they need 2023.09 or later (2023.09, 2025.04, 2026.04)',
      'flow.check.ts: flow: frequency: the project default EVERY_10S (outpost.config) is not allowed for multistep checks (EVERY_1M..EVERY_24H); set frequency on this check',
    ])
  })

  it('reports a config that fails to load or exports nothing', async () => {
    const broken = checkDir({
      'outpost.config.ts': "throw new Error('bad config')\n",
      'a.check.ts': url('a'),
    })
    expect(lines(await loadOnce(broken.path))).toEqual([
      'outpost.config.ts: failed to load (line 1): Error: bad config',
    ])
    const empty = checkDir({ 'outpost.config.ts': 'export const x = 1\n', 'a.check.ts': url('a') })
    expect(lines(await loadOnce(empty.path))).toEqual([
      'outpost.config.ts: default export: is missing; write export default defineConfig({...})',
    ])
  })
})
