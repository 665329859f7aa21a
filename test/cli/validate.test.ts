import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { REPO, runNode } from '../loader/support/run-node.ts'

// Through the real CLI entry, as a user runs `npm run outpost -- validate`.
const validate = (args: string[], cwd = REPO) =>
  runNode([join(REPO, 'bin/outpost.mjs'), 'validate', ...args], cwd)

// Every example file declares one check.
const EXAMPLES = readdirSync(join(REPO, 'examples/checks')).filter((f) => f.endsWith('.check.ts')).length

const temps: string[] = []
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'outpost-validate-'))
  temps.push(dir)
  return dir
}
afterEach(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true })
})

describe('outpost validate', () => {
  it('passes the bundled examples with exit 0', async () => {
    const ran = await validate(['examples/checks'])
    expect(ran.stdout).toBe(`${EXAMPLES} checks in ${EXAMPLES} files valid (examples/checks)\n`)
    expect(ran.stderr).toBe('')
    expect(ran.code).toBe(0)
  })

  it('exits 1 with one line per bad multistep check, naming file, logicalId and property', async () => {
    const ran = await validate(['test/fixtures/checks-invalid-multistep'])
    expect(ran.code).toBe(1)
    expect(ran.stdout.trim().split('\n')).toEqual([
      'flows.check.ts: both-code-forms: code: has both entrypoint and content; give exactly one',
      'flows.check.ts: no-code: code: has neither entrypoint nor content; give exactly one (entrypoint: a .spec.ts or .spec.js file)',
      'flows.check.ts: old-runtime: runtimeId: runtime 2022.10 does not support multistep checks: they need 2023.09 or later (2023.09, 2025.04, 2026.04)',
      '3 problems in test/fixtures/checks-invalid-multistep (0 valid checks in 1 file)',
    ])
  })

  it('uses ./checks when the working directory has one', async () => {
    const cwd = tempDir()
    mkdirSync(join(cwd, 'checks'))
    writeFileSync(
      join(cwd, 'checks', 'port.check.ts'),
      "import { TcpMonitor } from 'outpost'\nnew TcpMonitor('port', { name: 'Port', request: { hostname: '127.0.0.1', port: 0 } })\n",
    )
    const ran = await validate([], cwd)
    expect(ran.stdout).toBe(
      'port.check.ts: port: request.port: must be an integer from 1 to 65535, got 0\n1 problem in checks (0 valid checks in 1 file)\n',
    )
    expect(ran.code).toBe(1)
  })

  it("falls back to the package's examples without ./checks", async () => {
    const cwd = tempDir()
    const ran = await validate([], cwd)
    expect(ran.stdout).toMatch(
      new RegExp(`^${EXAMPLES} checks in ${EXAMPLES} files valid \\(.*examples/checks\\)\n$`),
    )
    expect(ran.code).toBe(0)
  })

  it('exits 1 when no check file matches', async () => {
    const ran = await validate([tempDir()])
    expect(ran.stderr).toMatch(/no check files in .* \(looked for \*\*\/\*\.check\.\{ts,js,mjs\}\)/)
    expect(ran.code).toBe(1)
  })

  it('prints usage with --help and exits 0', async () => {
    const ran = await validate(['--help'])
    expect(ran.stdout).toContain('usage: outpost validate [dir]')
    expect(ran.code).toBe(0)
  })

  it('exits 2 on usage errors: unknown option, two directories, a missing directory', async () => {
    const unknown = await validate(['--strict'])
    expect(unknown.stderr).toMatch(/^outpost validate: unknown option --strict\nusage:/)
    expect(unknown.code).toBe(2)
    const two = await validate(['a', 'b'])
    expect(two.stderr).toMatch(/^outpost validate: expected at most one directory, got 2/)
    expect(two.code).toBe(2)
    const missing = await validate(['no/such/dir'])
    expect(missing.stderr).toBe('outpost validate: no/such/dir is not a directory\n')
    expect(missing.code).toBe(2)
  })
})
