// The setup and teardown scripts of one API check run: each runs in a scratch directory of its own
// (removed after), its console output joins the run's logs with the script's name, and secrets it
// revealed join the run's scrubber.

import { mkdir, rm } from 'node:fs/promises'
import { join } from 'node:path'
import type { ApiCheck } from '../../model/checks.ts'
import type { ProbeContext } from '../../model/probe.ts'
import type { LogLine } from '../../model/result.ts'
import { runApiScript, type ScriptKind, type ScriptOutcome } from './run-script.ts'

export interface ScriptPhaseOptions {
  check: ApiCheck
  ctx: ProbeContext
  runtimesDir: string
  agentEnv: Readonly<Record<string, string | undefined>>
  timeoutMs: number
  graceMs: number
  /** Receives the values a script revealed (it is the run's set of secrets). */
  secrets: Set<string>
  onSecrets?: (values: string[]) => void
}

export interface ScriptPhases {
  /** Undefined when the check has no script of this kind. */
  run(kind: ScriptKind, state: { request: unknown; response?: unknown }): Promise<ScriptOutcome | undefined>
  /** console output of every script run so far, each line prefixed with `[setup]` or `[teardown]`. */
  readonly logs: LogLine[]
  /** Per script: ok, durationMs and the error code, for the result's details. */
  readonly summary: Record<string, unknown>
}

export function createScriptPhases(options: ScriptPhaseOptions): ScriptPhases {
  const logs: LogLine[] = []
  const summary: Record<string, unknown> = {}
  const { check, ctx } = options
  return {
    logs,
    summary,
    async run(kind, state) {
      const code = kind === 'setup' ? check.setupScript : check.tearDownScript
      if (!code) return undefined
      const workDir = join(ctx.runDir, `${kind}-script`)
      await mkdir(workDir, { recursive: true })
      let outcome: ScriptOutcome
      try {
        outcome = await runApiScript({
          kind,
          code,
          runtimeId: check.runtimeId,
          runtimesDir: options.runtimesDir,
          workDir,
          state,
          agentEnv: options.agentEnv,
          checkEnv: check.environmentVariables,
          testSession: ctx.testSession,
          timeoutMs: options.timeoutMs,
          graceMs: options.graceMs,
          signal: ctx.signal,
        })
      } finally {
        // Holds the unscrubbed state and output of the script: never outlives the run.
        await rm(workDir, { recursive: true, force: true })
      }
      for (const line of outcome.logs) logs.push({ ...line, message: `[${kind}] ${line.message}` })
      summary[kind] = {
        ok: outcome.ok,
        durationMs: outcome.durationMs,
        ...(outcome.error ? { error: outcome.error.code } : {}),
      }
      if (outcome.discoveredSecrets.length > 0) {
        for (const value of outcome.discoveredSecrets) options.secrets.add(value)
        options.onSecrets?.(outcome.discoveredSecrets)
      }
      return outcome
    },
  }
}
