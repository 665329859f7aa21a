// BrowserCheck: a Playwright script driving a real browser (Debian's chromium on the agent).

import {
  type BrowserCheck as BrowserDefinition,
  type CheckCode,
  NEWEST_RUNTIME,
  type RuntimeId,
} from '../model/checks.ts'
import { Check, type CheckContext, type CheckProps } from './check.ts'
import { resolveCode, SPEC_ENDINGS, validateCode } from './code.ts'
import type { Report } from './diagnostics.ts'
import { type Frequency, MINUTE_FREQUENCIES } from './frequency.ts'
import { validateRuntimeId } from './runtime.ts'

export interface BrowserCheckProps extends CheckProps {
  /** Exactly one of entrypoint (a .spec.js/.spec.ts file relative to this check file) and content. */
  code: CheckCode
  /** 2023.09, 2025.04 or 2026.04 (default: the project's, else 2026.04). */
  runtimeId?: RuntimeId
}

export class BrowserCheck extends Check<BrowserCheckProps> {
  get type() {
    return 'BROWSER' as const
  }
  protected get kind() {
    return 'browser checks'
  }
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

  toDefinition(context: CheckContext): BrowserDefinition {
    return {
      ...this.commonDefinition(context),
      type: 'BROWSER',
      code: resolveCode(this.props.code, context.checkFile),
      runtimeId: this.props.runtimeId ?? context.defaults?.runtimeId ?? NEWEST_RUNTIME,
    }
  }
}
