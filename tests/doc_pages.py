"""The README and docs/*.md read as data: their fenced blocks with the marker before each, their
links, their headings' anchors, their prose. Used by tests/docs/ and by the integration test that
runs the documented commands (tests/integration/test_doc_commands.py).

A marker is an HTML comment on the line right before a block's opening fence; the reader does not
see it. docs/how-it-works.md lists the markers and what runs each.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
MARKER = re.compile(r"<!-- (.*?) -->")
SHELL = {"sh", "bash", "shell", "console"}
# Tools a `<!-- run: needs ... -->` block may ask for, and the one thing no test here can give it.
NEEDS = {"kpt", "kubectl", "helm3", "helm4", "docker"}
CLUSTER = "a cluster"


@dataclass(frozen=True)
class Block:
    page: Path
    line: int  # of the opening fence, 1-based
    lang: str
    body: str
    marker: str | None  # the comment's text, between `<!-- ` and ` -->`

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(REPO)}:{self.line}"

    @property
    def needs(self) -> list[str]:
        """What a ``run`` block needs: ``run: needs kpt, docker`` gives ``["kpt", "docker"]``."""
        assert self.marker is not None and (self.marker == "run" or self.marker.startswith("run: needs ")), self.where
        rest = self.marker.removeprefix("run").removeprefix(": needs ")
        return [n.strip() for n in rest.split(",") if n.strip()]


def blocks(page: Path) -> list[Block]:
    found: list[Block] = []
    lines = page.read_text().split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("```"):
            start, lang = i, line[3:].strip()
            i += 1
            while i < len(lines) and lines[i] != "```":
                i += 1
            assert i < len(lines), f"{page.relative_to(REPO)}:{start + 1}: a block that is never closed"
            before = lines[start - 1] if start else ""
            m = MARKER.fullmatch(before.strip())
            found.append(Block(page, start + 1, lang, "\n".join(lines[start + 1:i]) + "\n",
                               m.group(1) if m else None))
        i += 1
    return found


def all_blocks() -> list[Block]:
    return [b for page in PAGES for b in blocks(page)]


def prose(page: Path) -> str:
    """The page without its fenced blocks and HTML comments."""
    text = re.sub(r"^```.*?^```$", "", page.read_text(), flags=re.S | re.M)
    return re.sub(r"<!--.*?-->", "", text, flags=re.S)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, no punctuation but `-` and `_`, spaces as `-`."""
    text = re.sub(r"[`*]", "", heading.strip().lower())
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = "".join(c for c in text if c.isalnum() or c in " -_")
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    seen: dict[str, int] = {}
    out = set()
    for line in prose(page).split("\n"):
        m = re.match(r"#{1,6} (.*)", line)
        if m:
            base = slug(m.group(1))
            n = seen.get(base, 0)
            seen[base] = n + 1
            out.add(base if n == 0 else f"{base}-{n}")
    return out


LINK = re.compile(r"\[([^\]]*)\]\(([^)\s]+)\)")


def links(page: Path) -> list[str]:
    """Every link target in the page's prose (inline code spans left out)."""
    text = re.sub(r"`[^`\n]*`", "", prose(page))
    return [m.group(2) for m in LINK.finditer(text)]
