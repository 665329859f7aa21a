// What MultiStepCheck and BrowserCheck share: a Playwright script (code), a runtime, and minute
// frequencies. They differ only in what the agent does with the script.

import { type CheckCode, NEWEST_RUNTIME, type RuntimeId } from '../model/checks.ts'
import { Check, type CheckContext, type CheckProps } from './check.ts'
import { resolveCode, SPEC_ENDINGS, validateCode } from './code.ts'
import type { Report } from './diagnostics.ts'
import { type Frequency, MINUTE_FREQUENCIES } from './frequency.ts'
import { validateRuntimeId } from './runtime.ts'

export interface ScriptCheckProps extends CheckProps {
  /** Exactly one of entrypoint (a .spec.js/.spec.ts file relative to this check file) and content. */
  code: CheckCode
  /** 2023.09, 2025.04 or 2026.04 (default: the project's, else 2026.04). */
  runtimeId?: RuntimeId
}

export abstract class ScriptCheck<P extends ScriptCheckProps> extends Check<P> {
  protected get ownProps() {
    return ['code', 'runtimeId']
  }
  protected get frequencies(): readonly Frequency[] {
    return MINUTE_FREQUENCIES
  }

  protected validateOwn(report: Report, props: Record<string, unknown>, context: CheckContext): void {
    validateCode(report, 'code', props.code, context.checkFile, { entrypointEndings: SPEC_ENDINGS })
    validateRuntimeId(report, 'runtimeId', props.runtimeId, this.kind)
  }

  /** The script and runtime, resolved against the check file and the project defaults. */
  protected scriptDefinition(context: CheckContext): { code: CheckCode; runtimeId: RuntimeId } {
    return {
      code: resolveCode(this.props.code, context.checkFile),
      runtimeId: this.props.runtimeId ?? context.defaults?.runtimeId ?? NEWEST_RUNTIME,
    }
  }
}
