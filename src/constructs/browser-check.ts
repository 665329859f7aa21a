// BrowserCheck: a Playwright script driving a real browser (Debian's chromium on the agent).

import type { BrowserCheck as BrowserDefinition } from '../model/checks.ts'
import type { CheckContext } from './check.ts'
import { ScriptCheck, type ScriptCheckProps } from './script-check.ts'

export type BrowserCheckProps = ScriptCheckProps

export class BrowserCheck extends ScriptCheck<BrowserCheckProps> {
  get type() {
    return 'BROWSER' as const
  }
  protected get kind() {
    return 'browser checks'
  }

  toDefinition(context: CheckContext): BrowserDefinition {
    return { ...this.commonDefinition(context), type: 'BROWSER', ...this.scriptDefinition(context) }
  }
}
