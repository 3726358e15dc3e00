"""examples/ as a catalog: metadata.yaml's ``examples`` lists every example folder, and each has a
README (what it shows, the one command, from the repository's top) and one layout of expected
output. tests/integration/test_examples.py runs every command the list names.

Why: an example folder nobody lists is an example nobody runs, and an output file of a fifth
name is one the tests do not compare.
"""

from __future__ import annotations

import re

import pytest
from doc_pages import NEEDS, links
from tooling import EXAMPLES, EXPECTED_OUTPUT, KPT_EXPECTED, KPT_FILES, REPO, Example, catalog

EXAMPLES_LISTED = catalog()


def groups() -> list[str]:
    """Top-level folders that hold no example files of their own, only example folders (and a README)."""
    return sorted(p.name for p in EXAMPLES.iterdir()
                  if p.is_dir() and {f.name for f in p.iterdir() if f.is_file()} <= {"README.md"})


def on_disk() -> list[str]:
    found = []
    for top in sorted(p for p in EXAMPLES.iterdir() if p.is_dir()):
        if top.name in groups():
            found += [f"examples/{top.name}/{p.name}" for p in sorted(top.iterdir()) if p.is_dir()]
        else:
            found.append(f"examples/{top.name}")
    return found


def test_the_list_is_the_folders_on_disk() -> None:
    listed = [str(e.path.relative_to(REPO)) for e in EXAMPLES_LISTED]
    assert len(listed) == len(set(listed)), "an example listed twice"
    assert sorted(listed) == on_disk()
    assert groups() == ["custom-resources", "opt-in", "secret-controllers"]


@pytest.mark.parametrize("example", EXAMPLES_LISTED, ids=lambda e: e.name)
def test_each_example_has_a_readme_with_its_command_and_one_expected_output(example: Example) -> None:
    text = example.readme.read_text()
    assert text.startswith("# ") and text.split("\n")[1] == "", f"{example.readme}: a title, then a blank line"
    block = example.command()  # exactly one
    assert block.lang == "sh" and set(block.needs) <= NEEDS, block.where
    assert "examples/" in block.body, f"{block.where}: run from the repository's top, naming the example's files"
    kpt, output = example.path / KPT_EXPECTED, example.path / EXPECTED_OUTPUT
    assert kpt.is_dir() != output.exists(), f"{example.name}: {EXPECTED_OUTPUT} or {KPT_EXPECTED}/, one of them"
    if example.in_place:
        assert sorted(p.name for p in kpt.iterdir()) == sorted(KPT_FILES), example.name
        assert KPT_EXPECTED in (example.path / ".krmignore").read_text().split(), example.name
        assert "kpt" in block.needs and f"{KPT_EXPECTED}/" in text, example.name
    else:
        assert EXPECTED_OUTPUT in text, f"{example.readme} does not say where its expected output is"
    for target in links(example.readme):
        if not re.match(r"[a-z]+:", target):
            assert (example.path / target.partition("#")[0]).exists(), f"{example.readme}: {target}"
    for path in re.findall(r"`((?:tests|examples|krmfn|docs)/[\w./-]*)`", text):
        assert (REPO / path.rstrip("/")).exists(), f"{example.readme} names {path}, which does not exist"


@pytest.mark.parametrize("group", groups())
def test_each_group_has_a_readme_linking_each_of_its_examples(group: str) -> None:
    named = {target.rstrip("/") for target in links(EXAMPLES / group / "README.md")}
    assert named >= {p.name for p in (EXAMPLES / group).iterdir() if p.is_dir()}, group


def test_no_other_name_for_an_expected_output() -> None:
    """One layout: the names the issue found beside expected-output.yaml and .expected/ are gone."""
    stale = [str(p.relative_to(REPO)) for p in EXAMPLES.rglob("expected*") if p.name not in (EXPECTED_OUTPUT,)]
    assert stale == [], stale
