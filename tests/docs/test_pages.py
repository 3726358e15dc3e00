"""The README and docs/*.md as a whole: every command marked, every link alive, one place per fact.

- Every shell block carries a marker saying what runs it (docs/how-it-works.md lists them): a
  command shown and never run goes stale without a word.
- Every relative link points at a file in the repository, and every `#anchor` at a heading.
- Every page of docs/ can be reached from the README, and opens with one sentence on whom it is for.
- No sentence of one page is copied into another: a fact copied is a fact that drifts.
- No page cites a file outside the repository, and every repository path named in backticks exists.
- Excerpts of files and the README's diff are the files' own lines.
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

import pytest
from doc_pages import CLUSTER, NEEDS, PAGES, REPO, SHELL, Block, all_blocks, anchors, blocks, links, prose

# Markers whose blocks a test of their own runs, checking more than that they succeed.
OWNED = {
    "install: online": "tests/integration/test_install.py",
    "install: offline": "tests/integration/test_install.py",
    "image": "tests/integration/test_container.py",
    "kpt-render": "tests/integration/test_kpt.py",
    "helm": "tests/integration/test_helm.py",
}
README_LINES = 250


def kind_of(marker: str | None) -> str | None:
    if marker is None:
        return None
    if marker == "run" or marker.startswith("run: needs "):
        return "run"
    if marker.startswith("not run: ") and len(marker) > len("not run: "):
        return "not run"
    return marker if marker in OWNED else None


@pytest.mark.parametrize("block", [b for b in all_blocks() if b.lang in SHELL], ids=lambda b: b.where)
def test_every_shell_block_says_what_runs_it(block: Block) -> None:
    assert kind_of(block.marker) is not None, (
        f"{block.where}: a shell block needs a marker on the line before it: <!-- run -->, "
        "<!-- run: needs TOOL, ... -->, <!-- run: needs a cluster -->, <!-- not run: REASON -->, or one of "
        f"{sorted(OWNED)} (docs/how-it-works.md)")
    if kind_of(block.marker) == "run":
        needs = block.needs
        assert set(needs) <= NEEDS | {CLUSTER}, (block.where, needs)
        assert CLUSTER not in needs or needs == [CLUSTER], block.where


def test_every_block_names_its_language() -> None:
    bare = [b.where for b in all_blocks() if not b.lang]
    assert not bare, f"blocks without a language (sh, yaml, text, ...): {bare}"


def test_markers_sit_on_the_blocks_they_mean() -> None:
    """A marker not followed by a block would mark nothing; an owned marker its test no longer reads
    would leave its block unrun."""
    for page in PAGES:
        text = page.read_text()
        for m in re.finditer(r"<!-- (run|not run|install|image|kpt-render|helm|excerpt|diff|message)\b[^>]*-->\n(.?)",
                             text):
            assert m.group(2) == "`", f"{page.relative_to(REPO)}: {m.group(0).strip()} is not right before a block"
    for marker, test in OWNED.items():
        assert f"<!-- {marker}" in (REPO / test).read_text(), (marker, test)
        assert any(b.marker == marker for b in all_blocks()), f"no block is marked <!-- {marker} -->"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_relative_link_resolves(page: Path) -> None:
    for target in links(page):
        if re.match(r"[a-z]+:", target):  # https:, mailto:
            continue
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        assert file.is_relative_to(REPO), f"{page.name}: {target} points outside the repository"
        assert file.exists(), f"{page.name}: {target} does not exist"
        if anchor:
            assert file.suffix == ".md", f"{page.name}: {target}: an anchor in a file that is not Markdown"
            assert anchor in anchors(file), f"{page.name}: {target}: no such heading in {file.name}"


def test_every_page_is_reached_from_the_readme() -> None:
    reached, todo = set(), [REPO / "README.md"]
    while todo:
        page = todo.pop()
        if page in reached:
            continue
        reached.add(page)
        for target in links(page):
            path = target.partition("#")[0]
            if path.endswith(".md") and not re.match(r"[a-z]+:", path):
                todo.append((page.parent / path).resolve())
    assert set(PAGES) <= reached, sorted(str(p.relative_to(REPO)) for p in set(PAGES) - reached)


@pytest.mark.parametrize("page", [p for p in PAGES if p.parent.name == "docs"], ids=lambda p: p.name)
def test_each_page_says_whom_it_is_for(page: Path) -> None:
    lines = page.read_text().split("\n")
    assert lines[0].startswith("# ") and lines[1] == "", page.name
    assert lines[2].startswith("For "), f"{page.name}: open with one sentence on whom the page is for"


def test_the_readme_stays_short() -> None:
    assert len((REPO / "README.md").read_text().splitlines()) <= README_LINES


def sentences(page: Path) -> list[str]:
    """The page's prose cut into sentences and table cells, whitespace and list marks folded."""
    text = prose(page)
    out = []
    for paragraph in re.split(r"\n\s*\n", text):
        if paragraph.lstrip().startswith("|"):  # a table: each cell
            out += [c.strip() for row in paragraph.split("\n") for c in row.split("|")]
            continue
        flat = " ".join(line.strip().lstrip("-*").strip() for line in paragraph.split("\n"))
        out += re.split(r"(?<=[.!?:;])\s+(?=[A-Z`(*])", flat)
    return [s for s in out if len(s) >= 70]


def test_no_sentence_is_copied_from_one_page_to_another() -> None:
    where: dict[str, set[str]] = defaultdict(set)
    for page in PAGES:
        for sentence in sentences(page):
            where[sentence].add(str(page.relative_to(REPO)))
    copied = {s: sorted(p) for s, p in where.items() if len(p) > 1}
    assert not copied, "one place per fact; say it once and link it:\n" + "\n".join(
        f"  {p}: {s[:120]}" for s, p in copied.items())


def test_no_page_or_source_cites_a_file_outside_the_repository() -> None:
    """A reader has the repository: a page, a docstring or a comment cites what is in it, or a public source."""
    sources = [p for d in ("krmfn", "tests", "benchmarks", "examples", "tools") for p in (REPO / d).rglob("*")
               if p.suffix in (".py", ".md", ".yaml", ".sh") and "__pycache__" not in p.parts
               and p.name != "test_pages.py"]  # this file names what it looks for
    for page in [*PAGES, REPO / "ARCHITECTURE.md", *sources]:
        text = page.read_text(errors="replace")
        for bad in ("FIELD-NOTES", "../shared", "/work/", "/root/"):
            assert bad not in text, f"{page.relative_to(REPO)} cites {bad!r}, which is not in the repository"


REPO_PATH = re.compile(r"`((?:tests|examples|krmfn|docs|benchmarks|tools|\.ci)/[\w./-]*)`")


@pytest.mark.parametrize("page", [*PAGES, REPO / "ARCHITECTURE.md"], ids=lambda p: p.name)
def test_every_repository_path_named_exists(page: Path) -> None:
    for path in REPO_PATH.findall(prose(page)):
        assert (REPO / path.rstrip("/")).exists(), f"{page.name} names {path}, which does not exist"


def subsequence(wanted: list[str], lines: list[str], skippable: re.Pattern[str] | None = None) -> bool:
    """Whether ``wanted`` are lines of ``lines`` in order; with ``skippable``, they must follow one
    another but for lines it matches."""
    def from_(start: int) -> bool:
        at = start
        for want in wanted:
            while at < len(lines) and lines[at] != want:
                if skippable is not None and at > start and not skippable.match(lines[at]):
                    return False
                at += 1
            if at == len(lines):
                return False
            at += 1
        return True
    return any(from_(i) for i, line in enumerate(lines) if line == wanted[0])


@pytest.mark.parametrize("block", [b for b in all_blocks() if (b.marker or "").startswith("excerpt: ")],
                         ids=lambda b: b.where)
def test_an_excerpt_is_the_files_own_lines(block: Block) -> None:
    source = REPO / block.marker.removeprefix("excerpt: ")  # type: ignore[union-attr]
    lines = source.read_text().split("\n")
    assert subsequence(block.body.rstrip("\n").split("\n"), lines, re.compile(r"\s*#")), (
        f"{block.where} is no longer an excerpt of {source.relative_to(REPO)} (only comments may be left out)")


def test_the_readmes_diff_is_the_quick_starts_own() -> None:
    [diff] = [b for b in blocks(REPO / "README.md") if b.marker == "diff: examples/quickstart"]
    example = REPO / "examples" / "quickstart"
    before = (example / "input.yaml").read_text().split("\n")
    after = (example / "expected-output.yaml").read_text().split("\n")
    old = [line[1:] for line in diff.body.split("\n") if line[:1] in (" ", "-")]
    new = [line[1:] for line in diff.body.split("\n") if line[:1] in (" ", "+")]
    assert len(old) > 5 and len(new) > 10
    assert subsequence(old, before), "the README's diff: its - and context lines are not the input's"
    assert subsequence(new, after), "the README's diff: its + and context lines are not the output's"
