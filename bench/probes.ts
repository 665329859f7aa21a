// bench/probes: our URL, DNS and TCP probes beside the bare operation each one wraps, against the
// same loopback servers (run in a child process, so they do not share this event loop):
//   URL  probe vs a fresh-connection undici request (new Client, GET, read body, close)
//   DNS  probe vs a bare dgram query (fresh socket, dns-packet encode, send, receive, decode)
//   TCP  probe vs a bare socket connect (connect, then destroy)
// Each pair runs in interleaved rounds through a p-queue of the agent's light-queue concurrency
// (UPTIME_CONCURRENCY, 100), and once more one at a time for latency. Printed: ops/s, the overhead
// ratio (bare ops/s divided by probe ops/s: 1.00x means no overhead), p50 latency ratio, and URL
// probes per second. Beside each ratio over all rounds, in brackets, the middle half of the rounds'
// own ratios: how much this shared machine's other load moved the figure during the run.
// usage: bench/probes [--ops 2000] [--rounds 20] [--concurrency 100] [--latency-ops 2000] [--only URL,DNS,TCP]

import { type ChildProcess, spawn } from 'node:child_process'
import dgram from 'node:dgram'
import http from 'node:http'
import net from 'node:net'
import { parseArgs } from 'node:util'
import packet from 'dns-packet'
import PQueue from 'p-queue'
import { Client } from 'undici'
import type { DnsCheck, TcpCheck, UrlCheck } from '../src/model/checks.ts'
import type { ProbeContext } from '../src/model/probe.ts'
import { createDnsProbe } from '../src/probes/dns.ts'
import { createTcpProbe } from '../src/probes/tcp.ts'
import { createUrlProbe } from '../src/probes/url.ts'
import { createScrubber } from '../src/secrets/scrubber.ts'
import { createLogger } from '../src/telemetry/logger.ts'
import { baseFields, urlRequest } from '../test/helpers/definitions.ts'
import { percentile, ratio } from './lib/stats.ts'

interface Ports {
  http: number
  dns: number
  tcp: number
}

if (process.argv.includes('--serve')) {
  await serve()
} else {
  await main()
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      ops: { type: 'string', default: '2000' },
      rounds: { type: 'string', default: '20' },
      concurrency: { type: 'string', default: process.env.UPTIME_CONCURRENCY ?? '100' },
      'latency-ops': { type: 'string', default: '2000' },
      only: { type: 'string', default: 'URL,DNS,TCP' },
      help: { type: 'boolean', short: 'h' },
    },
  })
  if (values.help) {
    console.log(
      'usage: bench/probes [--ops 2000] [--rounds 20] [--concurrency 100] [--latency-ops 2000] [--only URL,DNS,TCP]',
    )
    return
  }
  const ops = positive('--ops', values.ops)
  const rounds = positive('--rounds', values.rounds)
  const concurrency = positive('--concurrency', values.concurrency)
  const latencyOps = positive('--latency-ops', values['latency-ops'])

  const { child, ports } = await startServers()
  try {
    const only = new Set((values.only ?? '').split(',').map((k) => k.trim().toUpperCase()))
    const pairs = makePairs(ports).filter((pair) => only.has(pair.name))
    console.log(
      `bench/probes: ${rounds} rounds of ${ops} ops per side (ABBA order) at concurrency ${concurrency}; ` +
        `${latencyOps} sequential ops for latency; servers in pid ${child.pid}`,
    )
    for (const pair of pairs) {
      // Warm both paths (JIT, sockets) before measuring.
      await timed(pair.bare, Math.min(ops, 2000), concurrency)
      await timed(pair.probe, Math.min(ops, 2000), concurrency)
    }
    const rows: string[] = []
    const overheadsByName = new Map<string, number>()
    let urlProbeRate = 0
    for (const pair of pairs) {
      // Short blocks in ABBA order, summed: other load on the machine drifts over seconds and would
      // otherwise land on one side of the comparison.
      const bare: Timed[] = []
      const probe: Timed[] = []
      for (let round = 0; round < rounds; round++) {
        const probeFirst = round % 2 === 1
        if (probeFirst) probe.push(await timed(pair.probe, ops, concurrency))
        bare.push(await timed(pair.bare, ops, concurrency))
        if (!probeFirst) probe.push(await timed(pair.probe, ops, concurrency))
      }
      const total = ops * rounds
      const sum = (list: Timed[], key: keyof Timed): number => list.reduce((acc, t) => acc + t[key], 0)
      const bareRate = total / sum(bare, 'seconds')
      const probeRate = total / sum(probe, 'seconds')
      const bareCpu = (sum(bare, 'cpuSeconds') / total) * 1e6
      const probeCpu = (sum(probe, 'cpuSeconds') / total) * 1e6
      // Each round's probe time over the bare time of the same round (ops are equal, so this is
      // bare ops/s over probe ops/s for that round).
      const overheads = probe.map((t, i) => t.seconds / (bare[i] as Timed).seconds)
      const cpuOverheads = probe.map((t, i) => t.cpuSeconds / (bare[i] as Timed).cpuSeconds)
      overheadsByName.set(pair.name, bareRate / probeRate)
      if (pair.name === 'URL') urlProbeRate = probeRate
      const bareLatency = await latency(pair.bare, latencyOps)
      const probeLatency = await latency(pair.probe, latencyOps)
      rows.push(
        [
          pair.name.padEnd(4),
          `bare ${fmt(bareRate)}/s`.padEnd(16),
          `probe ${fmt(probeRate)}/s`.padEnd(17),
          `overhead ${spread(bareRate / probeRate, overheads)}`.padEnd(33),
          `cpu/op bare ${bareCpu.toFixed(1)} µs, probe ${probeCpu.toFixed(1)} µs (${spread(probeCpu / bareCpu, cpuOverheads)})`.padEnd(
            67,
          ),
          `p50 bare ${bareLatency.toFixed(3)} ms, probe ${probeLatency.toFixed(3)} ms (${ratio(probeLatency, bareLatency)})`,
        ].join('  '),
      )
    }
    for (const row of rows) console.log(row)
    if (only.has('URL'))
      console.log(
        `URL probes per second at concurrency ${concurrency}: ${fmt(urlProbeRate)} ` +
          `(target >= 3000: ${urlProbeRate >= 3000 ? 'met' : 'NOT met'})`,
      )
    const missed = [...overheadsByName].filter(([, overhead]) => overhead > 1.2).map(([name]) => name)
    console.log(
      `overhead = bare ops/s / probe ops/s, over all rounds [middle half of the rounds] (target <= 1.20x: ${
        missed.length === 0 ? 'met' : `NOT met for ${missed.join(', ')}`
      });`,
    )
    console.log(
      "cpu/op = this process's CPU time per operation, the cost that stays when the machine is busy",
    )
  } finally {
    child.kill('SIGTERM')
  }
}

interface Pair {
  name: string
  bare: () => Promise<void>
  probe: () => Promise<void>
}

function makePairs(ports: Ports): Pair[] {
  const log = createLogger({ level: 'error', scrubber: createScrubber([]), pretty: false })
  const ctx: ProbeContext = {
    signal: new AbortController().signal,
    log,
    runDir: '/nonexistent',
    testSession: false,
  }
  const base: Omit<UrlCheck, 'type' | 'request'> = {
    ...baseFields('bench', 'bench'),
    degradedResponseTime: 3000,
    maxResponseTime: 5000,
  }
  const origin = `http://127.0.0.1:${ports.http}`
  const urlCheck: UrlCheck = {
    ...base,
    type: 'URL',
    request: urlRequest(`${origin}/`),
  }
  const dnsCheck: DnsCheck = {
    ...base,
    type: 'DNS',
    request: {
      query: 'bench.test',
      recordType: 'A',
      nameServer: '127.0.0.1',
      port: ports.dns,
      protocol: 'UDP',
      assertions: [],
    },
  }
  const tcpCheck: TcpCheck = {
    ...base,
    type: 'TCP',
    request: { hostname: '127.0.0.1', port: ports.tcp, ipFamily: 'IPv4', assertions: [] },
  }
  const urlProbe = createUrlProbe()
  const dnsProbe = createDnsProbe()
  const tcpProbe = createTcpProbe()
  const mustPass = (status: string, error: unknown): void => {
    if (status !== 'passed') throw new Error(`probe did not pass: ${JSON.stringify(error)}`)
  }
  return [
    {
      name: 'URL',
      bare: async () => {
        const client = new Client(origin)
        const response = await client.request({ path: '/', method: 'GET', reset: true })
        await response.body.dump()
        if (response.statusCode !== 200) throw new Error(`status ${response.statusCode}`)
        await client.close()
      },
      probe: async () => {
        const outcome = await urlProbe(urlCheck, ctx)
        mustPass(outcome.status, outcome.error)
      },
    },
    {
      name: 'DNS',
      bare: () => bareDnsQuery(ports.dns),
      probe: async () => {
        const outcome = await dnsProbe(dnsCheck, ctx)
        mustPass(outcome.status, outcome.error)
      },
    },
    {
      name: 'TCP',
      bare: () =>
        new Promise<void>((resolve, reject) => {
          const socket = net.connect({ host: '127.0.0.1', port: ports.tcp })
          socket.once('connect', () => {
            socket.destroy()
            resolve()
          })
          socket.once('error', reject)
        }),
      probe: async () => {
        const outcome = await tcpProbe(tcpCheck, ctx)
        mustPass(outcome.status, outcome.error)
      },
    },
  ]
}

function bareDnsQuery(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const id = Math.floor(Math.random() * 65536)
    const query = packet.encode({
      type: 'query',
      id,
      flags: packet.RECURSION_DESIRED,
      questions: [{ type: 'A', name: 'bench.test' }],
    })
    const socket = dgram.createSocket('udp4')
    socket.once('error', (err) => {
      socket.close()
      reject(err)
    })
    socket.on('message', (message) => {
      const answer = packet.decode(message)
      if (answer.id !== id) return
      socket.close()
      resolve()
    })
    socket.send(query, port, '127.0.0.1')
  })
}

interface Timed {
  seconds: number
  /** CPU time of this process (user + system): what the operation costs us, whatever else runs. */
  cpuSeconds: number
}

/** Runs `count` ops through a queue of the given concurrency (the agent's light queue). */
async function timed(op: () => Promise<void>, count: number, concurrency: number): Promise<Timed> {
  const queue = new PQueue({ concurrency })
  const started = performance.now()
  const cpuStarted = process.cpuUsage()
  const tasks: Promise<void>[] = []
  for (let i = 0; i < count; i++) tasks.push(queue.add(op))
  await Promise.all(tasks)
  const cpu = process.cpuUsage(cpuStarted)
  return { seconds: (performance.now() - started) / 1000, cpuSeconds: (cpu.user + cpu.system) / 1e6 }
}

async function latency(op: () => Promise<void>, count: number): Promise<number> {
  const samples: number[] = []
  for (let i = 0; i < count; i++) {
    const started = performance.now()
    await op()
    samples.push(performance.now() - started)
  }
  return percentile(samples, 50)
}

/** A ratio over all rounds and, in brackets, the 25th to 75th percentile of the rounds' own ratios. */
function spread(overall: number, rounds: number[]): string {
  const x = (value: number): string => `${value.toFixed(2)}x`
  return `${x(overall)} [${x(percentile(rounds, 25))}-${x(percentile(rounds, 75))}]`
}

function fmt(rate: number): string {
  return Math.round(rate).toString()
}

function positive(flag: string, value: string | undefined): number {
  const n = Number(value)
  if (!Number.isInteger(n) || n < 1) {
    console.error(`bench/probes: ${flag} '${value}' is not allowed (a positive integer)`)
    process.exit(2)
  }
  return n
}

async function startServers(): Promise<{ child: ChildProcess; ports: Ports }> {
  const child = spawn(process.execPath, [import.meta.filename, '--serve'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const ports = await new Promise<Ports>((resolve, reject) => {
    let out = ''
    child.stdout?.setEncoding('utf8')
    child.stdout?.on('data', (text: string) => {
      out += text
      const line = out.split('\n')[0]
      if (out.includes('\n') && line) resolve(JSON.parse(line) as Ports)
    })
    child.once('exit', (code) => reject(new Error(`bench servers exited with ${code}`)))
  })
  return { child, ports }
}

/** The child process: an HTTP server, a DNS server (UDP) and a TCP listener on loopback. */
async function serve(): Promise<void> {
  const httpServer = http.createServer((_req, res) => {
    res.setHeader('content-type', 'text/plain')
    res.end('ok')
  })
  await new Promise<void>((resolve) =>
    httpServer.listen({ port: 0, host: '127.0.0.1', backlog: 4096 }, resolve),
  )

  // The answer is the same for every query but its id: encode it once, patch the id per query.
  const answer = packet.encode({
    type: 'response',
    id: 0,
    flags: packet.RECURSION_DESIRED | packet.RECURSION_AVAILABLE,
    questions: [{ type: 'A', name: 'bench.test' }],
    answers: [{ type: 'A', name: 'bench.test', ttl: 60, data: '127.0.0.1' }],
  })
  const dns = dgram.createSocket('udp4')
  dns.on('message', (query, remote) => {
    if (query.length < 12) return
    const reply = Buffer.from(answer)
    reply.writeUInt16BE(query.readUInt16BE(0), 0)
    dns.send(reply, remote.port, remote.address)
  })
  await new Promise<void>((resolve) => dns.bind(0, '127.0.0.1', resolve))

  const tcp = net.createServer((socket) => {
    socket.on('error', () => {})
    socket.resume()
  })
  await new Promise<void>((resolve) => tcp.listen({ port: 0, host: '127.0.0.1', backlog: 4096 }, resolve))

  const port = (server: net.Server): number => (server.address() as net.AddressInfo).port
  const ports: Ports = { http: port(httpServer), dns: dns.address().port, tcp: port(tcp) }
  process.stdout.write(`${JSON.stringify(ports)}\n`)
  process.on('SIGTERM', () => process.exit(0))
}
