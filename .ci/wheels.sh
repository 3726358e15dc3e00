#!/usr/bin/env bash
# Put every wheel the container image needs into dist/wheels/ on the HOST, so
# that `docker build` needs no network:
#   dist/wheels/*.whl      the runtime lock (requirements.lock, hash-checked)
#                          and the project's own wheel, krmfn-*.whl
#   dist/wheels/pip/       pip itself (pinned, hash-checked): the builder stage
#                          runs it from its wheel, since python3-minimal has no pip
# dist/wheels/ is rebuilt from scratch each run and git-ignores itself.
#
# Settings (environment):
#   KRMFN_SRC      project to build (default: this repository)
#   KRMFN_WHEELS   output directory (default: <repo>/dist/wheels)
#   KRMFN_PYTHON   host Python whose pip runs (default python3)
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
src=${KRMFN_SRC:-$repo}
out=${KRMFN_WHEELS:-$repo/dist/wheels}
py=${KRMFN_PYTHON:-python3}
lock=$repo/requirements.lock
PIP_PIN='pip==26.3 --hash=sha256:f3b60b20ffaadd4415ed7957212a38ac63fa4c5fa375bd0f4a797777940fad13'

die() { printf 'wheels: %s\n' "$*" >&2; exit 1; }

[ -f "$src/pyproject.toml" ] || die "no pyproject.toml in $src: nothing to build"
[ -f "$lock" ] || die "missing $lock"

# The image's interpreter: CPython 3.11 on this machine's architecture.
case $(uname -m) in
    x86_64 | amd64) arch=x86_64 ;;
    aarch64 | arm64) arch=aarch64 ;;
    *) die "no manylinux wheels pinned for $(uname -m)" ;;
esac
target=(--only-binary=:all: --python-version 3.11 --implementation cp --abi cp311
        --platform "manylinux2014_$arch")

export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1 PIP_ROOT_USER_ACTION=ignore
work=$(mktemp -d /tmp/krmfn-wheels.XXXXXX)
trap 'rm -rf "$work"' EXIT
log=$work/log
step() {
    if ! "$@" >>"$log" 2>&1; then
        tail -n 30 "$log" >&2
        die "failed: $*"
    fi
}

rm -rf "$out"
mkdir -p "$out/pip"
printf '# made by .ci/wheels.sh\n*\n' >"$out/.gitignore"

step "$py" -m pip download --quiet "${target[@]}" --require-hashes -r "$lock" -d "$out"
printf '%s\n' "$PIP_PIN" >"$work/pip.lock"
step "$py" -m pip download --quiet --no-deps --require-hashes -r "$work/pip.lock" -d "$out/pip"

# Build the project's wheel from a copy (tracked and untracked-but-not-ignored
# files), so build/ and *.egg-info never land in the work tree.
mkdir -p "$work/src"
if [ "$(git -C "$src" rev-parse --show-toplevel 2>/dev/null)" = "$(cd "$src" && pwd -P)" ]; then
    git -C "$src" ls-files -z --cached --others --exclude-standard |
        tar -C "$src" --null --ignore-failed-read -T - -cf - 2>>"$log" |
        tar -C "$work/src" -xf -
else
    (cd "$src" && tar --exclude=./.git --exclude=./dist --exclude=./build -cf - .) |
        tar -C "$work/src" -xf -
fi
step "$py" -m pip wheel --quiet --no-deps -w "$out" "$work/src"

shopt -s nullglob
own=("$out"/krmfn-*.whl)
[ ${#own[@]} -eq 1 ] || die "expected one krmfn-*.whl in $out, found ${#own[@]}"

# The lock must satisfy the project's own requirements (the image installs the
# project with --no-deps): resolve it offline against dist/wheels/ only.
step "$py" -m pip install --quiet --dry-run --ignore-installed --no-index --find-links "$out" \
    "${target[@]}" --target "$work/dry" "${own[0]}"
