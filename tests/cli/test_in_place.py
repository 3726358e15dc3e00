"""``-i`` is all or nothing: checked before the first write, undone on failure or signal,
through symlinks, keeping hard links, mode and owner, never over a read-only or changed file."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from test_cli import CONFIGMAP, DEPLOYMENT, cli, one_sentence
from tooling import REPO

from krmfn.cli.writeback import TEMP_NAME, write_back
from krmfn.results import ConfigError


@pytest.fixture
def two(tmp_path: Path) -> Path:
    """a/ holds the ConfigMap, b/ a Deployment naming it: one run renames in both."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "cm.yaml").write_text(CONFIGMAP)
    (tmp_path / "b" / "deploy.yaml").write_text(DEPLOYMENT)
    return tmp_path


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def temps(root: Path) -> list[Path]:
    return [p for p in root.rglob("*") if TEMP_NAME.match(p.name)]


def test_read_only_file_is_refused_before_any_write(two: Path) -> None:
    (two / "b" / "deploy.yaml").chmod(0o444)
    before = snapshot(two)
    err = one_sentence(cli(["-i", str(two / "a"), str(two / "b")]))
    assert str(two / "b" / "deploy.yaml") in err and "read-only" in err
    assert ".tmp" not in err and ".krmfn" not in err
    assert snapshot(two) == before and not temps(two)


def test_signal_between_two_renames_puts_everything_back(two: Path) -> None:
    before = snapshot(two)
    for sig, code in (("TERM", 143), ("INT", 130)):
        done = cli(["-i", str(two / "a"), str(two / "b")], env={"KRMFN_TEST_SIGNAL_AFTER_RENAME": sig})
        assert done.returncode == code, done.stderr.decode()
        assert snapshot(two) == before and not temps(two)


def test_a_killed_runs_temp_files_are_found_and_removed(two: Path) -> None:
    done = cli(["-i", str(two / "a"), str(two / "b")], env={"KRMFN_TEST_SIGNAL_AFTER_RENAME": "KILL"})
    assert done.returncode == -9
    left = temps(two)
    assert len(left) == 1  # the second file's temp copy, never renamed
    again = cli(["-i", str(two / "a"), str(two / "b")])
    assert again.returncode == 0, again.stderr.decode()
    assert str(left[0]) in again.stderr.decode()
    assert not temps(two)
    assert "app-config-" in (two / "b" / "deploy.yaml").read_text()


def test_a_file_changed_since_it_was_read_is_not_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "cm.yaml"
    path.write_text("edited\n")
    with pytest.raises(ConfigError, match=f"{path} changed while krmfn ran"):
        write_back([(str(path), b"original\n", b"new\n")])
    assert path.read_text() == "edited\n"


def test_symlinks_are_written_through_and_stay_links(tmp_path: Path) -> None:
    (tmp_path / "base").mkdir()
    (tmp_path / "overlay").mkdir()
    (tmp_path / "base" / "cm.yaml").write_text(CONFIGMAP)
    (tmp_path / "overlay" / "cm.yaml").symlink_to("../base/cm.yaml")
    (tmp_path / "overlay" / "deploy.yaml").write_text(DEPLOYMENT)
    assert cli(["-i", str(tmp_path / "overlay")]).returncode == 0
    assert (tmp_path / "overlay" / "cm.yaml").is_symlink()
    assert "app-config-" in (tmp_path / "base" / "cm.yaml").read_text()


def test_hard_links_mode_and_owner_are_kept(two: Path) -> None:
    deploy = two / "b" / "deploy.yaml"
    os.link(deploy, two / "deploy-link.yaml")
    cm = two / "a" / "cm.yaml"
    cm.chmod(0o640)
    if os.geteuid() == 0:
        os.chown(cm, 1234, 4321)
    ino = deploy.stat().st_ino
    assert cli(["-i", str(two / "a"), str(two / "b")]).returncode == 0
    assert deploy.stat().st_ino == ino and deploy.stat().st_nlink == 2
    assert (two / "deploy-link.yaml").read_text() == deploy.read_text() != DEPLOYMENT
    assert cm.stat().st_mode & 0o7777 == 0o640 and cm.read_text() != CONFIGMAP
    if os.geteuid() == 0:
        assert (cm.stat().st_uid, cm.stat().st_gid) == (1234, 4321)


@pytest.mark.integration
@pytest.mark.skipif(shutil.which("strace") is None, reason="needs strace")
def test_a_failed_second_rename_puts_the_first_file_back(two: Path) -> None:
    """strace makes the second rename(2) fail with EIO: the first file, already replaced, is restored."""
    before = snapshot(two)
    krmfn = [sys.executable, "-m", "krmfn", "-i", str(two / "a"), str(two / "b")]
    done = subprocess.run(["strace", "-f", "-qq", "-o", os.devnull, "-e", "trace=rename",
                           "-e", "inject=rename:error=EIO:when=2", *krmfn],
                          capture_output=True, env={**os.environ, "PYTHONPATH": str(REPO)}, timeout=120, check=False)
    err = one_sentence(done)
    assert str(two / "b" / "deploy.yaml") in err and "Input/output error" in err and ".tmp" not in err
    assert snapshot(two) == before and not temps(two)


def test_one_file_under_two_names_is_read_once_and_written_once(two: Path) -> None:
    """A hard link, a symlink and a path given twice reach one file: one object, one write, the
    links kept (issue #35 point 2)."""
    deploy = two / "b" / "deploy.yaml"
    os.link(deploy, two / "b" / "deploy-link.yml")
    os.symlink("deploy.yaml", two / "b" / "deploy-symlink.yaml")
    printed = cli([str(two / "a"), str(two / "b"), str(deploy)])
    assert printed.returncode == 0, printed.stderr.decode()
    assert printed.stdout.decode().count("kind: Deployment") == 1
    done = cli(["-i", str(two / "a"), str(two / "b"), str(deploy)])
    assert done.returncode == 0, done.stderr.decode()
    assert "app-config-" in deploy.read_text()
    assert os.stat(deploy).st_ino == os.stat(two / "b" / "deploy-link.yml").st_ino
    assert (two / "b" / "deploy-symlink.yaml").is_symlink() and not temps(two)


def test_a_dangling_link_a_walk_finds_is_passed_over_and_named_under_v(two: Path) -> None:
    os.symlink("gone.yaml", two / "b" / "dangling.yaml")
    done = cli(["-v", str(two / "a"), str(two / "b")])
    assert done.returncode == 0, done.stderr.decode()
    assert f"skipped {two / 'b' / 'dangling.yaml'}: not a regular file" in done.stderr.decode()
    quiet = cli([str(two / "a"), str(two / "b")])
    assert quiet.returncode == 0 and b"dangling" not in quiet.stderr
    named = cli([str(two / "b" / "dangling.yaml")])  # named on the command line: an error, in one line
    assert named.returncode == 2 and b"dangling.yaml" in named.stderr
