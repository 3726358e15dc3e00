#!/usr/bin/env bash
# The README's figures: clones this repository fresh into a scratch directory and prints how long
# the README's test commands take there, with the machine's core count and the date. Quote its
# output in the README. Usage: bash .ci/times.sh [inner|all]  (default inner: the inner loop only)
set -euo pipefail
what=${1:-inner}
src=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git clone -q "$src" "$work/krmfn"
cd "$work/krmfn"
python3 -m venv .venv && .venv/bin/pip install -q -e '.[test]' --config-settings editable_mode=compat
timed() {
  local start=$SECONDS
  "$@" >/dev/null 2>&1 || true
  printf '%4ds  %s\n' "$((SECONDS - start))" "$*"
}
echo "$(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%Y-%m-%d)"
timed .venv/bin/python -m pytest -m "not integration" -n 2
if [ "$what" = all ]; then
  timed .venv/bin/python -m pytest -n 2
fi
