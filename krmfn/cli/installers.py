"""Installing krmfn where kustomize and Helm look for plugins.

Why: ``kubectl kustomize`` skips ``exec:`` KRM functions silently but runs legacy exec plugins,
found at ``$KUSTOMIZE_PLUGIN_HOME/<group>/<version>/<lowercase kind>/<Kind>``; Helm 4 runs
post-renderers only as plugins. Both are small scripts that exec this very krmfn, written here
as text (the shell writes the files).
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from krmfn import __version__
from krmfn.core.config import API_VERSION, KIND

GROUP, VERSION = API_VERSION.split("/")
HELM_PLUGIN_NAME = "krmfn"
HELM_SCRIPT = "krmfn-post-renderer"


@dataclass(frozen=True)
class File:
    """A file to write: path relative to the target directory, text, and whether it is executable."""

    path: str
    text: str
    executable: bool = False


def kustomize_plugin_home(env: Mapping[str, str]) -> Path:
    """Where kustomize looks for plugins: $KUSTOMIZE_PLUGIN_HOME, else $XDG_CONFIG_HOME/kustomize/plugin,
    else ~/.config/kustomize/plugin."""
    if env.get("KUSTOMIZE_PLUGIN_HOME"):
        return Path(env["KUSTOMIZE_PLUGIN_HOME"])
    if env.get("XDG_CONFIG_HOME"):
        return Path(env["XDG_CONFIG_HOME"]) / "kustomize" / "plugin"
    return Path(env.get("HOME", "~")).expanduser() / ".config" / "kustomize" / "plugin"


def _script(command: list[str], mode: str, why: str) -> str:
    run = " ".join(shlex.quote(c) for c in command)
    return (f"#!/bin/sh\n# {why}\n# Written by krmfn {__version__}; runs: {run} {mode}\n"
            f'exec {run} {mode} "$@"\n')


def kustomize_plugin(command: list[str]) -> list[File]:
    """The legacy exec plugin for kind ContentHash: kustomize passes the config file path first."""
    path = f"{GROUP}/{VERSION}/{KIND.lower()}/{KIND}"
    why = "kustomize exec plugin for kind ContentHash: config file path first, a YAML stream on stdin"
    return [File(path, _script(command, "plugin", why), executable=True)]


def helm_plugin(command: list[str]) -> list[File]:
    """A Helm 4 post-renderer plugin (``plugin.yaml``), whose script Helm 3 can also run directly."""
    manifest = (
        "# Helm 4 post-renderer plugin: helm plugin install DIR, then --post-renderer krmfn.\n"
        "# Helm 3: --post-renderer DIR/krmfn-post-renderer (the same script).\n"
        "apiVersion: v1\n"
        "type: postrenderer/v1\n"
        f"name: {HELM_PLUGIN_NAME}\n"
        f"version: {__version__}\n"
        "runtime: subprocess\n"
        "runtimeConfig:\n"
        "  platformCommand:\n"
        f"    - command: ${{HELM_PLUGIN_DIR}}/{HELM_SCRIPT}\n"
    )
    why = "Helm post-renderer: a YAML stream on stdin and stdout; options from KRMFN_* variables or arguments"
    return [File("plugin.yaml", manifest), File(HELM_SCRIPT, _script(command, "helm", why), executable=True)]
