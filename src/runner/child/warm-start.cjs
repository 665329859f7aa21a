// A pre-started Playwright main process (the warm runner). Started ahead of a job with a minimal
// environment, it loads Playwright's modules, then waits for one line on stdin naming the run: its
// directory, CLI arguments and complete environment. It replaces its environment with that one
// (nothing of the start-up environment survives, and the agent's was never in it) and runs the CLI.
// If stdin closes first (the agent stopped), it exits: a warm runner never outlives its agent.
const { dirname } = require('node:path')

const cli = process.argv[2]
const from = { paths: [dirname(cli)] }
// Newer Playwright keeps its CLI in lib/program; 1.38 in lib/cli, which runs as soon as it is
// required, so for that one only its heavy dependencies are loaded ahead.
for (const id of [
  '@playwright/test',
  'playwright/lib/program',
  'playwright/lib/runner/runner',
  'playwright/lib/common/configLoader',
  'playwright/lib/reporters/html',
  'playwright-core/lib/cli/program',
]) {
  try {
    require(require.resolve(id, from))
  } catch {
    // Not in this Playwright version.
  }
}

// Tell the agent the modules are loaded (fd 3 is a pipe only it reads), then close that pipe.
try {
  require('node:fs').writeSync(3, 'ready\n')
  require('node:fs').closeSync(3)
} catch {
  // Started without the pipe: nobody waits for the signal.
}

let buffered = ''
const onData = (chunk) => {
  buffered += chunk
  const newline = buffered.indexOf('\n')
  if (newline < 0) return
  process.stdin.off('data', onData)
  process.stdin.off('end', onEnd)
  process.stdin.destroy()
  const job = JSON.parse(buffered.slice(0, newline))
  for (const key of Object.keys(process.env)) delete process.env[key]
  Object.assign(process.env, job.env)
  process.chdir(job.cwd)
  process.argv = [process.execPath, cli, ...job.args]
  require(cli)
}
const onEnd = () => process.exit(0)
process.stdin.setEncoding('utf8')
process.stdin.on('data', onData)
process.stdin.on('end', onEnd)
