#!/usr/bin/env bash
# Make a Docker engine answer on /var/run/docker.sock, with only Debian packages.
#
# Idempotent: installs docker.io and debootstrap when missing, starts dockerd in
# the background when no daemon answers, and waits until `docker info` works.
# Quiet on success; on failure it says what broke and shows the daemon's log.
#
# The daemon listens on the default socket, so plain `docker`, `kpt fn --image`
# and kustomize `container:` functions all find it. It is started with no
# bridge network and without touching the host's iptables: every container
# here runs with `--network none` (kpt and kustomize do that themselves).
#
# Settings (environment):
#   KRMFN_DOCKER_DATA_ROOT  image store        (default /var/lib/docker; kept between runs)
#   KRMFN_DOCKER_EXEC_ROOT  runtime state      (default /var/run/docker)
#   KRMFN_DOCKER_LOG        daemon log         (default /var/log/krmfn-dockerd.log)
#   KRMFN_DOCKER_TIMEOUT    seconds to wait    (default 60)
#   KRMFN_DOCKERD_ARGS      extra dockerd arguments, word-split
set -euo pipefail

DATA_ROOT=${KRMFN_DOCKER_DATA_ROOT:-/var/lib/docker}
EXEC_ROOT=${KRMFN_DOCKER_EXEC_ROOT:-/var/run/docker}
LOG=${KRMFN_DOCKER_LOG:-/var/log/krmfn-dockerd.log}
TIMEOUT=${KRMFN_DOCKER_TIMEOUT:-60}
SOCK=/var/run/docker.sock

die() { printf 'docker-up: %s\n' "$*" >&2; exit 1; }

# Which client answers: the Docker 28 client in /usr/local/bin negotiates the API
# down to dockerd 20.10's 1.41 by itself (checked); Debian's /usr/bin/docker is
# 20.10 too. Both are tried, so a client that cannot talk to the daemon is told
# apart from a daemon that does not answer.
probe() { [ -x "$1" ] && DOCKER_HOST="unix://$SOCK" timeout 10 "$1" info >/dev/null 2>&1; }
answers() { probe "${path_cli:-/nonexistent}" || probe /usr/bin/docker; }

# 1. Packages.
missing=()
have() { command -v "$1" >/dev/null 2>&1 || [ -x "/usr/sbin/$1" ]; }
have dockerd || missing+=(docker.io)
have debootstrap || missing+=(debootstrap)
[ -r /usr/share/keyrings/debian-archive-keyring.gpg ] || missing+=(debian-archive-keyring)
if [ ${#missing[@]} -gt 0 ]; then
    [ "$(id -u)" = 0 ] || die "need root to install ${missing[*]}"
    aptlog=$(mktemp /tmp/krmfn-apt.XXXXXX)
    if ! { apt-get update -qq &&
           DEBIAN_FRONTEND=noninteractive NEEDRESTART_MODE=l \
           apt-get install -y -qq --no-install-recommends "${missing[@]}"; } >"$aptlog" 2>&1; then
        tail -n 30 "$aptlog" >&2
        die "apt-get install ${missing[*]} failed (log above, full log: $aptlog)"
    fi
    rm -f "$aptlog"
fi

# 2. Daemon.
path_cli=$(command -v docker 2>/dev/null || true)
check_client() {
    [ -n "$path_cli" ] || return 0    # only Debian's client: it answered
    probe "$path_cli" && return 0
    die "a daemon answers /usr/bin/docker on $SOCK but '$path_cli' does not: put /usr/bin first in PATH, or set DOCKER_API_VERSION=$(/usr/bin/docker version --format '{{.Server.APIVersion}}' 2>/dev/null || echo 1.41)"
}
if answers; then
    check_client
    exit 0
fi
[ "$(id -u)" = 0 ] || die "no Docker daemon answers on $SOCK, and starting one needs root"
DOCKERD=$(command -v dockerd 2>/dev/null || echo /usr/sbin/dockerd)
[ -x "$DOCKERD" ] || die "dockerd not found (is docker.io installed?)"

# A process that exists and is not a zombie (a killed daemon can linger as one).
running() { [ -n "$1" ] && [ -r "/proc/$1/stat" ] && [ "$(awk '{print $3}' "/proc/$1/stat")" != Z ]; }
pid=$(cat /var/run/docker.pid 2>/dev/null || true)
if running "$pid" && [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = dockerd ]; then
    : # a daemon is starting up (or hung): wait for it below rather than start a second one
else
    # Pid files of a daemon that was killed (still a zombie until init reaps it)
    # make dockerd refuse to start, or wait on a containerd that is gone.
    for f in /var/run/docker.pid:dockerd "$EXEC_ROOT/containerd/containerd.pid:containerd"; do
        p=$(cat "${f%:*}" 2>/dev/null || true)
        if [ -n "$p" ] && ! { running "$p" && [ "$(cat "/proc/$p/comm" 2>/dev/null)" = "${f##*:}" ]; }; then
            rm -f "${f%:*}"
        fi
    done
    mkdir -p "$DATA_ROOT" "$EXEC_ROOT" "$(dirname "$LOG")"
    printf '\n== docker-up: starting dockerd at %s\n' "$(date -u +%FT%TZ)" >>"$LOG"
    # shellcheck disable=SC2086  # KRMFN_DOCKERD_ARGS is meant to be word-split
    setsid "$DOCKERD" \
        --data-root "$DATA_ROOT" \
        --exec-root "$EXEC_ROOT" \
        --host "unix://$SOCK" \
        --pidfile /var/run/docker.pid \
        --bridge none --iptables=false --ip-forward=false --ip-masq=false \
        --log-level warn \
        ${KRMFN_DOCKERD_ARGS:-} \
        >>"$LOG" 2>&1 </dev/null &
    pid=$!
fi

# What this daemon wrote: the log since the last start marker.
show_log() { awk '/^== docker-up: starting dockerd/ { n = 0; delete l } { l[++n] = $0 } END { s = n > 30 ? n - 29 : 1; for (i = s; i <= n; i++) print l[i] }' "$LOG" >&2 || true; }

deadline=$((SECONDS + TIMEOUT))
until answers; do
    if ! running "$pid"; then
        show_log
        die "dockerd (pid $pid) exited before answering; log above, full log: $LOG"
    fi
    if [ "$SECONDS" -ge "$deadline" ]; then
        show_log
        die "dockerd (pid $pid) did not answer on $SOCK within ${TIMEOUT}s; log above, full log: $LOG"
    fi
    sleep 0.5
done
check_client
