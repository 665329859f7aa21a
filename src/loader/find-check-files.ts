// Which files in a directory are check files: Checkly's checkMatch globs, node_modules never.

import { glob } from 'node:fs/promises'

export async function findCheckFiles(
  dir: string,
  checkMatch: readonly string[],
  ignoreDirectoriesMatch: readonly string[],
): Promise<string[]> {
  const exclude = ['**/node_modules', '**/node_modules/**', ...ignoreDirectoriesMatch]
  const found = new Set<string>()
  for await (const file of glob([...checkMatch], { cwd: dir, exclude })) found.add(file)
  // Sorted, so the order of checks and diagnostics is the same on every machine.
  return [...found].sort()
}
