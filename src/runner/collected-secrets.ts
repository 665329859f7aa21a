// Reading what a run's secret probe (child/secret-probe.cjs) recorded.

import { readFile } from 'node:fs/promises'

export interface CollectedSecrets {
  /** Values assigned to process.env.SERVICE_SECRET_* during the run. */
  runtime: string[]
  /** Authorization header values the run sent (recorded on runtimes that scrub them). */
  authorization: string[]
}

export async function readTextOrEmpty(path: string): Promise<string> {
  return readFile(path, 'utf8').catch(() => '')
}

export function parseSecretFile(text: string): CollectedSecrets {
  const out: CollectedSecrets = { runtime: [], authorization: [] }
  for (const line of text.split('\n')) {
    if (!line.trim()) continue
    try {
      const { key, value } = JSON.parse(line) as { key: string; value: string }
      if (key === 'SERVICE_SECRET_AUTHORIZATION') out.authorization.push(value)
      else out.runtime.push(value)
    } catch {
      // A line cut short by a kill: nothing to read.
    }
  }
  return out
}

/** A path as one NODE_OPTIONS argument, whatever spaces or quotes it holds. */
export function quoteNodeOption(s: string): string {
  return `"${s.replace(/(["\\])/g, '\\$1')}"`
}
