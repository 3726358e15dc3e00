"""Bugs that came from two copies of one thing drifting apart, each fixed by keeping one copy."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from conftest import exit_code, resource_list, run

POD_WITH_KEY_ALIAS = """
- apiVersion: v1
  kind: Pod
  metadata:
    name: p
  spec:
    &k containers:
    - name: app
      image: app
      envFrom:
      - configMapRef:
          name: app-config
    initContainers: *k
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: app-config
    annotations:
      krmfn.dev/content-hash: "true"
  data:
    a: b
"""


def test_an_alias_of_a_keys_anchor_is_read_as_that_key():
    """The alias limit and Doc.resolve indexed anchors differently: *k of ``&k containers`` was
    an internal error. One anchor index now serves both, and the alias means the key's text."""
    out = run(resource_list(POD_WITH_KEY_ALIAS))
    assert exit_code(out) == 0, [str(r) for r in out.results]
    assert "name: app-config-" in out.text and "internal error" not in out.text


def test_gc_says_one_line_for_a_live_state_file_that_does_not_parse(tmp_path: Path):
    """gc never entered the stderr guard, so a C parser's own messages reached the user."""
    bad = tmp_path / "live.yaml"
    bad.write_text("kind: List\nitems: [\n")
    done = subprocess.run([sys.executable, "-m", "krmfn", "gc", "-f", str(bad)], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("krmfn: "), done.stderr


def test_field_specs_file_with_a_misspelt_key_is_refused_like_the_function_config_field(tmp_path: Path):
    specs = tmp_path / "specs.yaml"
    specs.write_text("- kind: Rollout\n  pth: spec/x\n")
    done = subprocess.run([sys.executable, "-m", "krmfn", "--stream", "--field-specs", str(specs)],
                          input="apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n", capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 2 and "unknown key 'pth'" in done.stderr, done.stderr
