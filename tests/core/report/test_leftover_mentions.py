"""leftover.counter counts what the leftover pattern matches, without trying every name at every word."""

import random
import re

import pytest

from krmfn.core.report import leftover
from krmfn.core.report.leftover import _pattern, counter

NAMES = ["app", "app.v2", "db-config", "web_1", "a"]
PIECES = ["app", "app.v2", "db-config", "web_1", "a", ".", "/", "-", "_", " ", "\n", "x", "1", "..", "./", "’", ":",
          "\"", "app.", "/app", "ns/app", "app/", "app.x", "app._", "app..", "café", "é", "A", "—"]


def regex_count(text: bytes, names: list[str]) -> int:
    return len(re.compile(_pattern(names).encode()).findall(text))


@pytest.mark.parametrize("few", [0, 8], ids=["one pass over the runs", "a search per name"])
@pytest.mark.parametrize("seed", range(300))
def test_the_count_is_the_pattern_s_on_texts_made_of_names_and_their_edges(seed, few, monkeypatch):
    monkeypatch.setattr(leftover, "FEW_NAMES", few)
    rng = random.Random(seed)
    text = "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 40))).encode()
    names = rng.sample(NAMES, rng.randint(1, len(NAMES)))
    assert counter(frozenset(n.encode() for n in names))(text) == regex_count(text, names), text


@pytest.mark.parametrize("text,count", [
    (b"name: app\n", 1), (b"path: /app\n", 0), (b"ref: ns/app\n", 1), (b"see app.\n", 1), (b"app.example.com", 0),
    (b"app/", 0), (b"app.v2/", 0), (b"app.v2.", 1), (b"--config=app", 1), (b"myapp", 0), (b"app-2", 0), (b"/app", 0),
])
def test_what_counts_as_a_mention(text, count):
    assert counter(frozenset({b"app", b"app.v2"}))(text) == count == regex_count(text, ["app", "app.v2"])
