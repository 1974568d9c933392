// parse.mjs reads one of mcpconform's reports with third-party parsers from
// npm and prints, as JSON, what those parsers make of it. report's Go test
// (consumers_test.go) runs it on the golden files and checks the counts and
// messages against the model.
//
//   node parse.mjs NODE_MODULES tap FILE     tap-parser (TAP 14)
//   node parse.mjs NODE_MODULES junit FILE   junit2json and test-results-parser
//
// NODE_MODULES is where the packages are installed: one node_modules
// directory, e.g. after
//   npm install --prefix .cache/consumers --no-save tap-parser@18.3.4 junit2json@4.0.0 test-results-parser@0.4.6
// or several, separated as in PATH (':'), as the Go test passes the
// per-package installs of internal/npmcache; each package is loaded from the
// first that has it. (ES modules are resolved from the importing file, not
// NODE_PATH, so the directories are passed in.)
import { createRequire } from 'node:module'
import { readFileSync } from 'node:fs'
import { delimiter, join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'

const [modules, kind, file] = process.argv.slice(2)
if (!modules || !kind || !file) {
  console.error('usage: node parse.mjs NODE_MODULES tap|junit FILE')
  process.exit(2)
}
const requires = modules.split(delimiter).filter(Boolean).map((m) => createRequire(join(resolve(m), 'noop.js')))
const resolveIn = (name) => {
  for (const r of requires) {
    try {
      return r.resolve(name)
    } catch {}
  }
  throw new Error(`${name} is not installed in ${modules}`)
}
const load = async (name) => import(pathToFileURL(resolveIn(name)).href)

// point keeps what a harness shows for one test point.
const point = (a) => ({
  id: a.id,
  ok: a.ok,
  name: a.name,
  todo: a.todo ?? false,
  skip: a.skip ?? false,
  diag: a.diag ?? null,
  time: a.time ?? null,
})

// parseTAP collects a stream's points, its subtests (recursively) and the
// parser's final tally.
function collect(parser) {
  const out = { asserts: [], children: [], results: null }
  parser.on('assert', (a) => out.asserts.push(point(a)))
  parser.on('child', (child) => {
    const c = collect(child)
    c.name = child.name
    out.children.push(c)
  })
  parser.on('complete', (r) => {
    out.results = {
      ok: r.ok,
      count: r.count,
      pass: r.pass,
      fail: r.fail,
      todo: r.todo,
      skip: r.skip,
      plan: r.plan ? { start: r.plan.start, end: r.plan.end } : null,
      failures: (r.failures ?? []).map((f) => ({ name: f.name ?? null, tapError: f.tapError ?? null, ok: f.ok ?? null })),
    }
  })
  return out
}

if (kind === 'tap') {
  const { Parser } = await load('tap-parser')
  const parser = new Parser({ strict: true })
  const out = collect(parser)
  parser.end(readFileSync(file, 'utf8'))
  await new Promise((done) => setImmediate(done))
  console.log(JSON.stringify(out))
} else if (kind === 'junit') {
  const { parse } = await load('junit2json')
  const trp = await load('test-results-parser')
  const structure = await parse(readFileSync(file, 'utf8'))
  const summary = (trp.default ?? trp).parse({ type: 'junit', files: [file] })
  console.log(JSON.stringify({
    junit2json: structure,
    testResultsParser: {
      total: summary.total, passed: summary.passed, failed: summary.failed,
      errors: summary.errors, skipped: summary.skipped,
      suites: summary.suites.map((s) => ({
        name: s.name, total: s.total, passed: s.passed, failed: s.failed, errors: s.errors, skipped: s.skipped,
        metadata: s.metadata,
        cases: s.cases.map((c) => ({
          name: c.name, status: c.status, failure: c.failure ?? '', stack_trace: c.stack_trace ?? '',
          duration: c.duration, attachments: c.attachments.map((a) => a.path),
        })),
      })),
    },
  }))
} else {
  console.error(`unknown kind ${kind}`)
  process.exit(2)
}
