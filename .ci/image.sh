#!/usr/bin/env bash
# Build the krmfn container image from this clone, in one step (`make image`):
#   1. the wheels, on the host (.ci/wheels.sh image: needs PyPI or your pip index);
#   2. a base image, the first of: $KRMFN_BASE; krmfn-base:bookworm if it exists;
#      python:3.11-slim if it exists or can be pulled; else krmfn-base:bookworm built now
#      from Debian packages (.ci/base-image.sh: root, debootstrap, a Debian mirror), for a
#      machine that reaches no container registry;
#   3. `docker build --network none`, tagged TAG (default localhost/krmfn:<version>, the
#      version from krmfn/__init__.py): the name the kpt and kustomize examples use.
# Then it removes what the build left behind: the builder stage's image, and the image TAG
# named before, when nothing else names it. Prints the tag on stdout.
#
# Usage: bash .ci/image.sh [TAG]
# Settings (environment):
#   KRMFN_BASE     base image to build on (skips the search above)
#   KRMFN_PYTHON   host Python for .ci/wheels.sh (default python3)
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
LOCAL_BASE=krmfn-base:bookworm
PUBLIC_BASE=python:3.11-slim

die() { printf 'image: %s\n' "$*" >&2; exit 1; }

version=$(sed -n 's/^__version__ = "\(.*\)"$/\1/p' "$repo/krmfn/__init__.py")
[ -n "$version" ] || die "no __version__ in krmfn/__init__.py"
tag=${1:-localhost/krmfn:$version}

command -v docker >/dev/null 2>&1 || die "no docker client; install Docker (or run .ci/docker-up.sh as root)"
docker info >/dev/null 2>&1 || die "no Docker daemon answers; start one (or run .ci/docker-up.sh as root)"
exists() { docker image inspect "$1" >/dev/null 2>&1; }

bash "$repo/.ci/wheels.sh" image

if [ -n "${KRMFN_BASE:-}" ]; then
    base=$KRMFN_BASE
elif exists "$LOCAL_BASE"; then
    base=$LOCAL_BASE
elif exists "$PUBLIC_BASE" || timeout 120 docker pull --quiet "$PUBLIC_BASE" >/dev/null 2>&1; then
    base=$PUBLIC_BASE
else
    printf 'image: %s cannot be pulled; building the local base %s from Debian packages\n' \
        "$PUBLIC_BASE" "$LOCAL_BASE" >&2
    [ "$(id -u)" = 0 ] || die "building $LOCAL_BASE needs root (debootstrap): run 'sudo bash .ci/base-image.sh', then make image again"
    bash "$repo/.ci/base-image.sh"
    base=$LOCAL_BASE
fi

# Every image this build makes carries this id: the builder stage's, left dangling by the
# classic builder, is found by it and removed.
build_id=$(date +%s)-$$
before=$(docker image inspect --format '{{.Id}}' "$tag" 2>/dev/null || true)
log=$(mktemp /tmp/krmfn-image.XXXXXX)
trap 'rm -f "$log"' EXIT
if ! docker build --network none --build-arg "BASE=$base" --build-arg "KRMFN_BUILD=$build_id" \
        --tag "$tag" "$repo" >"$log" 2>&1; then
    tail -n 30 "$log" >&2
    docker image prune --force --filter "label=dev.krmfn.build=$build_id" >/dev/null 2>&1 || true
    die "docker build of $tag on $base failed (log above)"
fi
docker image prune --force --filter "label=dev.krmfn.build=$build_id" >/dev/null
after=$(docker image inspect --format '{{.Id}}' "$tag")
if [ -n "$before" ] && [ "$before" != "$after" ] &&
        [ "$(docker image inspect --format '{{len .RepoTags}}' "$before" 2>/dev/null)" = 0 ]; then
    docker image rm "$before" >/dev/null 2>&1 || true    # still used by a container: leave it
fi
printf '%s\n' "$tag"
