import type { PlaywrightCheckSuite } from '../../model/checks.ts'
import type { ProbeContext, ProbeOutcome } from '../../model/probe.ts'

export interface SuiteDeps {
  dataDir: string
  secrets: { values: string[] }
  agentEnv: Record<string, string | undefined>
  graceMs: number
  progressEveryMs: number
  onSecrets?: (values: string[]) => void
}

export async function runSuite(
  _deps: SuiteDeps,
  _check: PlaywrightCheckSuite,
  _ctx: ProbeContext,
): Promise<ProbeOutcome> {
  return {
    status: 'failed',
    error: { code: 'NOT_IMPLEMENTED', message: 'check suites are not supported yet' },
    assertions: [],
  }
}
