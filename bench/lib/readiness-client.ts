// Measures GET latency of one URL from its own process, so the process under test keeps its event
// loop to itself. Paced requests on one keep-alive connection; prints percentiles as JSON.
// usage: node readiness-client.ts <url> <seconds> [intervalMs]

import http from 'node:http'
import { percentile } from './stats.ts'

const [url, secondsArg, intervalArg] = process.argv.slice(2)
if (!url || !secondsArg) {
  console.error('usage: readiness-client.ts <url> <seconds> [intervalMs]')
  process.exit(2)
}
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
const until = performance.now() + Number(secondsArg) * 1000
const interval = Number(intervalArg ?? 5)
const latencies: number[] = []
const statuses = new Map<number, number>()

function get(): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = http.get(url!, { agent }, (response) => {
      response.resume()
      response.on('end', () => resolve(response.statusCode ?? 0))
    })
    request.on('error', reject)
  })
}

while (performance.now() < until) {
  const start = performance.now()
  const status = await get()
  latencies.push(performance.now() - start)
  statuses.set(status, (statuses.get(status) ?? 0) + 1)
  const wait = interval - (performance.now() - start)
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
}
agent.destroy()
console.log(
  JSON.stringify({
    count: latencies.length,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    max: Math.max(...latencies),
    statuses: Object.fromEntries(statuses),
  }),
)
