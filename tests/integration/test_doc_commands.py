"""Every command block the README and docs/*.md mark ``<!-- run -->``, run as a reader would run it.

Each block runs with ``bash -euo pipefail`` from the top of a fresh copy of the repository
(tooling.fresh_copy, committed to a git repository of its own as a clone would be), with the work
tree's ``krmfn`` first on PATH and an empty home directory, must exit 0, and must leave the copy
as it found it: ``git status --porcelain`` prints nothing afterwards (a reader who runs a page's
commands in their clone, then another page's, must not find a file changed or a stray file made;
what .gitignore ignores, such as ``.venv/`` and ``dist/``, may be made). ``<!-- run: needs TOOL, ... -->`` says what else it needs: ``kpt`` and
``kubectl`` from PATH, ``helm3`` or ``helm4`` (as tooling.fetch_helm gets them, on PATH as
``helm``), ``docker`` (the image, built once by the session's ``make image``). A block whose tool
is missing skips, saying so; ``needs a cluster`` always skips, since no Kubernetes API server can
run here. The other markers, and what runs their blocks, are in docs/how-it-works.md;
tests/docs/test_pages.py fails on a shell block that has none.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from doc_pages import CLUSTER, Block, all_blocks
from tooling import GIT, fetch_helm, fresh_copy, git_snapshot, need, run, write_krmfn

RUN = [b for b in all_blocks() if b.marker == "run" or (b.marker or "").startswith("run: needs ")]


def test_there_are_commands_to_run() -> None:
    assert len([b for b in RUN if CLUSTER not in b.needs]) >= 10


@pytest.mark.parametrize("block", RUN, ids=lambda b: b.where)
def test_documented_command(block: Block, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    if CLUSTER in block.needs:
        pytest.skip(f"{block.where} needs a Kubernetes cluster, and none can run here")
    bin_dir = tmp_path / "bin"
    write_krmfn(bin_dir)
    for tool in block.needs:
        if tool in ("kpt", "kubectl"):
            (bin_dir / tool).symlink_to(need(tool))
        elif tool in ("helm3", "helm4"):
            helm, how = fetch_helm(int(tool[-1]))
            if helm is None:
                if os.environ.get("KRMFN_REQUIRE_HELM") == "1":
                    pytest.fail(f"{how} (KRMFN_REQUIRE_HELM=1)", pytrace=False)
                pytest.skip(how)
            (bin_dir / "helm").symlink_to(helm)
        elif tool == "docker":
            request.getfixturevalue("image")  # make image, once per session (or a skip saying why)
    home = tmp_path / "home"
    home.mkdir()
    clone = fresh_copy(tmp_path / "krmfn")
    git_snapshot(clone)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("HELM_", "KUSTOMIZE_", "XDG_", "KRMFN_")) and k not in ("KUBECONFIG", "PYTHONPATH")}
    env.update(HOME=str(home), PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    done = run(["bash", "-euo", "pipefail", "-c", block.body], cwd=clone, env=env, timeout=600)
    assert done.returncode == 0, f"{block.where}:\n{block.body}\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
    assert done.stdout or "> " in block.body, f"{block.where} printed nothing"
    status = run([*GIT, "status", "--porcelain", "--untracked-files=all"], cwd=clone)
    assert status.returncode == 0, status.stderr
    assert status.stdout == "", f"{block.where} leaves the clone changed (git status):\n{status.stdout}{block.body}"
