import { defineConfig } from 'outpost'

// Project defaults for every check in this folder; a check's own options win.
export default defineConfig({
  projectName: 'Outpost examples',
  checks: {
    tags: ['example'],
    checkMatch: '**/*.check.{ts,js,mjs}',
  },
})
