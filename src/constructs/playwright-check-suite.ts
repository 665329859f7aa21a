// PlaywrightCheckSuite (Checkly's PlaywrightCheck): a whole Playwright project run as one check.

import { existsSync, statSync } from 'node:fs'
import { basename } from 'node:path'
import type { PlaywrightCheckSuite as SuiteDefinition } from '../model/checks.ts'
import { Check, type CheckContext, type CheckProps } from './check.ts'
import { resolveEntrypoint } from './code.ts'
import type { Report } from './diagnostics.ts'
import { type Frequency, MINUTE_FREQUENCIES } from './frequency.ts'
import { checkString, checkStringArray, show } from './values.ts'

export interface PlaywrightCheckSuiteProps extends CheckProps {
  /** playwright.config.{ts,js,mjs,cjs}, relative to this check file; its folder is the suite. */
  playwrightConfigPath: string
  /** Default: chosen from the suite's lockfile (npm ci, pnpm i --frozen-lockfile, ...). */
  installCommand?: string
  /** Default: `npx playwright test` with the projects and tags below. */
  testCommand?: string
  pwProjects?: string[]
  pwTags?: string[]
}

const CONFIG_NAME = /^playwright\.config\.(ts|js|mjs|cjs|mts|cts)$/

export class PlaywrightCheckSuite extends Check<PlaywrightCheckSuiteProps> {
  get type() {
    return 'PLAYWRIGHT' as const
  }
  protected get kind() {
    return 'Playwright check suites'
  }
  protected get ownProps() {
    return ['playwrightConfigPath', 'installCommand', 'testCommand', 'pwProjects', 'pwTags']
  }
  protected get frequencies(): readonly Frequency[] {
    return MINUTE_FREQUENCIES
  }

  protected validateOwn(report: Report, props: Record<string, unknown>, context: CheckContext): void {
    if (checkString(report, 'playwrightConfigPath', props.playwrightConfigPath, { required: true })) {
      const given = props.playwrightConfigPath as string
      const file = resolveEntrypoint(given, context.checkFile)
      if (!CONFIG_NAME.test(basename(file))) {
        report(
          'playwrightConfigPath',
          `must name a playwright.config.{ts,js,mjs,cjs} file, got ${show(given)}`,
        )
      } else if (!existsSync(file) || !statSync(file).isFile()) {
        report('playwrightConfigPath', `${show(given)} does not exist (looked for ${file})`)
      }
    }
    checkString(report, 'installCommand', props.installCommand)
    checkString(report, 'testCommand', props.testCommand)
    checkStringArray(report, 'pwProjects', props.pwProjects)
    checkStringArray(report, 'pwTags', props.pwTags)
  }

  toDefinition(context: CheckContext): SuiteDefinition {
    const p = this.props
    const definition: SuiteDefinition = {
      ...this.commonDefinition(context),
      type: 'PLAYWRIGHT',
      playwrightConfigPath: resolveEntrypoint(p.playwrightConfigPath, context.checkFile),
      pwProjects: [...(p.pwProjects ?? [])],
      pwTags: [...(p.pwTags ?? [])],
    }
    if (p.installCommand !== undefined) definition.installCommand = p.installCommand
    if (p.testCommand !== undefined) definition.testCommand = p.testCommand
    return definition
  }
}
