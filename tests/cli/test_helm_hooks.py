"""The Helm route warns about each Helm hook it changed: Helm 3 never passes hooks to a
post-renderer, Helm 4 does (docs/helm.md#helm-hooks, which names Helm's source)."""

from __future__ import annotations

import os
import subprocess
import sys

from tooling import REPO

RENDERED = (REPO / "tests" / "fixtures" / "helm-hooks" / "rendered.yaml").read_text()


def krmfn(args: list[str], stdin: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    return subprocess.run([sys.executable, "-m", "krmfn", *args], input=stdin, capture_output=True, text=True,
                          env=env, timeout=120, check=False)


def hook_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if "metadata.annotations[helm.sh/hook]" in line]


def test_each_hook_krmfn_changed_gets_one_warning_line():
    done = krmfn(["helm"], RENDERED)
    assert done.returncode == 0, done.stderr
    lines = hook_lines(done.stderr)
    assert [line.split(" ")[2] for line in lines] == ["Job/api-migrate", "Pod/api-test"]  # not the untouched SA
    job, pod = lines
    assert "only Helm 4 passes hooks to a post-renderer: under Helm 3 this hook keeps the old names" in job
    assert "pre-install or pre-upgrade hook before it creates the release's objects" in job
    assert "pre-install" not in pod and "(helm.sh/hook: test)" in pod
    assert "docs/helm.md#helm-hooks" in pod


def test_only_the_helm_route_says_so():
    done = krmfn(["--stream"], RENDERED)
    assert done.returncode == 0 and not hook_lines(done.stderr)


def test_a_render_without_hooks_is_not_parsed_twice_and_says_nothing():
    plain = RENDERED.split("---\n# Source: api/templates/migrate.yaml")[0]
    done = krmfn(["helm"], plain)
    assert done.returncode == 0 and not hook_lines(done.stderr)
