import { describe, expect, it } from 'vitest'
import { declaredStepNames } from '../../src/runner/declared-steps.ts'

describe('declaredStepNames', () => {
  it('reads step names in source order, in any quote style, and leaves out names built at run time', () => {
    const source = String.raw`
      await test.step('log in', async () => {})
      await test . step("say \"hi\"", async () => {})
      await test.step(${'`'}plain template${'`'}, async () => {})
      await test.step(${'`'}order ${'$'}{id}${'`'}, async () => {})
      await test.step(name, async () => {})
      await test.step('log in', async () => {})
    `
    expect(declaredStepNames(source)).toEqual(['log in', 'say "hi"', 'plain template', 'log in'])
  })
})
