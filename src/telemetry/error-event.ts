// The whole of what an error event may carry: message and stack (scrubbed, no source lines), agent
// version, platform and Node version. Built afresh from the SDK's event rather than pruned from it,
// so a field the SDK adds in a later version can never slip through.

import type { Scrubber } from '../secrets/scrubber.ts'

export interface MinimalFrame {
  filename?: string
  function?: string
  lineno?: number
  colno?: number
  in_app?: boolean
}

export interface MinimalException {
  type?: string
  value?: string
  stacktrace?: { frames: MinimalFrame[] }
}

export interface MinimalEvent {
  event_id?: string
  timestamp?: number
  level: 'error'
  platform: 'node'
  release: string
  exception: { values: MinimalException[] }
  tags: { agent_version: string; platform: string; node: string }
  contexts: { os: { name: string }; runtime: { name: 'node'; version: string } }
}

/** The SDK's event, as far as we read it. */
export interface SdkEvent {
  event_id?: string
  timestamp?: number
  exception?: { values?: Array<{ type?: string; value?: string; stacktrace?: { frames?: MinimalFrame[] } }> }
}

export interface EventFacts {
  version: string
  /** Paths below this root are reported relative to it (app:///src/...), never as absolute paths. */
  appRoot: string
}

export function minimalEvent(event: SdkEvent, facts: EventFacts, scrubber: Scrubber): MinimalEvent {
  const frame = (f: MinimalFrame): MinimalFrame => ({
    filename: f.filename === undefined ? undefined : scrubber.text(relativeTo(facts.appRoot, f.filename)),
    function: f.function === undefined ? undefined : scrubber.text(f.function),
    lineno: f.lineno,
    colno: f.colno,
    in_app: f.in_app,
  })
  return {
    event_id: event.event_id,
    timestamp: event.timestamp,
    level: 'error',
    platform: 'node',
    release: `outpost-agent@${facts.version}`,
    exception: {
      values: (event.exception?.values ?? []).map((e) => ({
        type: e.type,
        value: e.value === undefined ? undefined : scrubber.text(e.value),
        stacktrace: e.stacktrace?.frames ? { frames: e.stacktrace.frames.map(frame) } : undefined,
      })),
    },
    tags: { agent_version: facts.version, platform: process.platform, node: process.version },
    contexts: { os: { name: process.platform }, runtime: { name: 'node', version: process.version } },
  }
}

function relativeTo(root: string, filename: string): string {
  const path = filename.startsWith('file://') ? filename.slice('file://'.length) : filename
  if (path.startsWith(`${root}/`)) return `app:///${path.slice(root.length + 1)}`
  // Outside the agent (node internals keep their names; anything else loses its directories).
  if (path.startsWith('node:') || !path.includes('/')) return path
  return `.../${path.slice(path.lastIndexOf('/') + 1)}`
}
