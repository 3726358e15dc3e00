#!/usr/bin/env bash
# Every wheel an install needs, so that the install itself needs no network.
# Usage: bash .ci/wheels.sh [image|here]
#
#   image (default)  dist/wheels/, for `docker build` on the HOST (make image runs this):
#                      *.whl   the runtime lock (requirements.lock, hash-checked) for CPython
#                              3.11 on this machine's architecture, and krmfn-*.whl
#                      pip/    pip itself (pinned, hash-checked): the builder stage runs it
#                              from its wheel, since python3-minimal has no pip
#   here             dist/wheelhouse/, for pip, pipx and `python -m build` on a machine with
#                    no network (make wheelhouse runs this): krmfn-*.whl, its dependencies
#                    for the Python that runs this script (KRMFN_PYTHON), the build tools
#                    (pyproject.toml's build-system requires, and `build` itself), and pip
#                    (pipx brings its shared pip up to date before it installs). Then:
#                      pip install --no-index --find-links dist/wheelhouse .
#
# Only the downloads need the network (PyPI, or the index pip is configured for). The output
# directory is rebuilt from scratch each run and git-ignores itself.
#
# Settings (environment):
#   KRMFN_SRC      project to build (default: this repository)
#   KRMFN_WHEELS   output directory (default: <repo>/dist/wheels, or <repo>/dist/wheelhouse)
#   KRMFN_PYTHON   Python whose pip runs, and, for `here`, that will install krmfn (default python3)
set -euo pipefail

target_name=${1:-image}
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
src=${KRMFN_SRC:-$repo}
py=${KRMFN_PYTHON:-python3}
lock=$repo/requirements.lock
PIP_PIN='pip==26.3 --hash=sha256:f3b60b20ffaadd4415ed7957212a38ac63fa4c5fa375bd0f4a797777940fad13'

die() { printf 'wheels: %s\n' "$*" >&2; exit 1; }

case $target_name in
    image) out=${KRMFN_WHEELS:-$repo/dist/wheels} ;;
    here) out=${KRMFN_WHEELS:-$repo/dist/wheelhouse} ;;
    *) die "unknown target '$target_name': use image (dist/wheels/, for docker build) or here (dist/wheelhouse/)" ;;
esac
[ -f "$src/pyproject.toml" ] || die "no pyproject.toml in $src: nothing to build"
"$py" -m pip --version >/dev/null 2>&1 || die "$py has no pip; use a Python with pip (a venv's, or apt install python3-pip)"

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
mkdir -p "$out"
printf '# made by .ci/wheels.sh\n*\n' >"$out/.gitignore"

# The project's wheel, built from a copy (tracked and untracked-but-not-ignored files), so
# that build/ and *.egg-info never land in the work tree.
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

if [ "$target_name" = image ]; then
    [ -f "$lock" ] || die "missing $lock"
    # The image's interpreter: CPython 3.11 on this machine's architecture.
    case $(uname -m) in
        x86_64 | amd64) arch=x86_64 ;;
        aarch64 | arm64) arch=aarch64 ;;
        *) die "no manylinux wheels pinned for $(uname -m)" ;;
    esac
    platform=(--only-binary=:all: --python-version 3.11 --implementation cp --abi cp311
              --platform "manylinux2014_$arch")
    mkdir -p "$out/pip"
    step "$py" -m pip download --quiet "${platform[@]}" --require-hashes -r "$lock" -d "$out"
    printf '%s\n' "$PIP_PIN" >"$work/pip.lock"
    step "$py" -m pip download --quiet --no-deps --require-hashes -r "$work/pip.lock" -d "$out/pip"
    # The lock must satisfy the project's own requirements (the image installs the project
    # with --no-deps): resolve it offline against dist/wheels/ only.
    step "$py" -m pip install --quiet --dry-run --ignore-installed --no-index --find-links "$out" \
        "${platform[@]}" --target "$work/dry" "${own[0]}"
else
    # The build tools as pyproject.toml names them: pip's isolated build of `.` installs
    # these from the wheelhouse; `build` is for `python -m build`; pipx upgrades its shared pip.
    "$py" -c 'import sys, tomllib; print("\n".join(tomllib.load(open(sys.argv[1], "rb"))["build-system"]["requires"]))' \
        "$src/pyproject.toml" >"$work/build.txt" || die "cannot read build-system requires from $src/pyproject.toml"
    printf '%s\n' build pip >>"$work/build.txt"
    step "$py" -m pip download --quiet --only-binary=:all: -d "$out" "${own[0]}" -r "$work/build.txt"
    # Everything resolves from the wheelhouse alone.
    step "$py" -m pip install --quiet --dry-run --ignore-installed --no-index --find-links "$out" \
        --target "$work/dry" "${own[0]}" -r "$work/build.txt"
fi
