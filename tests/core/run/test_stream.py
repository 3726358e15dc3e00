"""The scan as the cut's pass goes (core.run.stream): what it reads is what the scan after the cut
reads, object for object, and the run uses it only when it stands for that scan."""

from __future__ import annotations

import io
import marshal
import pickle
import sys
from pathlib import Path

import pytest
from conftest import exit_code
from tooling import REPO

from krmfn.core.config import read_config
from krmfn.core.references.walk import ReferenceTable
from krmfn.core.run import parallel
from krmfn.core.run.function import run_resource_list, run_streams
from krmfn.core.run.scan import scan
from krmfn.core.run.stream import StreamScan, guess, streams
from krmfn.krm.envelope import read_resource_list, read_streams
from krmfn.krm.limits import Limits, check_inputs
from krmfn.yaml.encoding import TextForm

sys.path.insert(0, str(REPO / "benchmarks"))
import bench_shapes

HEAD = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
CM = "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: {name}\n    annotations:\n" \
     "      krmfn.dev/content-hash: \"true\"\n  data: {{k: v}}\n"
DEPLOY = ("- apiVersion: apps/v1\n  kind: Deployment\n  metadata:\n    name: web\n  spec:\n    template:\n"
          "      spec:\n        containers:\n        - name: c\n          envFrom: [{configMapRef: {name: a}}]\n")
FUNCTION_CONFIG = "functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: fc}\n  data: {names: b}\n"


def _same(a, b) -> bool:
    """Two scans hold the same: what the fork sends of them, pickled without its memo, each packed
    meaning unpacked (so that which equal strings are one object, as interned ones are, does not
    count: pickle and marshal write those as references)."""
    return _flat(_unpacked(parallel._pack(a))) == _flat(_unpacked(parallel._pack(b)))


def _unpacked(packed):
    packed.resources = [(*r[:-1], marshal.loads(r[-1]) if r[-1] is not None else None) for r in packed.resources]
    return packed


def _flat(obj) -> bytes:
    out = io.BytesIO()
    pickler = pickle.Pickler(out, pickle.HIGHEST_PROTOCOL)
    pickler.fast = True  # no memo: every object written out in full where it appears
    pickler.dump(obj)
    return out.getvalue()


def _both(data: bytes, stream: bool):
    """The scan read as the cut goes, and the scan after the cut, of the same input."""
    [(_, form, data)] = check_inputs([data], [None], Limits())
    config = _stream_config_of(data) if stream else guess(data, None)
    assert config is not None
    reader = StreamScan(config, data)
    rl = read_streams([data], None, [None], [form], reader) if stream else read_resource_list(data, form, reader)
    after = read_config(rl.envelope, rl.function_config)
    return reader.scanned(after), scan(rl, after, ReferenceTable.builtin(after.field_specs))


def _stream_config_of(data: bytes):
    rl = read_streams([data], None, [None], [TextForm()])
    return read_config(rl.envelope, rl.function_config)


@pytest.mark.parametrize("shape", sorted(bench_shapes.SHAPES))
def test_every_benchmark_shape_reads_as_the_scan_after_the_cut(shape):
    make, argv = bench_shapes.SHAPES[shape]
    streamed, after = _both(make(60).encode(), bool(argv))
    assert streamed is not None and _same(streamed, after)


@pytest.mark.parametrize("path", sorted(p for p in REPO.glob("examples/*/input.yaml")),
                         ids=lambda p: p.parent.name)
def test_every_example_reads_as_the_scan_after_the_cut(path: Path):
    data = path.read_bytes()
    stream = b"kind: ResourceList" not in data
    if not stream and guess(data, None) is None:
        pytest.skip("its function config comes before its items")
    streamed, after = _both(data, stream)
    assert streamed is not None and _same(streamed, after)


def test_the_function_config_after_the_items_is_read_first():
    data = (HEAD + CM.format(name="a") + CM.format(name="b") + FUNCTION_CONFIG).encode()
    config = guess(data, None)
    assert config is not None and config.names == frozenset({"b"})
    assert guess((HEAD + CM.format(name="a")).encode(), None) == read_config(*_envelope(HEAD))


def _envelope(text: str):
    rl = read_resource_list(text.encode())
    return rl.envelope, rl.function_config


@pytest.mark.parametrize("data", [
    "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nfunctionConfig: {data: {names: b}}\nitems:\n- {}\n",
    HEAD + "- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: x}\n  data:\n    f: |\n" + "functionConfig: [\n",
    '{"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": [], "functionConfig": {}}',
], ids=["before the items", "unreadable", "JSON"])
def test_a_function_config_that_cannot_be_read_first_leaves_the_scan_for_after_the_cut(data):
    assert guess(data.encode(), None) is None


def test_a_run_parses_no_object_twice(monkeypatch):
    """The scan reads every object from the cut's pass: no object's text is parsed alone."""
    import krmfn.krm.resource as resource

    parsed = []
    real = resource.parse_item
    monkeypatch.setattr(resource, "parse_item", lambda source: parsed.append(source) or real(source))
    data = (HEAD + CM.format(name="a") + DEPLOY + FUNCTION_CONFIG).encode()
    out = run_resource_list(data)
    assert exit_code(out) == 0 and b"name: a-" in out.stdout
    assert parsed == []
    stream = b"---\n".join(bench_shapes._documents(2).encode().split(b"---\n")[:3])
    done = run_streams([stream], None)
    assert not done.failed and b"name: c-0-" in done.outputs[0] and parsed == []


@pytest.mark.parametrize("bad,says", [
    ("- apiVersion: v1\n  kindx: ConfigMap\n  metadata: {name: z}\n", "item 1 has no kind"),
    ("- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: Bad_Name, annotations: {krmfn.dev/content-hash: "
     "\"true\"}}\n", "'Bad_Name' is not a valid ConfigMap name"),
])
def test_an_error_in_an_object_is_said_as_the_scan_after_the_cut_says_it(bad, says, monkeypatch):
    data = (HEAD + CM.format(name="a") + bad + DEPLOY + FUNCTION_CONFIG).encode()
    streamed = run_resource_list(data)
    monkeypatch.setattr("krmfn.core.run.function.streams", lambda data: False)
    after = run_resource_list(data)
    assert exit_code(streamed) == exit_code(after) == 1
    assert streamed.results == after.results and says in streamed.results[0].message


def test_a_config_read_first_that_is_not_the_envelopes_is_not_used(monkeypatch):
    """The guess is checked against the config read from the envelope after the cut."""
    data = (HEAD + CM.format(name="a") + CM.format(name="b") + FUNCTION_CONFIG).encode()
    monkeypatch.setattr("krmfn.core.run.function.guess", lambda data, labels: read_config(*_envelope(HEAD)))
    out = run_resource_list(data)
    assert exit_code(out) == 0 and b"name: a-" in out.stdout and b"name: b-" in out.stdout  # names: b opts b in


@pytest.mark.parametrize("shape", sorted(bench_shapes.SHAPES))
def test_a_run_that_reads_as_the_cut_goes_writes_what_the_scan_after_the_cut_writes(shape, monkeypatch):
    make, argv = bench_shapes.SHAPES[shape]
    data = make(60).encode()

    def both():
        return run_streams([data], None) if argv else run_resource_list(data)

    streamed = both()
    monkeypatch.setattr("krmfn.core.run.function.streams", lambda data: False)
    after = both()
    assert streamed.results == after.results and not streamed.failed
    assert (streamed.outputs if argv else streamed.stdout) == (after.outputs if argv else after.stdout)


def test_a_kind_seldom_parsed_is_parsed_alone_when_it_must_be(monkeypatch):
    """A CustomResourceDefinition's events are not kept (it is parsed only for krmfn's own keys or
    a mark in it); one that holds krmfn's keys is parsed alone, and reads as it does after the cut."""
    crd = ("- apiVersion: apiextensions.k8s.io/v1\n  kind: CustomResourceDefinition\n  metadata:\n"
           "    name: {name}\n    annotations: {{krmfn.dev/content-hash: \"true\"}}\n  spec: {{group: x}}\n")
    data = (HEAD + CM.format(name="a") + crd.format(name="c.x") + DEPLOY).encode()
    kept = []
    real = StreamScan.read
    monkeypatch.setattr(StreamScan, "read", lambda self, i, e, source, ident, events, *rest:
                        kept.append(events is not None) or real(self, i, e, source, ident, events, *rest))
    streamed = run_resource_list(data)
    assert kept == [True, False, True]
    monkeypatch.setattr("krmfn.core.run.function.streams", lambda data: False)
    assert run_resource_list(data).results == streamed.results


def test_a_large_input_on_two_cores_is_cut_then_read_on_both(monkeypatch):
    """Where the scan after the cut forks, it runs instead: a second core parsing half the objects
    again beats one process reading each once."""
    monkeypatch.setattr(parallel, "cores", lambda: 2)
    assert streams(b"- a: 1\n" * 1000) and not streams(b"- a: 1\n" * 100_000)
    monkeypatch.setattr(parallel, "cores", lambda: 1)
    assert streams(b"- a: 1\n" * 100_000)
