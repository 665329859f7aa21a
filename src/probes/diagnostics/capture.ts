// One re-attempt of the failed connection, recorded by tcpdump. Headers only (snaplen 128): the
// capture shows SYN/RST/ICMP and DNS questions, not payloads, and the re-attempt itself sends no
// application data.

import { startTool } from './run-tool.ts'

export interface CaptureOptions {
  command: string
  /** A pcap filter naming the failing endpoint, e.g. "host 127.0.0.1 and tcp port 80". */
  filter: string
  timeoutMs: number
  signal: AbortSignal
  /** Repeats the failing operation once; resolves to a line describing what happened. */
  reattempt: (signal: AbortSignal) => Promise<string>
}

export interface CaptureReport {
  pcap?: Buffer
  /** tcpdump's own summary ("3 packets captured") and what the re-attempt saw. */
  summary?: string
  notes: string[]
}

export const SNAPLEN = 128
const MAX_PACKETS = 200
const MAX_PCAP_BYTES = 1024 * 1024
/** Long enough for a RST or an ICMP error to follow the last packet we sent. */
const SETTLE_MS = 150

export async function captureReattempt(options: CaptureOptions): Promise<CaptureReport> {
  const notes: string[] = []
  const started = performance.now()
  let listening: () => void = () => {}
  const ready = new Promise<void>((resolve) => {
    listening = resolve
  })
  const tool = startTool(
    options.command,
    // --immediate-mode: without it packets wait in the kernel ring for up to a second and are lost
    // when we stop tcpdump right after the re-attempt.
    [
      '-i',
      'any',
      '-n',
      '--immediate-mode',
      '-s',
      String(SNAPLEN),
      '-U',
      '-c',
      String(MAX_PACKETS),
      '-w',
      '-',
      options.filter,
    ],
    {
      timeoutMs: options.timeoutMs,
      signal: options.signal,
      maxStdoutBytes: MAX_PCAP_BYTES,
      onStderr: (text) => {
        if (text.includes('listening on')) listening()
      },
    },
  )
  const exitedEarly = await Promise.race([ready.then(() => false), tool.done.then(() => true)])
  if (exitedEarly) {
    const run = await tool.done
    if (run.notFound)
      notes.push(`tcpdump: '${options.command}' is not installed (Debian: apt-get install tcpdump)`)
    else if (run.spawnError) notes.push(`tcpdump: could not start: ${run.spawnError}`)
    else if (run.timedOut) notes.push('tcpdump: did not start capturing within the diagnostics time limit')
    else if (/permission|not permitted/i.test(run.stderr)) {
      notes.push('tcpdump: capture not permitted (needs root or CAP_NET_RAW on tcpdump)')
    } else notes.push(`tcpdump: exited before capturing (${run.exitCode}): ${lastLine(run.stderr)}`)
    return { notes }
  }
  const reattemptController = new AbortController()
  const budget = Math.max(0, options.timeoutMs - (performance.now() - started) - SETTLE_MS - 100)
  const reattemptTimer = setTimeout(
    () => reattemptController.abort(new Error('re-attempt time limit')),
    budget,
  )
  let outcome: string
  try {
    outcome = await options.reattempt(reattemptController.signal)
  } catch (err) {
    outcome = `re-attempt failed: ${err instanceof Error ? err.message : String(err)}`
  } finally {
    clearTimeout(reattemptTimer)
  }
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS))
  tool.interrupt()
  const run = await tool.done
  if (run.timedOut) notes.push('tcpdump: stopped at the diagnostics time limit')
  const captured = /(\d+) packets? captured/.exec(run.stderr)?.[0]
  return { pcap: run.stdout, summary: `${outcome}; ${captured ?? 'tcpdump gave no summary'}`, notes }
}

function lastLine(text: string): string {
  const lines = text.split('\n').filter((line) => line.trim() !== '')
  return lines[lines.length - 1] ?? ''
}
