// MultiStepCheck: a Playwright Test script making several requests, each a named test.step (the seed's
// table). Defaults where the seed is silent: frequency EVERY_10M, runtime the newest (2026.04).

import type { MultiStepCheck as MultiStepDefinition } from '../model/checks.ts'
import type { CheckContext } from './check.ts'
import { ScriptCheck, type ScriptCheckProps } from './script-check.ts'

export type MultiStepCheckProps = ScriptCheckProps

export class MultiStepCheck extends ScriptCheck<MultiStepCheckProps> {
  get type() {
    return 'MULTI_STEP' as const
  }
  protected get kind() {
    return 'multistep checks'
  }

  toDefinition(context: CheckContext): MultiStepDefinition {
    return { ...this.commonDefinition(context), type: 'MULTI_STEP', ...this.scriptDefinition(context) }
  }
}
