// Validation collects every problem instead of stopping at the first (Checkly's Diagnostics), so one
// `outpost validate` run shows a user everything to fix.

export interface Diagnostic {
  /** The file the problem is in: absolute while loading, relative to the loaded directory once reported. */
  file?: string
  logicalId?: string
  /** Dotted path of the offending option, e.g. `request.port` or `code.entrypoint`. */
  property?: string
  reason: string
}

export class Diagnostics {
  readonly #items: Diagnostic[] = []

  add(diagnostic: Diagnostic): void {
    this.#items.push(diagnostic)
  }

  get items(): readonly Diagnostic[] {
    return this.#items
  }

  get count(): number {
    return this.#items.length
  }
}

/** Receives the problems of one check; file and logicalId are already known to it. */
export type Report = (property: string, reason: string) => void

/** `file: logicalId: property: reason`, leaving out the parts a problem does not have. */
export function formatDiagnostic(diagnostic: Diagnostic): string {
  const parts = [diagnostic.file, printableId(diagnostic.logicalId), diagnostic.property].filter(
    (part): part is string => part !== undefined && part !== '',
  )
  return [...parts, diagnostic.reason].join(': ')
}

/**
 * A logicalId as the check file wrote it, which may be anything: quoted and cut when it is not a
 * plain id, so control characters (terminal escapes, NUL) and megabytes never reach the terminal raw.
 */
function printableId(logicalId: string | undefined): string | undefined {
  if (logicalId === undefined || /^[\w.-]{1,255}$/.test(logicalId)) return logicalId
  const cut = logicalId.length > 80 ? `${logicalId.slice(0, 77)}...` : logicalId
  return JSON.stringify(cut)
}
