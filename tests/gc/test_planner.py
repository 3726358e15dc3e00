"""The gc planner on live state shaped as `kubectl get -o json` prints it (tests/fixtures/gc/).

cluster.json: shop/web mid-rollout (v7 -> v8) with scaled-to-zero ReplicaSets kept for
rollback, a StatefulSet and a DaemonSet with ControllerRevisions, a CronJob and the Job it
started, an Argo Rollout's ReplicaSets, unlabelled ConfigMaps, and blog/web with the same
family name (and some of the same ConfigMap names) as shop. boundaries.json: one family with
ages around 1h and a tie, for --keep and --min-age, and nothing that uses it (planned with
allow_no_referrers, as gc --allow-no-referrers would). The clock is fixed at NOW.
"""

from __future__ import annotations

import json
import random
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
import yaml
from tooling import TESTS

from krmfn.core.references.fieldspec import FieldSpec, split_path
from krmfn.core.references.table import POD_SPEC_KINDS
from krmfn.gc import planner as gc
from krmfn.results import GcError

FIXTURES = TESTS / "fixtures" / "gc"
NOW = datetime(2024, 6, 1, 12, 0, 0, tzinfo=timezone.utc)
NOTHING_BUT_REFERENCES = gc.Options(keep=0, min_age=timedelta(0))
UNUSED = gc.Options(allow_no_referrers=True)  # for boundaries.json, which holds ConfigMaps only


def load(name: str) -> list[dict]:
    return gc.parse_list((FIXTURES / name).read_bytes(), name)


@pytest.fixture(scope="module")
def cluster() -> list[dict]:
    return load("cluster.json")


def plan(objects: list[dict], options: gc.Options = gc.Options(), extra: tuple[FieldSpec, ...] = ()) -> gc.CollectionPlan:
    return gc.plan_collection(objects, NOW, options, gc.gc_table(extra))


def cm(objects: list[dict], namespace: str, family: str, marker: str) -> str:
    """The name of the ConfigMap of this family whose data mentions ``marker`` (e.g. a release)."""
    [name] = [o["metadata"]["name"] for o in objects
              if o["kind"] == "ConfigMap" and o["metadata"]["namespace"] == namespace
              and o["metadata"].get("labels", {}).get("krmfn.dev/family") == family
              and any(marker in v for v in o["data"].values())]
    return name


def rows(p: gc.CollectionPlan) -> dict[tuple[str, str], gc.Row]:
    return {(r.namespace, r.name): r for r in p.rows}


def deleted(p: gc.CollectionPlan) -> set[tuple[str, str]]:
    return {(r.namespace, r.name) for r in p.deletions}


def test_default_options_delete_only_unused_versions_beyond_the_newest_five(cluster):
    p = plan(cluster)
    assert deleted(p) == {("shop", cm(cluster, "shop", "app-config", "release: v3")),
                          ("shop", cm(cluster, "shop", "app-config", "release: v1"))}
    for row in p.deletions:
        assert row.reason == "unused, older than 1h, not among the newest 5 (#6 of 8)" or "(#8 of 8)" in row.reason


def test_a_rollout_in_progress_keeps_both_the_new_and_the_old_version(cluster):
    by = rows(plan(cluster, NOTHING_BUT_REFERENCES))
    new = by["shop", cm(cluster, "shop", "app-config", "release: v8")]
    old = by["shop", cm(cluster, "shop", "app-config", "release: v7")]
    assert new.verdict == old.verdict == gc.KEEP
    assert {(r.kind, r.name) for r in new.referrers} == {
        ("Deployment", "web"), ("ReplicaSet", "web-5d8f7c9b4"), ("Pod", "web-5d8f7c9b4-x7k2p"),
        ("Pod", "web-5d8f7c9b4-q9w4r")}
    assert {(r.kind, r.name) for r in old.referrers} == {
        ("ReplicaSet", "web-7c6d5b8f9"), ("Pod", "web-7c6d5b8f9-b5n8m"), ("Pod", "web-7c6d5b8f9-t3v6c")}


def test_a_rollback_target_held_by_a_scaled_to_zero_replicaset_is_kept(cluster):
    by = rows(plan(cluster, NOTHING_BUT_REFERENCES))
    for release, rs in (("v6", "web-6b4f8d7c5"), ("v5", "web-84c9b6d7f"), ("v2", "web-9f7b5c4d6")):
        row = by["shop", cm(cluster, "shop", "app-config", f"release: {release}")]
        assert row.verdict == gc.KEEP
        assert row.reason == f"used by ReplicaSet {rs} (scaled to 0, of Deployment web)"
    # v2 is 30 days old and 7th newest: only its ReplicaSet keeps it, under the default options too.
    assert rows(plan(cluster))["shop", cm(cluster, "shop", "app-config", "release: v2")].verdict == gc.KEEP


def test_statefulset_and_daemonset_revisions_keep_their_configmaps(cluster):
    p = plan(cluster, NOTHING_BUT_REFERENCES)
    by = rows(p)
    db_v1 = by["shop", cm(cluster, "shop", "db-config", "= 100")]
    assert db_v1.verdict == gc.KEEP
    assert db_v1.reason == "used by ControllerRevision db-58c7d9f6b (revision 1, of StatefulSet db)"
    assert by["shop", cm(cluster, "shop", "db-config", "= 50")].verdict == gc.DELETE
    fluent_v1 = by["shop", cm(cluster, "shop", "fluent-config", "v1.conf")]  # through a projected volume
    assert fluent_v1.verdict == gc.KEEP and "DaemonSet log-agent" in fluent_v1.reason


def test_a_running_job_and_a_cronjob_template_keep_their_configmaps(cluster):
    by = rows(plan(cluster, NOTHING_BUT_REFERENCES))
    running = by["shop", cm(cluster, "shop", "report-config", "select v1")]
    assert running.verdict == gc.KEEP
    assert {(r.kind, r.name) for r in running.referrers} == {("Job", "report-28620000"),
                                                            ("Pod", "report-28620000-h2j8d")}
    template = by["shop", cm(cluster, "shop", "report-config", "select v2")]
    assert template.verdict == gc.KEEP and template.reason == "used by CronJob report"
    assert by["shop", cm(cluster, "shop", "report-config", "select v0")].verdict == gc.DELETE


def test_argo_rollout_replicasets_keep_their_configmaps(cluster):
    by = rows(plan(cluster, NOTHING_BUT_REFERENCES))
    row = by["shop", cm(cluster, "shop", "checkout-config", "v1")]
    assert row.verdict == gc.KEEP
    assert row.reason == "used by ReplicaSet checkout-58f9c6b7d (scaled to 0, of Rollout checkout)"


def test_two_namespaces_with_the_same_family_are_separate_families(cluster):
    p = plan(cluster, gc.Options(keep=1))
    shop_v2 = cm(cluster, "shop", "app-config", "release: v2")
    blog_v2 = cm(cluster, "blog", "app-config", "release: v2")
    assert shop_v2 == blog_v2  # same data, same hash, same name: only the namespace differs
    by = rows(p)
    assert by["shop", shop_v2].verdict == gc.KEEP  # shop's scaled-to-zero ReplicaSet names it
    assert by["blog", blog_v2].verdict == gc.DELETE  # nothing in blog does
    assert by["blog", blog_v2].reason == "unused, older than 1h, not among the newest 1 (#2 of 2)"
    # shop's v3 shares its name with blog's v3, which blog's Deployment uses: shop's still goes.
    shop_v3 = cm(cluster, "shop", "app-config", "release: v3")
    assert shop_v3 == cm(cluster, "blog", "app-config", "release: v3")
    assert by["shop", shop_v3].verdict == gc.DELETE and by["blog", shop_v3].verdict == gc.KEEP


def test_configmaps_without_the_family_label_are_never_considered(cluster):
    p = plan(cluster, NOTHING_BUT_REFERENCES)
    names = {r.name for r in p.rows}
    assert not names & {"kube-root-ca.crt", "legacy-settings"}
    assert p.ignored == 3
    assert all(r.family for r in p.rows)


@pytest.mark.parametrize("keep,min_age,kept", [
    (0, "1h", "ab"),            # 59m59s is younger than 1h; exactly 1h is not
    (0, "1h1s", "abc"),
    (0, "0", ""),
    (3, "0", "abc"),            # the newest 3 ...
    (4, "0", "abcd"),           # ... and the 4th
    (5, "0", "abcde"),          # e and f tie at 3h: the name breaks the tie, every time
    (6, "0", "abcdef"),
    (2, "2h", "abc"),           # either rule keeps
    (5, "1h", "abcde"),
])
def test_keep_and_min_age_boundaries(keep, min_age, kept):
    p = plan(load("boundaries.json"), gc.Options(keep, gc.parse_duration(min_age), allow_no_referrers=True))
    assert "".join(r.name[-1] for r in p.rows if r.verdict == gc.KEEP) == kept
    assert [r.name[-1] for r in p.rows] == list("abcdef")  # newest first


def test_reasons_name_every_rule_that_keeps(cluster):
    row = rows(plan(cluster))["shop", cm(cluster, "shop", "app-config", "release: v8")]
    assert row.reasons == ("used by Deployment web and 3 more", "among the newest 5 (#1 of 8)",
                           "younger than --min-age 1h")
    assert gc.format_age(row.age) == "10m"


def test_the_plan_does_not_depend_on_item_order(cluster):
    shuffled = list(cluster)
    random.Random(7).shuffle(shuffled)
    assert plan(shuffled, gc.Options(keep=1)).rows == plan(cluster, gc.Options(keep=1)).rows


def test_a_namespace_option_restricts_the_configmaps(cluster):
    p = plan(cluster, gc.Options(keep=1, namespace="blog"))
    assert {r.namespace for r in p.rows} == {"blog"}
    assert p.ignored == 1  # blog's kube-root-ca.crt


def test_referrers_come_from_the_reference_table_not_a_kind_list(cluster):
    """A custom resource that names a ConfigMap keeps it once the table knows its field."""
    widget = {"apiVersion": "example.com/v1", "kind": "Widget",
              "metadata": {"name": "w", "namespace": "shop", "uid": "w1", "resourceVersion": "1",
                           "creationTimestamp": "2024-01-01T00:00:00Z"},
              "spec": {"settings": {"configMapName": cm(cluster, "shop", "app-config", "release: v1")}}}
    objects = cluster + [widget]
    spec = FieldSpec("Widget", split_path("spec/settings/configMapName"), "example.com")
    key = ("shop", widget["spec"]["settings"]["configMapName"])
    assert rows(plan(objects, NOTHING_BUT_REFERENCES))[key].verdict == gc.DELETE
    kept = rows(plan(objects, NOTHING_BUT_REFERENCES, (spec,)))[key]
    assert kept.verdict == gc.KEEP and kept.reason == "used by Widget w"
    assert "widget.example.com" in gc.referrer_resources(gc.gc_table((spec,)))


def test_a_user_spec_that_ends_at_a_map_keeps_the_name_in_it_as_the_rename_reads_it(cluster):
    """gc walks live state with the rename's own walk: a kustomize field spec may end at a
    ``{name, namespace}`` map, and the name in it is a reference for gc as for the rename."""
    name = cm(cluster, "shop", "app-config", "release: v1")
    widget = {"apiVersion": "example.com/v1", "kind": "Widget",
              "metadata": {"name": "w", "namespace": "shop", "uid": "w1", "resourceVersion": "1",
                           "creationTimestamp": "2024-01-01T00:00:00Z"},
              "spec": {"configRef": {"name": name}}}
    spec = FieldSpec("Widget", ("spec", "configRef"), "example.com", maps=True)
    kept = rows(plan(cluster + [widget], NOTHING_BUT_REFERENCES, (spec,)))["shop", name]
    assert kept.verdict == gc.KEEP and kept.reason == "used by Widget w"


def test_every_kind_of_the_rewrites_table_is_read_plus_controllerrevisions():
    resources = gc.referrer_resources(gc.gc_table())
    for _, kind, _ in POD_SPEC_KINDS:
        assert any(r.split(".")[0] == kind.lower() for r in resources), kind
    assert "controllerrevision.apps" in resources
    assert "configmap" not in resources


def test_a_cluster_scoped_referrer_keeps_the_name_in_every_namespace(cluster):
    name = cm(cluster, "shop", "app-config", "release: v3")
    holder = {"apiVersion": "example.com/v1", "kind": "ClusterWidget",
              "metadata": {"name": "global", "uid": "g", "resourceVersion": "1",
                           "creationTimestamp": "2024-01-01T00:00:00Z"},
              "spec": {"configMap": name}}
    spec = FieldSpec("ClusterWidget", ("spec", "configMap"), "example.com")
    by = rows(plan(cluster + [holder], NOTHING_BUT_REFERENCES, (spec,)))
    assert by["shop", name].verdict == by["blog", name].verdict == gc.KEEP


def test_rows_as_json():
    [row] = [r for r in plan(load("boundaries.json"), UNUSED).rows if r.name == "settings-c"]
    assert row.to_json() == {
        "kind": "ConfigMap", "namespace": "edge", "family": "settings", "name": "settings-c", "uid": row.uid,
        "resourceVersion": row.resource_version, "creationTimestamp": "2024-06-01T11:00:00Z",
        "ageSeconds": 3600, "age": "60m", "verdict": "keep", "reason": "among the newest 5 (#3 of 6)",
        "referrers": []}


# --- reading -----------------------------------------------------------------------------


def test_a_kubectl_yaml_list_plans_like_the_json_one(cluster):
    """`kubectl get -o yaml`: quoted timestamps, plain numbers, the same plan."""
    text = yaml.safe_dump(json.loads((FIXTURES / "cluster.json").read_text()), sort_keys=True)
    from_yaml = gc.parse_list(text.encode(), "cluster.yaml")
    assert plan(from_yaml, gc.Options(keep=1)).rows == plan(cluster, gc.Options(keep=1)).rows


def test_a_raw_api_list_gets_kinds_from_the_list_kind():
    raw = {"kind": "ConfigMapList", "apiVersion": "v1", "metadata": {"resourceVersion": "9"},
           "items": [{"metadata": {"name": "c-1", "namespace": "a", "labels": {"krmfn.dev/family": "c"},
                                   "creationTimestamp": "2024-01-01T00:00:00Z"}}]}
    [item] = gc.parse_list(json.dumps(raw).encode())
    assert item["kind"] == "ConfigMap" and item["apiVersion"] == "v1"


@pytest.mark.parametrize("text,message", [
    ('{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}}',
     "f.json is kind 'ConfigMap', not a List; make it with `kubectl get configmaps,secrets,pods,replicasets,... -o json`."),
    ("[1, 2]", "f.json is list, not a List; make it with `kubectl get configmaps,secrets,pods,replicasets,... -o json`."),
    ('{"kind": "List", "items": [', "f.json is not valid JSON (Expecting value at line 1)."),
    ('{"kind": "List", "items": {"a": 1}}', "f.json has items that are not a list."),
    ('{"kind": "List", "items": [3]}', "item 0 of f.json is not an object with metadata."),
    ("kind: List\nitems: [\n", None),
    ("a: 1\n---\nb: 2\n", "f.json holds 2 YAML documents, not one List."),
])
def test_bad_live_state_is_one_clear_sentence(text, message):
    with pytest.raises(GcError) as exc:
        gc.parse_list(text.encode(), "f.json")
    if message:
        assert str(exc.value) == message
    assert "\n" not in str(exc.value) and str(exc.value).endswith(".")


@pytest.mark.parametrize("stamp", ["yesterday", "2024-13-01T00:00:00Z", "2024-06-01", "", None, 1717243200])
def test_an_unparseable_creation_timestamp_is_an_error_naming_the_configmap(stamp):
    objects = load("boundaries.json")
    objects[2]["metadata"]["creationTimestamp"] = stamp
    with pytest.raises(GcError) as exc:
        plan(objects, UNUSED)
    assert str(exc.value) == (f"ConfigMap edge/settings-c has creationTimestamp {stamp!r}, which is not an "
                              "RFC 3339 time such as 2024-05-01T12:00:00Z.")


def test_timestamps_with_offsets_and_fractions_are_read():
    assert gc.parse_time("2024-06-01T14:00:00.123+02:00", "x") == NOW + timedelta(milliseconds=123)
    assert gc.parse_time(datetime(2024, 6, 1, 12), "x") == NOW  # PyYAML's own datetime, naive = UTC


@pytest.mark.parametrize("text,seconds", [("1h", 3600), ("30m", 1800), ("1h30m", 5400), ("2d", 172800),
                                          ("90s", 90), ("0", 0), ("1.5h", 5400), ("500ms", 0.5)])
def test_durations(text, seconds):
    assert gc.parse_duration(text).total_seconds() == seconds


@pytest.mark.parametrize("text", ["", "1", "h", "1x", "-1h", "1h 30m", "1hh"])
def test_bad_durations(text):
    with pytest.raises(GcError):
        gc.parse_duration(text)


# What `kubectl get` prints for these ages (apimachinery's duration.HumanDuration).
KUBECTL_AGES = [(0, "0s"), (59, "59s"), (119, "119s"), (120, "2m"), (330, "5m30s"), (599, "9m59s"), (600, "10m"),
                (3 * 3600 - 1, "179m"), (3 * 3600, "3h"), (5 * 3600 + 180, "5h3m"), (8 * 3600 - 1, "7h59m"),
                (8 * 3600, "8h"), (48 * 3600 - 1, "47h"), (2 * 86400, "2d"), (2 * 86400 + 1, "2d"),
                (3 * 86400 + 4 * 3600 + 300, "3d4h"), (8 * 86400 - 1, "7d23h"), (8 * 86400, "8d"),
                (25 * 86400, "25d"), (730 * 86400 - 1, "729d"), (730 * 86400, "2y"), (790 * 86400, "2y60d"),
                (8 * 365 * 86400, "8y"), (-1, "0s"), (-5, "<invalid>")]


@pytest.mark.parametrize("seconds,text", KUBECTL_AGES)
def test_ages_print_like_kubectl(seconds, text):
    assert gc.format_age(timedelta(seconds=seconds)) == text


@pytest.mark.parametrize("text", ["1h", "30m", "1h30m", "2d", "90s", "2d1s", "0"])
def test_an_option_duration_prints_as_given(text):
    """--min-age is echoed exactly (not rounded like an age): 90s is 1m30s, 0 is 0s."""
    printed = gc.format_duration(gc.parse_duration(text))
    assert gc.parse_duration(printed) == gc.parse_duration(text)
    assert printed == {"90s": "1m30s", "0": "0s"}.get(text, text)


# --- a read too thin to trust ------------------------------------------------------------


def test_configmaps_and_no_referrer_at_all_is_refused(cluster):
    """Every ConfigMap and no Pod, ReplicaSet, ...: a read that missed the referrers, most likely.
    Planning it would delete all but the newest of every family; gc says so and stops."""
    only = [o for o in cluster if o["kind"] == "ConfigMap"]
    with pytest.raises(GcError) as exc:
        plan(only)
    assert str(exc.value) == ("the live state holds 20 krmfn ConfigMaps and no object that could use one (no Pod, "
                              "ReplicaSet, ControllerRevision, Job, ...), so every version beyond the newest 5 would "
                              "look unused: read those kinds too, or pass --allow-no-referrers if nothing uses them.")
    allowed = plan(only, gc.Options(allow_no_referrers=True))
    assert len(allowed.deletions) == 3  # shop's app-config: 8 versions, 3 beyond the newest 5


def test_one_referrer_of_any_kind_is_enough_and_no_configmaps_is_no_question(cluster):
    only = [o for o in cluster if o["kind"] == "ConfigMap"]
    idle = {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "idle", "namespace": "elsewhere"},
            "spec": {"jobTemplate": {"spec": {"template": {"spec": {"containers": [{"name": "c"}]}}}}}}
    assert plan(only + [idle]).deletions  # it uses nothing, but referrers were read
    assert plan([o for o in cluster if o["kind"] != "ConfigMap"]).rows == []


def test_kubernetes_own_referrer_kinds_are_required_custom_resources_are_not():
    required = gc.required_resources(gc.gc_table())
    assert {"pod", "replicaset", "deployment", "statefulset", "daemonset", "job.batch", "cronjob.batch",
            "controllerrevision.apps", "podtemplate", "replicationcontroller"} <= required
    resources = set(gc.referrer_resources(gc.gc_table()))
    assert required <= resources
    assert not {"rollout.argoproj.io", "statefulset.apps.kruise.io", "service.serving.knative.dev"} & required
    assert {"rollout.argoproj.io", "statefulset.apps.kruise.io"} <= resources


def test_secrets_are_planned_per_kind_and_read_without_their_values():
    objects = load("secrets.json")
    for obj in (o for o in objects if o["kind"] == "Secret"):
        assert set(obj) == {"apiVersion", "kind", "metadata"}  # no data, no type
        assert "kubectl.kubernetes.io/last-applied-configuration" not in obj["metadata"].get("annotations", {})
        assert "annotations" not in obj["metadata"]
    rows = plan(objects, gc.Options(keep=1)).rows
    verdicts = {(r.kind.kind, r.name): r.verdict for r in rows}
    secrets = [r for r in rows if r.kind.kind == "Secret" and r.family == "api-token"]
    assert [r.verdict for r in secrets] == ["keep", "keep", "delete", "keep", "delete"]  # newest first
    assert "ControllerRevision vault-58c7d9f6b" in secrets[3].reason  # a StatefulSet's past template
    assert "ReplicaSet api-7b8c9d6f5 (scaled to 0" in secrets[1].reason
    registry = [r for r in rows if r.family == "registry"]
    assert [(r.verdict, r.reason.split(";")[0]) for r in registry][0] == ("keep", "used by ServiceAccount api")
    # The ConfigMap family of the same name is its own family: #1 of 1, not #6 of 6.
    [cm] = [r for r in rows if r.kind.kind == "ConfigMap"]
    assert cm.verdict == "keep" and "(#1 of 1)" in cm.reason
    assert sum(v == "delete" for v in verdicts.values()) == 3
    assert gc.plan_collection(objects, NOW, gc.Options(keep=1, kinds=frozenset({"ConfigMap"})), gc.gc_table()).rows == [
        r for r in rows if r.kind.kind == "ConfigMap"]


def test_a_user_field_spec_of_kind_secret_keeps_what_a_custom_resource_names():
    """fieldSpecs' ``kind: Secret`` entries (core.references.user_specs) reach gc as they reach the rewrite."""
    from krmfn.core.references.user_specs import parse_field_specs
    from krmfn.results import Where

    widget = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w", "namespace": "pay"},
              "spec": {"auth": {"secretRef": {"name": "api-token-9b6cg5b98g"}}}}
    objects = load("secrets.json") + [widget]
    extra = tuple(parse_field_specs([{"kind": "Secret", "fieldSpecs": [
        {"kind": "Widget", "group": "example.com", "path": "spec/auth/secretRef/name"}]}], Where("fieldSpecs")))
    before = {r.name: r.verdict for r in plan(objects, gc.Options(keep=1)).rows}
    after = {r.name: r for r in plan(objects, gc.Options(keep=1), extra).rows}
    assert before["api-token-9b6cg5b98g"] == "delete"
    assert after["api-token-9b6cg5b98g"].verdict == "keep" and "Widget w" in after["api-token-9b6cg5b98g"].reason
