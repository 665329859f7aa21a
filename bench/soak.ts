// bench/soak: the real agent (a child process, so every figure is its own) with 5,000 uptime monitors
// and a few multistep checks against loopback servers this bench starts: some fast, some slow, some
// failing, some flapping. Every minute and at the end it prints RSS, heap, event-loop lag p99,
// scheduler lag p99, results per minute, readiness p99 (measured from a separate process), open file
// descriptors and child processes; at the end each figure as a ratio against minute 2, and lost results
// (runs started per /metrics against lines in results.ndjson).
// usage: bench/soak [minutes=30] [--monitors 5000] [--multistep 3]

import { type ChildProcess, spawn } from 'node:child_process'
import dgram from 'node:dgram'
import { createWriteStream } from 'node:fs'
import { mkdtemp, open, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { createServer as createHttpServer } from 'node:http'
import { type AddressInfo, createServer as createTcpServer } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import dnsPacket from 'dns-packet'
import { runScript } from './lib/child.ts'
import { ratio } from './lib/stats.ts'

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    monitors: { type: 'string', default: '5000' },
    multistep: { type: 'string', default: '3' },
    help: { type: 'boolean', short: 'h' },
  },
})
if (values.help) {
  console.log('usage: bench/soak [minutes=30] [--monitors 5000] [--multistep 3]')
  process.exit(0)
}
const minutes = Number(positionals[0] ?? '30')
const monitorCount = Number(values.monitors)
const multistepCount = Number(values.multistep)
if (!Number.isInteger(minutes) || minutes < 2 || minutes > 24 * 60) {
  console.error(`bench/soak: minutes must be a whole number from 2 to 1440, got ${positionals[0]}`)
  process.exit(2)
}
const root = path.resolve(import.meta.dirname, '..')

// ---- loopback targets -------------------------------------------------------------------------

interface Targets {
  httpPort: number
  tcpPort: number
  closedTcpPort: number
  dnsPort: number
  close(): Promise<void>
}

async function startTargets(): Promise<Targets> {
  const http = createHttpServer((request, response) => {
    const url = request.url ?? '/'
    if (url.startsWith('/slow')) {
      setTimeout(() => response.end('slow'), 1500)
    } else if (url.startsWith('/fail')) {
      response.writeHead(503).end('failing')
    } else if (url.startsWith('/flap')) {
      // Up one minute, down the next.
      const up = Math.floor(Date.now() / 60_000) % 2 === 0
      response.writeHead(up ? 200 : 500).end(up ? 'up' : 'down')
    } else {
      response.end('ok')
    }
  })
  http.keepAliveTimeout = 5000
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
  const tcp = createTcpServer((socket) => socket.end())
  await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve))
  // A port that was bound and released: connections to it are refused.
  const spare = createTcpServer()
  await new Promise<void>((resolve) => spare.listen(0, '127.0.0.1', resolve))
  const closedTcpPort = (spare.address() as AddressInfo).port
  await new Promise<void>((resolve) => spare.close(() => resolve()))
  const dns = dgram.createSocket('udp4')
  dns.on('message', (message, remote) => {
    const query = dnsPacket.decode(message)
    const question = query.questions?.[0]
    const known = question?.name.endsWith('.soak.test') && !question.name.startsWith('missing')
    const answer = dnsPacket.encode({
      type: 'response',
      id: query.id,
      flags: dnsPacket.RECURSION_DESIRED | (known ? 0 : 3),
      questions: query.questions,
      answers:
        known && question
          ? [{ type: 'A', name: question.name, ttl: 60, data: '127.0.0.1', class: 'IN' }]
          : [],
    })
    dns.send(answer, remote.port, remote.address)
  })
  await new Promise<void>((resolve) => dns.bind(0, '127.0.0.1', resolve))
  return {
    httpPort: (http.address() as AddressInfo).port,
    tcpPort: (tcp.address() as AddressInfo).port,
    closedTcpPort,
    dnsPort: dns.address().port,
    async close() {
      http.closeAllConnections()
      await new Promise<void>((resolve) => http.close(() => resolve()))
      await new Promise<void>((resolve) => tcp.close(() => resolve()))
      await new Promise<void>((resolve) => dns.close(() => resolve()))
    },
  }
}

/** One check file declaring every monitor in a loop: 60% URL, 20% TCP, 20% DNS, with mixed health. */
function checkFile(t: Targets, count: number, multistep: number): string {
  return `import { DnsMonitor, Frequency, MultiStepCheck, TcpMonitor, UrlMonitor } from 'outpost'
const http = 'http://127.0.0.1:${t.httpPort}'
for (let i = 0; i < ${count}; i++) {
  const kind = i % 10
  const id = 'soak-' + i
  if (kind < 6) {
    // URL: 2/3 fast, then slow, failing and flapping in turn.
    const path = i % 30 < 20 ? '/ok' : i % 30 < 24 ? '/slow' : i % 30 < 27 ? '/fail' : '/flap'
    new UrlMonitor(id, { name: id, frequency: Frequency.EVERY_1M, request: { url: http + path + '?i=' + i } })
  } else if (kind < 8) {
    const port = i % 50 === 6 ? ${t.closedTcpPort} : ${t.tcpPort}
    new TcpMonitor(id, { name: id, frequency: Frequency.EVERY_1M, request: { hostname: '127.0.0.1', port } })
  } else {
    const query = (i % 40 === 8 ? 'missing-' : 'host-') + i + '.soak.test'
    new DnsMonitor(id, {
      name: id,
      frequency: Frequency.EVERY_1M,
      request: { query, recordType: 'A', nameServer: '127.0.0.1', port: ${t.dnsPort} },
    })
  }
}
for (let i = 0; i < ${multistep}; i++) {
  new MultiStepCheck('soak-multistep-' + i, {
    name: 'soak multistep ' + i,
    frequency: Frequency.EVERY_1M,
    timeoutSeconds: 30,
    code: {
      content: \`import { expect, test } from '@playwright/test'
test('loopback', async ({ request }) => {
  await test.step('ok', async () => { expect((await request.get('\${http}/ok')).status()).toBe(200) })
  await test.step('slow', async () => { expect((await request.get('\${http}/slow')).status()).toBe(200) })
})
\`,
    },
  })
}
`
}

// ---- the agent --------------------------------------------------------------------------------

interface AgentChild {
  child: ChildProcess
  exited: Promise<number | null>
  waitFor(pattern: RegExp, timeoutMs: number): Promise<string>
}

function startAgent(checksDir: string, dataDir: string, logFile: string): AgentChild {
  const child = spawn(
    path.join(root, 'node_modules/.bin/node'),
    [path.join(root, 'bin/outpost.mjs'), 'agent', '--checks', checksDir],
    {
      cwd: root,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '/tmp',
        AGENT_DATA_DIR: dataDir,
        AGENT_HEALTH_PORT: '0',
        AGENT_HEARTBEAT_PORT: '0',
        AGENT_LISTEN_HOST: '127.0.0.1',
        EXTERNAL_OBSERVABILITY: 'off',
        UPTIME_CONCURRENCY: '100',
        JOB_CONCURRENCY: '1',
        AGENT_DRAIN_TIMEOUT: '60',
        // The inspector, on loopback only, lets the bench measure the heap after a full GC.
        NODE_OPTIONS: '--inspect=127.0.0.1:0',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  const log = createWriteStream(logFile)
  // Only a window of recent output is kept in memory (to find log lines); all of it goes to the log file.
  let recent = ''
  const waiters = new Set<() => void>()
  const onData = (chunk: Buffer): void => {
    log.write(chunk)
    recent = (recent + chunk.toString()).slice(-200_000)
    for (const w of waiters) w()
  }
  child.stdout?.on('data', onData)
  child.stderr?.on('data', onData)
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  const waitFor = (pattern: RegExp, timeoutMs: number): Promise<string> =>
    new Promise((resolve, reject) => {
      const check = (): void => {
        const m = pattern.exec(recent)
        if (m) {
          waiters.delete(check)
          clearTimeout(timer)
          resolve(m[1] ?? m[0])
        }
      }
      const timer = setTimeout(() => {
        waiters.delete(check)
        reject(new Error(`agent did not print ${pattern} in ${timeoutMs} ms:\n${recent.slice(-3000)}`))
      }, timeoutMs)
      waiters.add(check)
      check()
      void exited.then((code) => {
        if (!waiters.has(check)) return
        waiters.delete(check)
        clearTimeout(timer)
        reject(new Error(`agent exited (${code}) before printing ${pattern}:\n${recent.slice(-3000)}`))
      })
    })
  return { child, exited, waitFor }
}

// ---- figures ----------------------------------------------------------------------------------

interface Sample {
  minute: number
  rssMb: number
  heapMb: number
  /** The lowest heap seen in the minute (sampled every 5 s). */
  heapFloorMb: number
  /** Heap used right after a full GC forced through the inspector: live data, the figure a leak moves. */
  liveHeapMb: number
  loopP99Ms: number
  schedP99Ms: number
  resultsPerMin: number
  readinessP99Ms: number
  fds: number
  children: number
}

type Metrics = Map<string, number>

/** Prometheus text to `name{labels}` -> value. */
function parseMetrics(text: string): Metrics {
  const out: Metrics = new Map()
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue
    const space = line.lastIndexOf(' ')
    out.set(line.slice(0, space), Number(line.slice(space + 1)))
  }
  return out
}

const sumOf = (m: Metrics, prefix: string): number =>
  [...m].filter(([k]) => k.startsWith(prefix)).reduce((s, [, v]) => s + v, 0)

/** p99 of the start lag over the interval between two scrapes, from the histogram's bucket deltas. */
function lagP99Ms(now: Metrics, before: Metrics): number {
  const buckets = new Map<number, number>()
  for (const [key, value] of now) {
    const m = /^outpost_job_start_lag_seconds_bucket\{.*le="([^"]+)".*\}$/.exec(key)
    if (!m) continue
    const le = m[1] === '+Inf' ? Number.POSITIVE_INFINITY : Number(m[1])
    buckets.set(le, (buckets.get(le) ?? 0) + value - (before.get(key) ?? 0))
  }
  const sorted = [...buckets].sort((a, b) => a[0] - b[0])
  const total = sorted.at(-1)?.[1] ?? 0
  if (total === 0) return 0
  const bucket = sorted.find(([, count]) => count >= total * 0.99)
  return (bucket?.[0] ?? Number.POSITIVE_INFINITY) * 1000
}

async function scrape(healthUrl: string): Promise<Metrics> {
  return parseMetrics(await (await fetch(`${healthUrl}/metrics`)).text())
}

interface InspectorReply {
  id?: number
  result?: { result?: { value?: unknown } }
  error?: { message: string }
}

/** The agent's heap after a full garbage collection, asked over its inspector (one short connection). */
async function liveHeapMb(inspectorUrl: string): Promise<number> {
  const ws = new WebSocket(inspectorUrl)
  await new Promise((resolve, reject) => {
    ws.onopen = resolve
    ws.onerror = () => reject(new Error(`cannot reach the inspector at ${inspectorUrl}`))
  })
  let nextId = 0
  const call = (method: string, params?: object): Promise<InspectorReply> =>
    new Promise((resolve, reject) => {
      const id = ++nextId
      const onMessage = (event: MessageEvent): void => {
        const reply = JSON.parse(String(event.data)) as InspectorReply
        if (reply.id !== id) return
        ws.removeEventListener('message', onMessage)
        if (reply.error) reject(new Error(`${method}: ${reply.error.message}`))
        else resolve(reply)
      }
      ws.addEventListener('message', onMessage)
      ws.send(JSON.stringify({ id, method, params }))
    })
  try {
    await call('HeapProfiler.collectGarbage')
    const reply = await call('Runtime.evaluate', {
      expression: 'process.memoryUsage().heapUsed',
      returnByValue: true,
    })
    return Number(reply.result?.result?.value ?? 0) / 2 ** 20
  } finally {
    ws.close()
  }
}

async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8')
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024
}

async function fdCount(pid: number): Promise<number> {
  return (await readdir(`/proc/${pid}/fd`)).length
}

async function childCount(pid: number): Promise<number> {
  let n = 0
  for (const task of await readdir(`/proc/${pid}/task`).catch(() => [] as string[])) {
    const text = await readFile(`/proc/${pid}/task/${task}/children`, 'utf8').catch(() => '')
    n += text.split(' ').filter(Boolean).length
  }
  return n
}

/** Counts result lines appended since the last call (reads only the new bytes). */
function resultCounter(file: string): () => Promise<number> {
  let offset = 0
  return async () => {
    const handle = await open(file, 'r').catch(() => undefined)
    if (!handle) return 0
    try {
      const { size } = await handle.stat()
      let lines = 0
      const buffer = Buffer.alloc(1 << 20)
      while (offset < size) {
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, offset)
        if (bytesRead === 0) break
        for (let i = 0; i < bytesRead; i++) if (buffer[i] === 10) lines++
        offset += bytesRead
      }
      return lines
    } finally {
      await handle.close()
    }
  }
}

function row(s: Sample): string {
  const cells = [
    String(s.minute).padStart(4),
    s.rssMb.toFixed(0).padStart(7),
    s.heapMb.toFixed(0).padStart(7),
    s.heapFloorMb.toFixed(0).padStart(13),
    s.liveHeapMb.toFixed(1).padStart(16),
    s.loopP99Ms.toFixed(1).padStart(9),
    s.schedP99Ms.toFixed(0).padStart(10),
    String(s.resultsPerMin).padStart(9),
    s.readinessP99Ms.toFixed(2).padStart(12),
    String(s.fds).padStart(5),
    String(s.children).padStart(8),
  ]
  return `| ${cells.join(' | ')} |`
}
const HEADER =
  '| min | RSS MB | heap MB | heap floor MB | heap after GC MB | loop p99 ms | sched p99 ms | results/min | readiness p99 ms | fds | children |\n' +
  '|----:|-------:|--------:|--------------:|-----------------:|------------:|-------------:|------------:|-----------------:|----:|---------:|'

// ---- run --------------------------------------------------------------------------------------

const work = await mkdtemp(path.join(tmpdir(), 'outpost-soak-'))
const targets = await startTargets()
const checksDir = path.join(work, 'checks')
const dataDir = path.join(work, 'data')
await rm(checksDir, { recursive: true, force: true })
await import('node:fs/promises').then((fs) => fs.mkdir(checksDir, { recursive: true }))
await writeFile(path.join(checksDir, 'soak.check.ts'), checkFile(targets, monitorCount, multistepCount))
console.log(
  `bench/soak: ${minutes} min, ${monitorCount} uptime monitors (URL fast/slow/failing/flapping, TCP open/refused, DNS found/NXDOMAIN) every minute + ${multistepCount} multistep checks; work dir ${work}`,
)
const agent = startAgent(checksDir, dataDir, path.join(work, 'agent.log'))
const inspectorUrl = await agent.waitFor(/Debugger listening on (ws:\/\/\S+)/, 60_000)
const healthPort = await agent.waitFor(/health server listening on 127\.0\.0\.1:(\d+)/, 120_000)
await agent.waitFor(/agent ready/, 120_000)
const healthUrl = `http://127.0.0.1:${healthPort}`
const pid = agent.child.pid!
console.log(`agent pid ${pid}, health ${healthUrl}`)
console.log(HEADER)

const countNewResults = resultCounter(path.join(dataDir, 'results.ndjson'))
const samples: Sample[] = []
let previous = await scrape(healthUrl)
await countNewResults()
for (let minute = 1; minute <= minutes; minute++) {
  // Readiness from its own process over most of the minute, paced every 100 ms.
  const readiness = runScript('readiness-client.ts', [`${healthUrl}/-/readiness`, '57', '100'])
  // Every 5 s: the heap (its lowest is what survives GC) and the event-loop lag, which the agent
  // resets at each scrape; the minute's p99 is taken as the worst of the twelve 5-s p99s.
  let heapFloor = Number.POSITIVE_INFINITY
  let loopP99 = 0
  let metrics = previous
  for (let tick = 0; tick < 12; tick++) {
    await new Promise((r) => setTimeout(r, 5000))
    metrics = await scrape(healthUrl)
    heapFloor = Math.min(
      heapFloor,
      (metrics.get('outpost_process_nodejs_heap_size_used_bytes') ?? 0) / 2 ** 20,
    )
    loopP99 = Math.max(loopP99, (metrics.get('outpost_event_loop_lag_seconds{quantile="0.99"}') ?? 0) * 1000)
  }
  const readinessOut = await readiness
  const sample: Sample = {
    minute,
    rssMb: await rssMb(pid),
    heapMb: (metrics.get('outpost_process_nodejs_heap_size_used_bytes') ?? 0) / 2 ** 20,
    heapFloorMb: heapFloor,
    liveHeapMb: await liveHeapMb(inspectorUrl),
    loopP99Ms: loopP99,
    schedP99Ms: lagP99Ms(metrics, previous),
    resultsPerMin: await countNewResults(),
    readinessP99Ms: (JSON.parse(String(readinessOut)) as { p99: number }).p99,
    fds: await fdCount(pid),
    children: await childCount(pid),
  }
  previous = metrics
  samples.push(sample)
  console.log(row(sample))
}

// End: stop taking jobs, read the final count of runs started, let the drain finish, count results.
agent.child.kill('SIGTERM')
await agent.waitFor(/"to":"draining"/, 30_000)
// Jobs already queued may still start during the drain; read the counter once readiness says stopped.
const drained = await agent.waitFor(/draining: waiting for/, 30_000).then(() => true)
let started = sumOf(await scrape(healthUrl), 'outpost_jobs_started_total')
// The counter is final once in-flight jobs are the only work left; poll until the process closes the server.
for (let i = 0; i < 600; i++) {
  const m = await scrape(healthUrl).catch(() => undefined)
  if (!m) break
  started = sumOf(m, 'outpost_jobs_started_total')
  await new Promise((r) => setTimeout(r, 100))
}
const exitCode = await agent.exited
const totalResults = (await readFile(path.join(dataDir, 'results.ndjson'), 'utf8'))
  .split('\n')
  .filter(Boolean).length
await targets.close()

const base = samples.find((s) => s.minute === 2) ?? samples[0]!
const end = samples.at(-1)!
console.log(`\nend (minute ${end.minute}) against minute ${base.minute}:`)
const figures: [string, number, number][] = [
  ['RSS', end.rssMb, base.rssMb],
  ['heap used', end.heapMb, base.heapMb],
  ['heap floor', end.heapFloorMb, base.heapFloorMb],
  ['heap after full GC', end.liveHeapMb, base.liveHeapMb],
  ['event-loop lag p99', end.loopP99Ms, base.loopP99Ms],
  ['scheduler lag p99', end.schedP99Ms, base.schedP99Ms],
  ['results per minute', end.resultsPerMin, base.resultsPerMin],
  ['readiness p99', end.readinessP99Ms, base.readinessP99Ms],
  ['open file descriptors', end.fds, base.fds],
  ['child processes', end.children, base.children],
]
for (const [name, e, b] of figures) {
  console.log(
    `  ${name.padEnd(22)} ${e.toFixed(2).padStart(10)} vs ${b.toFixed(2).padStart(10)}  ${ratio(e, b)}`,
  )
}
const peakRss = Math.max(...samples.map((s) => s.rssMb))
console.log(`  peak RSS ${peakRss.toFixed(0)} MB; drain logged: ${drained}; agent exit code ${exitCode}`)
console.log(
  `results: ${totalResults} in results.ndjson, ${started} runs started per /metrics: ${started - totalResults} lost`,
)
if (exitCode === 0 && started === totalResults) await rm(work, { recursive: true, force: true })
else console.log(`kept ${work} for a look`)
process.exit(started === totalResults && exitCode === 0 ? 0 : 1)
