// traceroute towards the failing endpoint: TCP SYNs to the monitored port when the process may open
// raw sockets (root or CAP_NET_RAW), so the path is the one the monitor's traffic takes; otherwise
// classic UDP probes, which any user may send.

import { runTool } from './run-tool.ts'

export interface TracerouteTarget {
  address: string
  family: 4 | 6
  port: number
  protocol: 'tcp' | 'udp'
}

export interface TracerouteOptions {
  command: string
  timeoutMs: number
  signal: AbortSignal
  maxHops: number
}

export interface TracerouteReport {
  /** The transcript (command line and output) when some method ran. */
  text?: string
  method?: 'tcp' | 'udp'
  notes: string[]
}

const NOT_PERMITTED = /not enough privileges|operation not permitted|permission denied/i

export async function traceroute(
  target: TracerouteTarget,
  options: TracerouteOptions,
): Promise<TracerouteReport> {
  const notes: string[] = []
  const started = performance.now()
  const common = [
    target.family === 6 ? '-6' : '-4',
    '-n',
    '-q',
    '1',
    '-w',
    '1',
    '-m',
    String(options.maxHops),
  ]
  const attempts: { method: 'tcp' | 'udp'; args: string[] }[] = []
  if (target.protocol === 'tcp') attempts.push({ method: 'tcp', args: ['-T', '-p', String(target.port)] })
  else attempts.push({ method: 'udp', args: ['-U', '-p', String(target.port)] })
  // Unprivileged fallback: UDP to rising high ports, allowed for every user.
  attempts.push({ method: 'udp', args: [] })

  for (const attempt of attempts) {
    const remaining = options.timeoutMs - (performance.now() - started)
    if (remaining < 200 || options.signal.aborted) {
      notes.push('traceroute: no time left in the diagnostics budget')
      break
    }
    const args = [...attempt.args, ...common, target.address]
    const run = await runTool(options.command, args, {
      timeoutMs: remaining,
      signal: options.signal,
      maxStdoutBytes: 64 * 1024,
    })
    if (run.notFound) {
      notes.push(`traceroute: '${options.command}' is not installed (Debian: apt-get install traceroute)`)
      break
    }
    if (run.spawnError) {
      notes.push(`traceroute: could not start: ${run.spawnError}`)
      break
    }
    const output = run.stdout.toString('utf8')
    const transcript = `$ ${options.command} ${args.join(' ')}\n${output}${run.stderr ? `\n${run.stderr}` : ''}`
    if (run.exitCode !== 0 && NOT_PERMITTED.test(run.stderr)) {
      notes.push(
        `traceroute: ${attempt.method.toUpperCase()} method not permitted (needs root or CAP_NET_RAW)`,
      )
      continue
    }
    if (run.timedOut)
      notes.push('traceroute: stopped at the diagnostics time limit; the transcript is partial')
    else if (run.exitCode !== 0)
      notes.push(`traceroute: exited with ${run.exitCode}: ${firstLine(run.stderr)}`)
    return { text: transcript, method: attempt.method, notes }
  }
  return { notes }
}

function firstLine(text: string): string {
  return text.split('\n').find((line) => line.trim() !== '') ?? ''
}
