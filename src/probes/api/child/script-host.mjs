// Runs one setup or teardown script of an API check, in a process of its own started by the agent.
// The script sees `request` (and, in a teardown, `response`) as globals, like Checkly's scripts,
// and may change them; what they hold when the script ends is written back for the agent to use.
// console output goes to a file as JSON lines with its level, so it survives a kill at the timeout.
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { pathToFileURL } from 'node:url'
import { format } from 'node:util'

const [stateFile, scriptFile, outFile, consoleFile] = process.argv.slice(2)
const MAX_CONSOLE_BYTES = 256 * 1024

const state = JSON.parse(readFileSync(stateFile, 'utf8'))
const initialEnv = { ...process.env }
globalThis.request = state.request
if (state.response !== undefined) globalThis.response = state.response
// A script written as an ES module has no `require`; Checkly's scripts use it for axios and friends.
globalThis.require ??= createRequire(scriptFile)

let consoleBytes = 0
let consoleCut = false
const record = (level, args) => {
  if (consoleCut) return
  const line = `${JSON.stringify({ time: new Date().toISOString(), level, message: format(...args) })}\n`
  consoleBytes += Buffer.byteLength(line)
  if (consoleBytes > MAX_CONSOLE_BYTES) {
    consoleCut = true
    const note = {
      time: new Date().toISOString(),
      level: 'warn',
      message: 'console output cut: over 256 KiB',
    }
    appendFileSync(consoleFile, `${JSON.stringify(note)}\n`)
    return
  }
  appendFileSync(consoleFile, line)
}
const LEVELS = { log: 'info', info: 'info', debug: 'debug', trace: 'debug', warn: 'warn', error: 'error' }
for (const [method, level] of Object.entries(LEVELS)) {
  console[method] = (...args) => record(level, args)
}

const fail = (err) => {
  const message = err instanceof Error ? (err.stack ?? err.message) : String(err)
  writeFileSync(outFile, JSON.stringify({ error: message }))
  process.exit(1)
}
process.on('unhandledRejection', fail)
process.on('uncaughtException', fail)

try {
  await import(pathToFileURL(scriptFile).href)
} catch (err) {
  fail(err)
}
// Variables the script set or changed may be used as {{NAME}} in the request (as in Checkly).
const env = {}
for (const [key, value] of Object.entries(process.env)) {
  if (value !== undefined && initialEnv[key] !== value) env[key] = value
}
// A script may leave timers or sockets open; its work is done when its module has finished.
writeFileSync(outFile, JSON.stringify({ request: globalThis.request, response: globalThis.response, env }))
process.exit(0)
