// The tracker that finds what a run started by parentage: only the run's own descendants, never init,
// never an unrelated process, and children that left the group with an empty environment too.

import { spawn } from 'node:child_process'
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { trackDescendants } from '../../src/runner/descendants.ts'

/** A /proc look-alike: pid -> [ppid, start time]. */
async function fakeProc(tree: Record<number, [number, number]>): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'outpost-fakeproc-'))
  for (const [pid, [ppid, start]] of Object.entries(tree)) {
    await mkdir(path.join(dir, pid))
    const fields = ['S', String(ppid), ...Array.from({ length: 17 }, () => '0'), String(start), '0']
    await writeFile(path.join(dir, pid, 'stat'), `${pid} (x y) ${fields.join(' ')}\n`)
  }
  return dir
}

async function alive(pid: number): Promise<boolean> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '')
  const state = stat.charAt(stat.lastIndexOf(')') + 2)
  return state !== '' && state !== 'Z'
}

describe('trackDescendants', () => {
  const cleanup: (() => Promise<void>)[] = []
  afterEach(async () => {
    for (const c of cleanup.splice(0)) await c()
  })

  it('collects only the root descendants from a proc tree; init, kernel threads and strangers are left alone', async () => {
    const proc = await fakeProc({
      1: [0, 1],
      2: [0, 1],
      100: [1, 10], // the run's group leader
      101: [100, 11],
      102: [101, 12],
      103: [102, 13],
      200: [1, 20], // unrelated
      201: [200, 21],
    })
    cleanup.push(() => rm(proc, { recursive: true, force: true }))
    const killed: number[] = []
    const tracker = trackDescendants(100, { proc, intervalMs: 60_000, kill: (pid) => killed.push(pid) })
    tracker.stop()
    await tracker.scan()
    // Rounds of killAll repeat while the (fake) processes stay alive; every pid killed is ours.
    await tracker.killAll()
    expect([...new Set(killed)].sort()).toEqual([101, 102, 103])
  })

  it('a pid reused by another process after the scan is not killed', async () => {
    const proc = await fakeProc({ 1: [0, 1], 100: [1, 10], 101: [100, 11] })
    cleanup.push(() => rm(proc, { recursive: true, force: true }))
    const killed: number[] = []
    const tracker = trackDescendants(100, { proc, intervalMs: 60_000, kill: (pid) => killed.push(pid) })
    tracker.stop()
    await tracker.scan()
    // 101 ends and the pid goes to a process started later, elsewhere.
    await writeFile(path.join(proc, '101', 'stat'), `101 (other) S 1 ${Array(17).fill('0').join(' ')} 99 0\n`)
    await tracker.killAll()
    expect(killed).toEqual([])
  })

  it('kills a real detached, environment-less grandchild; an unrelated sleep survives', async () => {
    const stranger = spawn('sleep', ['3000'], { stdio: 'ignore' })
    cleanup.push(async () => void stranger.kill('SIGKILL'))
    const leader = spawn('sh', ['-c', 'setsid env -i sleep 3001 & echo $!; sleep 3002'], {
      stdio: ['ignore', 'pipe', 'ignore'],
      detached: true,
    })
    const grandchild = Number(
      await new Promise<string>((resolve) => leader.stdout.once('data', (d: Buffer) => resolve(String(d)))),
    )
    cleanup.push(async () => {
      try {
        process.kill(grandchild, 'SIGKILL')
      } catch {}
      try {
        process.kill(-leader.pid!, 'SIGKILL')
      } catch {}
    })
    const tracker = trackDescendants(leader.pid!, { intervalMs: 60_000 })
    tracker.stop()
    await tracker.scan()
    process.kill(-leader.pid!, 'SIGKILL')
    await tracker.killAll()
    expect(await alive(grandchild)).toBe(false)
    expect(await alive(stranger.pid!)).toBe(true)
    expect(await alive(process.pid)).toBe(true)
  })
})
