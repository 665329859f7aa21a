import { execFile } from 'node:child_process'
import path from 'node:path'

/** Runs a bench helper script (a path relative to bench/lib) under this same Node (24) in its own process; resolves its stdout. */
export function runScript(script: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [path.resolve(import.meta.dirname, script), ...args],
      (error, stdout, stderr) => {
        if (error) reject(new Error(`${script} failed: ${stderr || error.message}`))
        else resolve(stdout)
      },
    )
  })
}
