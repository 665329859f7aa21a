// Reads the event file our reporter writes (child/outpost-reporter.cjs) into steps, output and
// per-test outcomes. The file may end mid-run when the run was killed; every complete line counts.

import type { LogLine, StepResult } from '../model/result.ts'

export interface TestOutcome {
  title: string
  titlePath: string[]
  project: string
  status: 'passed' | 'failed' | 'timedOut' | 'skipped' | 'interrupted'
  expectedStatus: string
  durationMs: number
  error?: string
  attachments: { name: string; path: string; contentType: string }[]
}

export interface RunEvents {
  /** Top-level test.step calls in the order they started. */
  steps: StepResult[]
  /** Steps that began and never ended (the run was stopped inside them). */
  unfinished: string[]
  logs: LogLine[]
  tests: TestOutcome[]
  errors: string[]
  ended: boolean
  totalTests?: number
  /** Epoch ms: Playwright began (config loaded, tests listed), the first test began, Playwright ended. */
  beganAt?: number
  firstTestAt?: number
  endedAt?: number
}

type Event =
  | { type: 'begin'; tests: number; at: number }
  | { type: 'test-begin'; title: string; at: number }
  | { type: 'step-begin'; title: string; at: number }
  | { type: 'step-end'; title: string; durationMs: number; error?: string; at: number }
  | { type: 'stdout' | 'stderr'; text: string; at: number }
  | ({ type: 'test-end'; at: number } & TestOutcome)
  | { type: 'error'; error?: string; at: number }
  | { type: 'end'; status: string; at: number }

/** A chatty check must not make its result huge: the first lines are kept, each line cut at a length. */
export const MAX_LOG_LINES = 1000
export const MAX_LOG_LINE_CHARS = 4000

function cut(text: string): string {
  return text.length > MAX_LOG_LINE_CHARS ? `${text.slice(0, MAX_LOG_LINE_CHARS)}…` : text
}

/** Parse scrubbed text: lines and errors are shortened here, and a cut must not split a secret. */
export function parseRunEvents(ndjson: string): RunEvents {
  let droppedLines = 0
  const out: RunEvents = { steps: [], unfinished: [], logs: [], tests: [], errors: [], ended: false }
  const open: { title: string; index: number }[] = []
  for (const line of ndjson.split('\n')) {
    if (!line.trim()) continue
    let event: Event
    try {
      event = JSON.parse(line) as Event
    } catch {
      continue // the last line of a killed run may be cut short
    }
    switch (event.type) {
      case 'begin':
        out.totalTests = event.tests
        out.beganAt = event.at
        break
      case 'test-begin':
        out.firstTestAt ??= event.at
        break
      case 'step-begin':
        open.push({ title: event.title, index: out.steps.length })
        out.steps.push({ name: event.title, status: 'failed', durationMs: Date.now() - event.at })
        break
      case 'step-end': {
        const at = open.findIndex((s) => s.title === event.title)
        if (at < 0) break
        const [started] = open.splice(at, 1)
        const step = started ? out.steps[started.index] : undefined
        if (!step) break
        step.durationMs = Math.round(event.durationMs)
        step.status = event.error ? 'failed' : 'passed'
        if (event.error) step.error = cut(event.error)
        break
      }
      case 'stdout':
      case 'stderr':
        for (const text of event.text.replace(/\n$/, '').split('\n')) {
          if (out.logs.length >= MAX_LOG_LINES) {
            droppedLines++
            continue
          }
          out.logs.push({
            time: new Date(event.at).toISOString(),
            level: event.type === 'stderr' ? 'error' : 'info',
            message: cut(text),
          })
        }
        break
      case 'test-end':
        out.tests.push({
          title: event.title,
          titlePath: event.titlePath,
          project: event.project,
          status: event.status,
          expectedStatus: event.expectedStatus,
          durationMs: event.durationMs,
          error: event.error === undefined ? undefined : cut(event.error),
          attachments: event.attachments,
        })
        break
      case 'error':
        if (event.error) out.errors.push(cut(event.error))
        break
      case 'end':
        out.ended = true
        out.endedAt = event.at
        break
    }
  }
  out.unfinished = open.map((s) => s.title)
  if (droppedLines > 0) {
    out.logs.push({
      time: new Date().toISOString(),
      level: 'warn',
      message: `${droppedLines} more lines of output were not kept (at most ${MAX_LOG_LINES})`,
    })
  }
  return out
}

/**
 * Final step list: what ran, then the declared steps that never ran, marked skipped with the reason.
 * A step still open when the run was stopped is failed with `stopReason`.
 */
export function mergeSteps(
  events: RunEvents,
  declared: string[],
  stopReason: string | undefined,
): StepResult[] {
  const steps = events.steps.map((s) => ({ ...s }))
  const openIndexes = new Set<number>()
  for (const title of events.unfinished) {
    const index = steps.findLastIndex(
      (s) => s.name === title && s.error === undefined && s.status === 'failed',
    )
    if (index >= 0) openIndexes.add(index)
  }
  for (const index of openIndexes) {
    const step = steps[index]
    if (step) step.error = `did not finish: ${stopReason ?? 'the run ended inside this step'}`
  }
  const remaining = new Map<string, number>()
  for (const s of steps) remaining.set(s.name, (remaining.get(s.name) ?? 0) + 1)
  const failed = steps.find((s) => s.status === 'failed')
  for (const name of declared) {
    const left = remaining.get(name) ?? 0
    if (left > 0) {
      remaining.set(name, left - 1)
      continue
    }
    steps.push({
      name,
      status: 'skipped',
      durationMs: 0,
      error: failed ? `not run: step "${failed.name}" failed before it` : 'not run: the test ended before it',
    })
  }
  return steps
}
