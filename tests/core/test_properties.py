"""Properties over generated ResourceLists: idempotence, determinism under reordering,
closure of references, and no change to fields krmfn does not own."""

from __future__ import annotations

import copy
import os

import yaml
from conftest import exit_code, run
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

# Seeded (derandomize): the same examples every run, so that a red run is a change's doing.
settings.register_profile("ci", max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow],
                          derandomize=True)
settings.register_profile("dev", max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow],
                          derandomize=True)
settings.load_profile("ci" if os.environ.get("CI") else "dev")

NAMES = st.sampled_from(["app", "db", "cache", "web-config", "a.b"])
NAMESPACES = st.sampled_from([None, "default", "prod"])
TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=30)
KEYS = st.from_regex(r"[A-Za-z0-9_.-]{1,12}", fullmatch=True)


@st.composite
def configmaps(draw):
    name, ns = draw(NAMES), draw(NAMESPACES)
    meta = {"name": name}
    if ns:
        meta["namespace"] = ns
    opt = draw(st.sampled_from(["true", "false", None]))
    if opt:
        meta["annotations"] = {"krmfn.dev/content-hash": opt}
    if draw(st.booleans()):
        meta["labels"] = {"tier": draw(st.sampled_from(["web", "db"]))}
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta}
    if draw(st.booleans()):
        cm["data"] = draw(st.dictionaries(KEYS, TEXT, max_size=4))
    return cm


@st.composite
def workloads(draw, index):
    ref = draw(NAMES)
    ns = draw(NAMESPACES)
    meta = {"name": f"w{index}", "labels": {"on": draw(st.sampled_from(["yes", "no", "0777"]))}}
    if ns:
        meta["namespace"] = ns
    container = {"name": "c", "image": "nginx", "envFrom": [{"configMapRef": {"name": ref}}],
                 "env": [{"name": "X", "valueFrom": {"configMapKeyRef": {"name": draw(NAMES), "key": "k"}}}]}
    spec = {"containers": [container], "volumes": [{"name": "v", "configMap": {"name": draw(NAMES)}}]}
    kind = draw(st.sampled_from(["Deployment", "Pod", "CronJob"]))
    if kind == "Pod":
        return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}
    if kind == "CronJob":
        return {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": meta,
                "spec": {"schedule": "* * * * *", "jobTemplate": {"spec": {"template": {"spec": spec}}}}}
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": meta, "spec": {"template": {"spec": spec}}}


@st.composite
def resource_lists(draw):
    cms = draw(st.lists(configmaps(), max_size=5, unique_by=lambda c: (c["metadata"].get("namespace") or "default",
                                                                      c["metadata"]["name"])))
    n = draw(st.integers(0, 4))
    loads = [draw(workloads(i)) for i in range(n)]
    items = draw(st.permutations(cms + loads))
    fc = None
    if draw(st.booleans()):
        fc = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "fc"},
              "data": {"select": draw(st.sampled_from(["all", "annotated"]))}}
    rl = {"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": items}
    if fc:
        rl["functionConfig"] = fc
    return rl


def dump(rl) -> str:
    return yaml.safe_dump(rl, sort_keys=False, allow_unicode=True, width=1 << 16)


def ref_names(obj):
    """Every ConfigMap name the test's workloads hold, with where it sits."""
    spec = obj["spec"]
    spec = spec.get("template", {}).get("spec") or spec.get("jobTemplate", {}).get("spec", {}).get("template", {}).get("spec") or spec
    c = spec["containers"][0]
    return [c["envFrom"][0]["configMapRef"]["name"], c["env"][0]["valueFrom"]["configMapKeyRef"]["name"],
            spec["volumes"][0]["configMap"]["name"]]


def strip_owned(obj):
    """An object less the fields krmfn owns, so the rest can be compared."""
    o = copy.deepcopy(obj)
    if o["kind"] == "ConfigMap":
        meta = o["metadata"]
        meta.pop("name")
        o.pop("immutable", None)
        for key in ("annotations", "labels"):
            m = meta.get(key, {})
            for k in ("krmfn.dev/original-name", "krmfn.dev/family"):
                m.pop(k, None)
            if key in meta and not m:
                meta.pop(key)
    else:
        spec = o["spec"]
        spec = spec.get("template", {}).get("spec") or spec.get("jobTemplate", {}).get("spec", {}).get("template", {}).get("spec") or spec
        c = spec["containers"][0]
        c["envFrom"][0]["configMapRef"]["name"] = c["env"][0]["valueFrom"]["configMapKeyRef"]["name"] = None
        spec["volumes"][0]["configMap"]["name"] = None
    return o


def key(obj):
    return obj["kind"], obj["metadata"].get("namespace") or "default", obj["metadata"].get("labels", {}).get("krmfn.dev/family") or obj["metadata"]["name"]


@given(resource_lists())
def test_idempotent(rl):
    first = run(dump(rl))
    if exit_code(first) != 0:
        return
    second = run(first.text)
    assert exit_code(second) == 0
    assert second.text == first.text


@given(resource_lists(), st.randoms(use_true_random=False))
def test_reordering_items_and_data_keys_changes_no_name(rl, rnd):
    first = run(dump(rl))
    shuffled = copy.deepcopy(rl)
    rnd.shuffle(shuffled["items"])
    for item in shuffled["items"]:
        if "data" in item:
            pairs = list(item["data"].items())
            rnd.shuffle(pairs)
            item["data"] = dict(pairs)
    second = run(dump(shuffled))
    assert exit_code(first) == exit_code(second)
    if exit_code(first):
        return
    a = sorted((key(i), i["metadata"]["name"], ref_names(i) if i["kind"] != "ConfigMap" else None)
               for i in yaml.safe_load(first.text)["items"])
    b = sorted((key(i), i["metadata"]["name"], ref_names(i) if i["kind"] != "ConfigMap" else None)
               for i in yaml.safe_load(second.text)["items"])
    assert a == b


@given(resource_lists())
def test_every_reference_to_a_hashed_configmap_names_one_in_the_output(rl):
    out = run(dump(rl))
    if exit_code(out):
        return
    items = yaml.safe_load(out.text)["items"]
    hashed = {(i["metadata"].get("namespace") or "default", i["metadata"]["annotations"]["krmfn.dev/original-name"])
              for i in items if i["kind"] == "ConfigMap" and i.get("immutable") is True}
    present = {(i["metadata"].get("namespace") or "default", i["metadata"]["name"]) for i in items if i["kind"] == "ConfigMap"}
    for i in items:
        if i["kind"] == "ConfigMap":
            continue
        ns = i["metadata"].get("namespace") or "default"
        for name in ref_names(i):
            assert (ns, name) not in hashed, f"{i['kind']}/{i['metadata']['name']} still names {name}"
            if name.rsplit("-", 1)[0] and (ns, name.rsplit("-", 1)[0]) in hashed:
                assert (ns, name) in present


@given(resource_lists())
def test_fields_krmfn_does_not_own_are_unchanged(rl):
    text = dump(rl)
    out = run(text)
    if exit_code(out):
        return
    # Compared as the same reader reads both (PyYAML does not round-trip a NEL it wrote itself).
    rl = yaml.safe_load(text)
    before = [strip_owned(i) for i in rl["items"]]
    after = [strip_owned(i) for i in yaml.safe_load(out.text)["items"]]
    assert after == before
    if "functionConfig" in rl:
        assert yaml.safe_load(out.text)["functionConfig"] == rl["functionConfig"]


# --- every emitter's writing of one ResourceList reads the same ------------------------------------

def _ruamel(rl) -> str:
    import io

    from ruamel.yaml import YAML

    out = io.StringIO()
    y = YAML()
    y.indent(mapping=2, sequence=4, offset=2)
    y.dump(rl, out)
    return out.getvalue()


def _shared(rl):
    """The same container object in containers and initContainers: PyYAML writes it as an anchor and
    an alias, as it writes any repeated object."""
    rl = copy.deepcopy(rl)
    for item in rl["items"]:
        spec = item.get("spec", {})
        spec = spec.get("template", {}).get("spec") or spec.get("jobTemplate", {}).get("spec", {}).get(
            "template", {}).get("spec") or spec
        if "containers" in spec:
            spec["initContainers"] = [spec["containers"][0]]
    return rl


EMITTERS = {
    "pyyaml-block": dump,
    "pyyaml-flow": lambda rl: yaml.safe_dump(rl, default_flow_style=True, sort_keys=False, width=1 << 16),
    "json": lambda rl: __import__("json").dumps(rl, indent=2, ensure_ascii=False),  # as Go writes it: UTF-8
    "ruamel-indented-lists": _ruamel,
    "pyyaml-anchors": lambda rl: yaml.dump(_shared(rl), Dumper=yaml.SafeDumper, sort_keys=False),
    "no-final-line-break": lambda rl: dump(rl).rstrip("\n"),
    "crlf": lambda rl: dump(rl).replace("\n", "\r\n"),
}


@given(resource_lists())
def test_every_emitters_writing_reads_the_same_and_gets_the_same_names(rl):
    """Written by PyYAML (block, flow, anchors), ruamel (indented lists), JSON, without a final line
    break or with CRLF: each output means its input plus krmfn's changes (the writer checks that
    itself, and here PyYAML reads it), and every writing gets the same names."""
    answers = {}
    for who, emit in EMITTERS.items():
        text = emit(rl)
        out = run(text)
        if exit_code(out) != 0:  # a refusal is allowed (a raw control character JSON may hold), never a wrong value
            assert all(r.severity != "error" or "control character" in r.message or "not a string" in r.message
                       or "reads as a number, boolean" in r.message for r in out.results), [str(r) for r in out.results]
            continue
        before, got = yaml.safe_load(text)["items"], yaml.safe_load(out.text)["items"]  # one reader for both
        assert [strip_owned(i) for i in got] == [strip_owned(i) for i in before], who
        answers[who] = [(i["kind"], i["metadata"]["name"]) for i in got]
    assert len({repr(v) for v in answers.values()}) <= 1, answers
