// Blanks secret values in the agent's original environment block. /proc/<pid>/environ (and `ps e`)
// show the block the process was started with, whatever process.env says later, and any process of
// the same user (a check's script among them) can read it. Overwriting the bytes in place through
// /proc/self/mem leaves `API_KEY=*****` there instead of the key. Linux only; elsewhere a no-op.

import { closeSync, openSync, readFileSync, readSync, writeSync } from 'node:fs'

export interface BlankingOptions {
  /** Names whose values are blanked. */
  names: (name: string) => boolean
  /** Names removed from process.env too; the others are set again from a copy so the agent keeps them. */
  remove: (name: string) => boolean
  env?: NodeJS.ProcessEnv
  procSelf?: string
}

/** Returns the names blanked; throws when /proc/self/mem cannot be written (the caller logs it). */
export function blankEnvironSecrets(options: BlankingOptions): string[] {
  const env = options.env ?? process.env
  const procSelf = options.procSelf ?? '/proc/self'
  const stat = readFileSync(`${procSelf}/stat`, 'utf8')
  // Fields after the command name, which may itself hold spaces and parentheses; env_start is field 50.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  const start = Number(fields[47])
  const end = Number(fields[48])
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || end <= start) {
    throw new Error(`no environment block in ${procSelf}/stat`)
  }
  // Read before writing: process.env reads these same bytes, so the values must be copied first.
  const kept = new Map<string, string>()
  const fd = openSync(`${procSelf}/mem`, 'r+')
  try {
    const block = Buffer.alloc(end - start)
    readSync(fd, block, 0, block.length, start)
    const blanked: string[] = []
    let at = 0
    while (at < block.length) {
      let stop = block.indexOf(0, at)
      if (stop < 0) stop = block.length
      const equals = block.indexOf(0x3d, at)
      if (equals > at && equals < stop) {
        const name = block.toString('utf8', at, equals)
        if (options.names(name) && stop > equals + 1) {
          const value = env[name]
          if (value !== undefined) kept.set(name, value)
          const stars = Buffer.alloc(stop - equals - 1, 0x2a)
          writeSync(fd, stars, 0, stars.length, start + equals + 1)
          blanked.push(name)
        }
      }
      at = stop + 1
    }
    return blanked
  } finally {
    closeSync(fd)
    for (const [name, value] of kept) {
      if (options.remove(name)) delete env[name]
      // setenv copies the value to fresh memory, outside the block that /proc shows.
      else env[name] = value
    }
  }
}
