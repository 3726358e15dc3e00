"""Every install command the README and docs/install.md give, run as written, in a fresh copy of
the repository.

Both mark each install block ``<!-- install: online -->`` or ``<!-- install: offline -->``.
Each block runs with bash in its own fresh copy (tooling.fresh_copy) and an empty home
directory, with ``~/.local/bin`` first on PATH, as the README says. Then ``krmfn`` is called by
name and must transform the quick start's input as the checked-in output says; a block that
only builds a wheel must leave one, with the package metadata an index needs.

Online blocks use this machine's pip configuration (PyPI or its index). Offline blocks get the
``dist/wheelhouse/`` that ``make wheelhouse`` (run online, once) made, no pip configuration, and
no network at all: they run in a network namespace of their own (``unshare --net``), where no
index, proxy or registry can be reached.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest
from tooling import EXAMPLES, REPO, fresh_copy, run, tool

from krmfn import __version__

README = (REPO / "README.md").read_text()
INSTALL = (REPO / "docs" / "install.md").read_text()  # every other way to install
BLOCK = re.compile(r"<!-- install: (online|offline) -->\n```sh\n(.*?)```", re.S)
BLOCKS = [(m.group(1), m.group(2)) for text in (README, INSTALL) for m in BLOCK.finditer(text)]
QUICKSTART = EXAMPLES / "quickstart"
WHEEL = f"krmfn-{__version__}-py3-none-any.whl"


@pytest.fixture(scope="module")
def unshare() -> list[str]:
    """The prefix that runs a command with no network, or a skip saying why there is none."""
    prefix = ["unshare", "--net", "--map-root-user"]
    if shutil.which("unshare") is None:
        pytest.skip("unshare (util-linux) is not installed: the offline installs need a network namespace")
    probe = run([*prefix, "true"])
    if probe.returncode != 0:
        pytest.skip(f"cannot make a network namespace here ({probe.stderr.strip()}): the offline installs need one")
    return prefix


@pytest.fixture(scope="module")
def shims(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A bin directory with pipx (from PATH, or this test environment's), and nothing else."""
    pipx = tool("pipx")
    if pipx is None:
        pytest.skip("pipx is not installed (pip install pipx; the test extras have it)")
    bin_dir = tmp_path_factory.mktemp("shims")
    (bin_dir / "pipx").symlink_to(pipx)
    return bin_dir


@pytest.fixture(scope="module")
def wheelhouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``make wheelhouse``, online, in a fresh copy: what the offline blocks get copied with the clone."""
    clone = fresh_copy(tmp_path_factory.mktemp("wheelhouse") / "krmfn")
    done = run(["make", "-s", "wheelhouse"], cwd=clone, timeout=900)
    assert done.returncode == 0, done.stdout + done.stderr
    house = clone / "dist" / "wheelhouse"
    names = {p.name.split("-")[0] for p in house.glob("*.whl")}
    assert {"krmfn", "pyyaml", "setuptools", "build", "pip"} <= {n.lower() for n in names}, names
    return house


def environment(home: Path, shims: Path, online: bool) -> dict[str, str]:
    """An empty home, ``~/.local/bin`` first on PATH; pip's configuration only when online."""
    env = {"HOME": str(home), "LANG": "C.UTF-8", "PATH": os.pathsep.join(
        [str(home / ".local" / "bin"), str(shims), "/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin",
         "/sbin", "/bin"])}
    if online:
        env.update({k: v for k, v in os.environ.items() if k.startswith("PIP_") or k.endswith("_proxy")})
    else:
        env["PIP_CONFIG_FILE"] = os.devnull  # no pip.conf: no index, no find-links but the wheelhouse
    return env


def test_every_install_block_is_marked() -> None:
    """A command added to the README's Install section or to docs/install.md without a marker would
    run in no test (the container image's block has its own marker and test: test_container.py)."""
    section = README[README.index("\n## Install\n"):]
    section = section[:section.index("\n## ", 1)]
    page = INSTALL.replace("<!-- image -->\n```sh", "")
    assert section.count("```sh") == len(BLOCK.findall(section)) >= 1
    assert page.count("```sh") == len(BLOCK.findall(page))
    assert len(BLOCK.findall(section)) + len(BLOCK.findall(page)) >= 6
    assert [w for w, _ in BLOCKS].count("offline") >= 3


@pytest.mark.parametrize("where,commands", BLOCKS, ids=[f"{where}-{i}" for i, (where, _) in enumerate(BLOCKS)])
def test_readme_install_block(where: str, commands: str, tmp_path: Path, shims: Path,
                              request: pytest.FixtureRequest) -> None:
    online = where == "online"
    clone = fresh_copy(tmp_path / "krmfn")
    home = tmp_path / "home"
    home.mkdir()
    prefix: list[str] = []
    if not online:
        prefix = request.getfixturevalue("unshare")
        shutil.copytree(request.getfixturevalue("wheelhouse"), clone / "dist" / "wheelhouse")
    env = environment(home, shims, online)
    done = run([*prefix, "bash", "-euo", "pipefail", "-c", commands], cwd=clone, env=env, timeout=900)
    assert done.returncode == 0, f"{commands}\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
    expected = (QUICKSTART / "expected-output.yaml").read_text()
    if "< examples/quickstart/input.yaml" in commands:  # the quick start prints the output itself
        assert done.stdout == expected
        return
    if "build --wheel" in commands and "pipx install" not in commands:  # a wheel, not installed
        wheel = clone / "dist" / WHEEL
        assert wheel.is_file(), sorted(p.name for p in (clone / "dist").iterdir())
        metadata = zipfile.ZipFile(wheel).read(f"krmfn-{__version__}.dist-info/METADATA").decode()
        for field in (f"Version: {__version__}", "License-Expression: Apache-2.0", "License-File: LICENSE",
                      "Requires-Dist: PyYAML>=6.0.1", "Classifier: Programming Language :: Python :: 3.11"):
            assert field in metadata.splitlines(), field
        return
    # krmfn by name, from ~/.local/bin, as kpt, kustomize and Helm will call it.
    version = subprocess.run(["krmfn", "--version"], env=env, capture_output=True, text=True, timeout=60)
    assert version.stdout == f"krmfn {__version__}\n", version.stderr
    assert Path(shutil.which("krmfn", path=env["PATH"]) or "").parent == home / ".local" / "bin"
    ran = subprocess.run(["krmfn"], stdin=(QUICKSTART / "input.yaml").open("rb"), env=env, capture_output=True,
                         text=True, timeout=60)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout == expected
