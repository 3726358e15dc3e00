"""``-i`` under SIGTERM, SIGINT and SIGHUP at every step of the write, and a second signal during
the rollback: every file as it was, no temp file left, and a message that says so (issue #35).

The write numbers its steps (a temp file written, a rename, a directory fsync'ed, a file written
in place, a file put back); the test hook delivers a signal at a chosen step, so each step is hit
in turn rather than by chance.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest
from test_cli import CONFIGMAP, DEPLOYMENT, cli
from test_in_place import snapshot, temps

pytestmark = pytest.mark.integration


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """Four files a run changes: two renamed over by temp files, one with a second hard link
    (written in place), and the link itself outside the walk."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "cm.yaml").write_text(CONFIGMAP)
    (tmp_path / "b" / "deploy.yaml").write_text(DEPLOYMENT)
    (tmp_path / "b" / "job.yaml").write_text(DEPLOYMENT.replace("kind: Deployment", "kind: StatefulSet"))
    os.link(tmp_path / "b" / "job.yaml", tmp_path / "job-link")
    return tmp_path


def run(tree: Path, at: str):  # noqa: ANN201
    return cli(["-i", str(tree / "a"), str(tree / "b")], env={"KRMFN_TEST_SIGNAL_AT": at})


def steps(tree: Path) -> int:
    """How many steps a write with no signal takes here: two temp files, two renames with their
    directory fsyncs, one file written in place (the hard-linked one)."""
    return 2 + 2 * 2 + 1


@pytest.mark.parametrize("name", ["TERM", "INT", "HUP"])
def test_a_signal_at_any_step_leaves_every_file_as_it_was(tree: Path, name: str) -> None:
    before = snapshot(tree)
    for step in range(1, steps(tree) + 1):
        done = run(tree, f"{name}:{step}")
        code = 128 + getattr(signal, f"SIG{name}")
        assert done.returncode == code, (step, done.stderr.decode())
        assert done.stderr.decode().strip().endswith("interrupted: no file was changed"), (step, done.stderr)
        assert snapshot(tree) == before and not temps(tree), step
        assert os.stat(tree / "job-link").st_ino == os.stat(tree / "b" / "job.yaml").st_ino  # links kept


def test_a_second_signal_during_the_rollback_is_held_until_it_is_done(tree: Path) -> None:
    """The renames run to their end with a signal held (steps 3 to 7), then each replaced file is
    put back, one step each: a second signal at any of those steps waits for the last of them."""
    before = snapshot(tree)
    for first in range(3, steps(tree) + 1):
        for rollback_step in (1, 2, 3):
            done = run(tree, f"TERM:{first},INT:{steps(tree) + rollback_step}")
            assert done.returncode == 128 + signal.SIGTERM, (first, rollback_step, done.stderr.decode())
            assert done.stderr.decode() == "krmfn: interrupted: no file was changed\n"
            assert snapshot(tree) == before and not temps(tree), (first, rollback_step)


def test_with_no_signal_the_steps_counted_are_the_steps_taken(tree: Path) -> None:
    """The hook's numbering is what the tests above rely on: a signal after the last step changes
    nothing, and every file is written."""
    done = run(tree, f"TERM:{steps(tree) + 5}")
    assert done.returncode == 0, done.stderr.decode()
    assert "app-config-" in (tree / "b" / "deploy.yaml").read_text()
    assert "app-config-" in (tree / "job-link").read_text() and not temps(tree)
