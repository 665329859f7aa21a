// Every process a run started, found by parentage in /proc, so that children which leave the run's
// process group (setsid, detached) and drop its marker variable (a cleared environment) are still
// ended with the run. A process is remembered with its start time, so a recycled pid is never killed.
// Linux /proc; elsewhere it finds nothing. A child started and orphaned between two scans escapes
// (see docs/security.md).

import { readdir, readFile } from 'node:fs/promises'

export interface DescendantTracker {
  /** Looks once for new descendants; safe to call at any time, never rejects. */
  scan(): Promise<void>
  /** Kills every remembered descendant still alive (and what they started since); returns how many. */
  killAll(): Promise<number>
  /** Ends the periodic scan. */
  stop(): void
}

interface ProcStat {
  ppid: number
  startTime: string
  zombie: boolean
}

async function statOf(pid: number, proc: string): Promise<ProcStat | undefined> {
  const text = await readFile(`${proc}/${pid}/stat`, 'utf8').catch(() => '')
  const close = text.lastIndexOf(')')
  if (close < 0) return undefined
  // After the name: state, ppid, ... starttime is field 22 (index 19 here).
  const fields = text.slice(close + 2).split(' ')
  return { ppid: Number(fields[1]), startTime: fields[19] ?? '', zombie: fields[0] === 'Z' }
}

export function trackDescendants(
  rootPid: number,
  options: { intervalMs?: number; proc?: string; kill?: (pid: number) => void } = {},
): DescendantTracker {
  const proc = options.proc ?? '/proc'
  const kill = options.kill ?? ((pid: number) => process.kill(pid, 'SIGKILL'))
  // pid -> start time of the process we saw under that pid.
  const known = new Map<number, string>()
  let scanning: Promise<void> | undefined

  const scanOnce = async (): Promise<void> => {
    const entries = await readdir(proc).catch(() => [] as string[])
    const stats = new Map<number, ProcStat>()
    for (const entry of entries) {
      const pid = Number(entry)
      if (!Number.isInteger(pid) || pid === process.pid) continue
      const stat = await statOf(pid, proc)
      if (stat) stats.set(pid, stat)
    }
    const isOurs = (pid: number): boolean => {
      if (pid === rootPid) return true
      const startTime = known.get(pid)
      return startTime !== undefined && startTime === stats.get(pid)?.startTime
    }
    // Parents come before children only by chance in /proc order: repeat until nothing new (bounded).
    for (let round = 0; round < 64; round++) {
      let added = false
      for (const [pid, stat] of stats) {
        if (known.has(pid) || pid === rootPid || !isOurs(stat.ppid)) continue
        known.set(pid, stat.startTime)
        added = true
      }
      if (!added) break
    }
  }

  const scan = (): Promise<void> => {
    // One scan at a time; a caller during a scan waits for it and then gets a fresh one.
    const next = (scanning ?? Promise.resolve()).then(scanOnce, scanOnce)
    scanning = next
    return next
  }

  const timer = setInterval(() => void scan(), options.intervalMs ?? 1000)
  timer.unref()

  return {
    scan,
    async killAll() {
      let killed = 0
      for (let round = 0; round < 50; round++) {
        await scan()
        let alive = 0
        for (const [pid, startTime] of known) {
          const stat = await statOf(pid, proc)
          if (!stat || stat.startTime !== startTime) {
            known.delete(pid)
            continue
          }
          // Never init, the agent, or the agent's parent, whatever /proc said.
          if (stat.zombie || pid <= 1 || pid === process.pid || pid === process.ppid) continue
          alive++
          try {
            kill(pid)
            if (round === 0) killed++
          } catch {
            known.delete(pid)
          }
        }
        if (alive === 0) break
        await new Promise((r) => setTimeout(r, 20))
      }
      return killed
    },
    stop: () => clearInterval(timer),
  }
}
