"""Fixtures the integration tests share."""

from __future__ import annotations

from pathlib import Path

import pytest
from tooling import PLUGIN_PATH, env_with, run, write_krmfn


@pytest.fixture
def plugin_home(tmp_path: Path) -> Path:
    """A plugin home with krmfn's legacy exec plugin, installed by ``krmfn install-kustomize-plugin``
    (the work tree's krmfn in ``tmp_path/bin``), for ``kubectl kustomize --enable-alpha-plugins``."""
    bin_dir = tmp_path / "bin"
    write_krmfn(bin_dir)
    home = tmp_path / "plugins"
    done = run(["krmfn", "install-kustomize-plugin", str(home)], env=env_with(bin_dir))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(home / PLUGIN_PATH)
    return home
