// MultiStepCheck: a Playwright Test script making several requests, each a named test.step (the seed's
// table). Defaults where the seed is silent: frequency EVERY_10M, runtime the newest (2026.04).

import {
  type CheckCode,
  type MultiStepCheck as MultiStepDefinition,
  NEWEST_RUNTIME,
  type RuntimeId,
} from '../model/checks.ts'
import { Check, type CheckContext, type CheckProps } from './check.ts'
import { resolveCode, SPEC_ENDINGS, validateCode } from './code.ts'
import type { Report } from './diagnostics.ts'
import { type Frequency, MINUTE_FREQUENCIES } from './frequency.ts'
import { validateRuntimeId } from './runtime.ts'

export interface MultiStepCheckProps extends CheckProps {
  /** Exactly one of entrypoint (a .spec.js/.spec.ts file relative to this check file) and content. */
  code: CheckCode
  /** 2023.09, 2025.04 or 2026.04 (default: the project's, else 2026.04). */
  runtimeId?: RuntimeId
}

export class MultiStepCheck extends Check<MultiStepCheckProps> {
  get type() {
    return 'MULTI_STEP' as const
  }
  protected get kind() {
    return 'multistep checks'
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

  toDefinition(context: CheckContext): MultiStepDefinition {
    return {
      ...this.commonDefinition(context),
      type: 'MULTI_STEP',
      code: resolveCode(this.props.code, context.checkFile),
      runtimeId: this.props.runtimeId ?? context.defaults?.runtimeId ?? NEWEST_RUNTIME,
    }
  }
}
