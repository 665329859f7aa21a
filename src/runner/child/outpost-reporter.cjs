// Playwright Test reporter loaded inside a check run (every runtime, 1.38 onwards). It appends one JSON
// event per line to a file, synchronously, so that a run killed at its timeout still leaves behind
// every step and every line of output it produced up to that moment.
// CommonJS without dependencies: it runs under whichever Playwright the runtime has.
const { appendFileSync } = require('node:fs')

// biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI colour codes are control characters.
const ANSI = /\u001b\[[0-9;]*m/g
const clean = (s) => String(s ?? '').replace(ANSI, '')
// A script that floods stdout must not fill the agent's disk nor its memory when the file is read back:
// output past this many characters is counted, not kept. Whole chunks only, so no secret is cut in two.
const OUTPUT_LIMIT_CHARS = 1024 * 1024

function errorText(error) {
  if (!error) return undefined
  // Never cut here: a cut could split a secret, leaving half of it that no scrubber recognises.
  // The agent scrubs first and shortens after.
  return clean(error.message ?? error.value ?? 'error')
}

function isTopLevelUserStep(step) {
  if (step.category !== 'test.step') return false
  for (let p = step.parent; p; p = p.parent) if (p.category === 'test.step') return false
  return true
}

class OutpostReporter {
  constructor(options) {
    // Suites name our reporter on the command line, where it cannot take options: the file comes by env.
    this.file = options?.outFile ?? process.env.OUTPOST_REPORTER_FILE
    this.started = new Map()
    this.outputChars = 0
    this.droppedChars = 0
  }
  emit(event) {
    appendFileSync(this.file, `${JSON.stringify({ ...event, at: Date.now() })}\n`)
  }
  printsToStdio() {
    return false
  }
  onBegin(_config, suite) {
    this.emit({ type: 'begin', tests: suite.allTests().length })
  }
  onTestBegin(test) {
    this.emit({ type: 'test-begin', title: test.title, file: test.location.file, tags: test.tags ?? [] })
  }
  onStepBegin(_test, _result, step) {
    if (!isTopLevelUserStep(step)) return
    this.emit({ type: 'step-begin', title: clean(step.title) })
  }
  onStepEnd(_test, _result, step) {
    if (!isTopLevelUserStep(step)) return
    this.emit({
      type: 'step-end',
      title: clean(step.title),
      durationMs: step.duration,
      error: errorText(step.error),
    })
  }
  output(type, chunk, test) {
    const text = clean(chunk)
    if (this.outputChars + text.length > OUTPUT_LIMIT_CHARS) {
      if (this.droppedChars === 0) {
        this.emit({
          type: 'stderr',
          text: `[outpost: output beyond ${OUTPUT_LIMIT_CHARS} characters is not kept]\n`,
          inTest: Boolean(test),
        })
      }
      this.droppedChars += text.length
      return
    }
    this.outputChars += text.length
    this.emit({ type, text, inTest: Boolean(test) })
  }
  onStdOut(chunk, test) {
    this.output('stdout', chunk, test)
  }
  onStdErr(chunk, test) {
    this.output('stderr', chunk, test)
  }
  onTestEnd(test, result) {
    this.emit({
      type: 'test-end',
      title: test.title,
      // Without the root and project suites: file, describe blocks, title.
      titlePath: test.titlePath().slice(2).filter(Boolean),
      project: test.parent?.project()?.name ?? '',
      status: result.status,
      expectedStatus: test.expectedStatus,
      durationMs: result.duration,
      error: errorText(result.error),
      attachments: result.attachments
        .filter((a) => a.path)
        .map((a) => ({ name: a.name, path: a.path, contentType: a.contentType })),
    })
  }
  onError(error) {
    this.emit({ type: 'error', error: errorText(error) })
  }
  onEnd(result) {
    this.emit({ type: 'end', status: result.status })
  }
}

module.exports = OutpostReporter
