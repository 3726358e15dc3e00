#!/usr/bin/env bash
# Build the local base image krmfn-base:bookworm from Debian packages alone
# (no container registry is reachable here): debootstrap a minimal bookworm
# root with Python 3.11, prune it, and `docker import` it.
#
# Skips when the image exists. The pruned root is cached as a tarball under
# $KRMFN_CACHE (default /var/cache/krmfn), keyed by suite, packages, arch and
# this script's text, so a later run on the same machine only re-imports it.
# Needs root, debootstrap and a Docker daemon: run .ci/docker-up.sh first.
#
# Packages: minbase already holds libstdc++6 and libgcc-s1 (apt needs them),
# which compiled wheels may link against. python3-minimal is
# the interpreter plus a core stdlib; libpython3.11-stdlib adds the rest of the
# stdlib (json, dataclasses, shutil, ...), which the package and pip need.
#
# Settings (environment):
#   KRMFN_BASE_IMAGE      image name            (default krmfn-base:bookworm)
#   KRMFN_CACHE           cache directory       (default /var/cache/krmfn)
#   KRMFN_DEBIAN_MIRROR   Debian mirror URL     (default: the host's apt source for the suite)
#   KRMFN_REBUILD=1       ignore the image and the cache, build again
set -euo pipefail

IMAGE=${KRMFN_BASE_IMAGE:-krmfn-base:bookworm}
CACHE=${KRMFN_CACHE:-/var/cache/krmfn}
SUITE=bookworm
PACKAGES=python3-minimal,libpython3.11-stdlib

die() { printf 'base-image: %s\n' "$*" >&2; exit 1; }

command -v docker >/dev/null 2>&1 || die "no docker client; run .ci/docker-up.sh first"
docker info >/dev/null 2>&1 || die "no Docker daemon answers; run .ci/docker-up.sh first"

if [ -z "${KRMFN_REBUILD:-}" ] && docker image inspect "$IMAGE" >/dev/null 2>&1; then
    exit 0
fi

arch=$(dpkg --print-architecture)
key=$({ printf '%s\n' "$SUITE" "$PACKAGES" "$arch"; cat "$0"; } | sha256sum | cut -c1-16)
tarball=$CACHE/rootfs-$SUITE-$arch-$key.tar

# The host's own Debian mirror for $SUITE, read from its apt sources
# (deb822 *.sources first, then one-line sources.list); empty = debootstrap's default.
host_mirror() {
    local f uri
    for f in /etc/apt/sources.list.d/*.sources; do
        [ -r "$f" ] || continue
        uri=$(awk -v suite="$SUITE" '
            function flush() { if (deb && uris != "" && (" " suites " ") ~ (" " suite " ")) { split(uris, u, " "); print u[1]; found = 1; exit } }
            /^[ \t]*$/ { flush(); deb = 0; uris = ""; suites = ""; next }
            tolower($1) == "types:"  { deb = ($0 ~ /[ \t]deb([ \t]|$)/) }
            tolower($1) == "uris:"   { $1 = ""; uris = $0 }
            tolower($1) == "suites:" { $1 = ""; suites = $0 }
            END { if (!found) flush() }' "$f")
        [ -z "$uri" ] || { echo "$uri"; return; }
    done
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
        [ -r "$f" ] || continue
        uri=$(awk -v suite="$SUITE" '
            $1 == "deb" { i = 2; if ($2 ~ /^\[/) { while (i <= NF && $i !~ /\]$/) i++; i++ }
                          if ($(i + 1) == suite) { print $i; exit } }' "$f")
        [ -z "$uri" ] || { echo "$uri"; return; }
    done
}

if [ -n "${KRMFN_REBUILD:-}" ] || [ ! -s "$tarball" ]; then
    [ "$(id -u)" = 0 ] || die "debootstrap needs root"
    command -v debootstrap >/dev/null 2>&1 || [ -x /usr/sbin/debootstrap ] ||
        die "debootstrap not found; run .ci/docker-up.sh first (it installs it)"
    mirror=${KRMFN_DEBIAN_MIRROR:-$(host_mirror)}
    mkdir -p "$CACHE"
    work=$(mktemp -d /var/tmp/krmfn-rootfs.XXXXXX)
    cleanup() {
        # A failed debootstrap can leave proc/sys mounted inside the root.
        findmnt -rn -o TARGET | grep -F "$work/" | sort -r | xargs -r umount -l 2>/dev/null || true
        rm -rf --one-file-system "$work"
    }
    trap cleanup EXIT
    log=$CACHE/debootstrap.log
    start=$SECONDS
    # shellcheck disable=SC2086  # $mirror is empty or one URL
    if ! PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH debootstrap --variant=minbase --include="$PACKAGES" \
            "$SUITE" "$work/root" $mirror >"$log" 2>&1; then
        tail -n 30 "$log" >&2
        die "debootstrap failed (log above, full log: $log)"
    fi
    r=$work/root
    # Smoke test in the root itself, before anything is cached.
    chroot "$r" /usr/bin/python3 -c 'import json, hashlib, zipfile, shutil, email.parser, ssl' ||
        die "python3 in the debootstrap root lacks stdlib modules"
    [ -e "$r/usr/lib/$(chroot "$r" /usr/bin/python3 -c 'import sysconfig; print(sysconfig.get_config_var("MULTIARCH"))')/libstdc++.so.6" ] ||
        die "libstdc++.so.6 is missing from the root"
    # Prune what a function image never needs: package lists and caches, docs,
    # man pages, translations, logs. dpkg's own database stays.
    rm -rf "$r"/var/lib/apt/lists/* "$r"/var/cache/apt/* "$r"/var/cache/debconf/*-old \
           "$r"/usr/share/doc/* "$r"/usr/share/man/* "$r"/usr/share/info/* \
           "$r"/usr/share/locale/* "$r"/usr/share/lintian "$r"/var/log/* "$r"/tmp/* \
           "$r"/root/.cache "$r"/debootstrap
    tar --numeric-owner --one-file-system -C "$r" \
        --exclude='./dev/*' --exclude='./proc/*' --exclude='./sys/*' \
        -cf "$tarball.tmp" . || die "tar of the root failed"
    mv "$tarball.tmp" "$tarball"
    # Older tarballs of other keys are stale.
    find "$CACHE" -maxdepth 1 -name "rootfs-$SUITE-$arch-*.tar" ! -name "$(basename "$tarball")" -delete
    printf 'base-image: debootstrap + prune took %ss\n' "$((SECONDS - start))" >>"$CACHE/timings.log"
fi

docker import \
    --change 'ENV LANG=C.UTF-8' \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'CMD ["python3"]' \
    --message "debootstrap --variant=minbase --include=$PACKAGES $SUITE (pruned)" \
    "$tarball" "$IMAGE" >/dev/null || die "docker import of $tarball failed"
