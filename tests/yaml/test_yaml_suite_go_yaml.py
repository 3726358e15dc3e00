"""The YAML test suite's valid cases that krmfn refuses, against go-yaml: which of them does
go-yaml (kustomize's kyaml, through ``kubectl kustomize``) read?

Why: krmfn reads with libyaml, of which go-yaml is a port; the two have drifted. A case go-yaml
reads and krmfn refuses is a manifest kustomize renders and krmfn would not. Each such case is
listed in docs/limits.md with what it is: no map (so no Kubernetes object), a map or list used as
a key (which JSON, and so the API server, cannot hold), or a text libyaml itself refuses or
reads against the spec. The list must match what this probe measures.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from ruamel.yaml import YAML
from test_yaml_suite import DOC, cases, read_case  # noqa: F401  (cases: the fixture)
from yaml_suite import Case

pytestmark = [pytest.mark.integration,
              pytest.mark.skipif(shutil.which("kubectl") is None, reason="kubectl (go-yaml, as kustomize) is not on PATH")]

GO_SECTION = re.compile(r"<!-- go-yaml-reads:start -->\n(.*?)<!-- go-yaml-reads:end -->", re.DOTALL)
# kustomize's message when a text did not parse (kyaml, go-yaml v3); any other failure came after reading.
_PARSE_ERROR = re.compile(r"yaml: |MalformedYAML|did not find|could not find|not allowed|found character|"
                          r"invalid leading UTF-8|control characters|found unexpected")


def go_yaml_reads(case: Case, tmp: Path) -> bool:
    """Whether ``kubectl kustomize`` gets past reading the case as a resource file."""
    (tmp / "r.yaml").write_text(case.yaml, encoding="utf-8")
    (tmp / "kustomization.yaml").write_text("resources: [r.yaml]\n")
    done = subprocess.run(["kubectl", "kustomize", str(tmp)], capture_output=True, text=True, timeout=60)
    return done.returncode == 0 or not _PARSE_ERROR.search(done.stderr)


KEY = "a map or list used as a key, which JSON (and so the API server) cannot hold"


def what_it_is(case: Case, reason: str) -> str:
    """Why no manifest is lost by the refusal, as a YAML 1.2 reader (ruamel) sees the case."""
    if "used as a key" in reason:
        return KEY
    try:
        docs = list(YAML(typ="safe", pure=True).load_all(case.yaml))
    except Exception:  # ruamel cannot hold it either: krmfn's reason says what it is
        docs = None
    if docs is not None and not any(isinstance(d, dict) for d in docs):
        return "no document is a map, so none is a Kubernetes object"
    if docs is not None and any(_complex_key(d) for d in docs):
        return KEY
    if reason.startswith("not valid YAML: "):
        return "libyaml refuses it: " + reason.removeprefix("not valid YAML: ")
    return reason.replace("krmfn cannot read it: ", "libyaml reads it against the spec, so krmfn refuses it: ")


def _complex_key(v: object) -> bool:
    if isinstance(v, dict):
        return any(isinstance(k, tuple | frozenset) or _complex_key(x) for k, x in v.items())
    return isinstance(v, list) and any(_complex_key(x) for x in v)


def go_section(rows: list[tuple[str, str, str]]) -> str:
    bar = "\\|"
    body = "".join(f"| {cid} | {name} | {what.replace('|', bar)} |\n" for cid, name, what in rows)
    return "| case | name | what it is |\n|---|---|---|\n" + body


def test_every_valid_case_go_yaml_reads_and_krmfn_refuses_is_listed(cases: list[Case], tmp_path: Path) -> None:  # noqa: F811
    rows = []
    for case in cases:
        reading = read_case(case)
        if reading.outcome == "refused" and go_yaml_reads(case, tmp_path):
            rows.append((case.id, case.name, what_it_is(case, reading.detail)))
    print(f"\n{len(rows)} valid cases go-yaml reads and krmfn refuses:\n" + go_section(rows))
    documented = GO_SECTION.search(DOC.read_text(encoding="utf-8"))
    assert documented is not None, f"{DOC} has no go-yaml-reads section"
    assert documented.group(1) == go_section(rows), f"{DOC}'s go-yaml-reads list is out of date:\n{go_section(rows)}"
