"""`krmfn gc` as a command: output, exit codes, errors, and the kubectl calls it makes.

No Kubernetes API server can be installed here, so the --apply path runs
against a stand-in `kubectl` that each test writes into tmp_path and puts first on PATH: it
serves `get` from a live-state List, answers `delete --raw` the way the API server does
(preconditions checked, NotFound, Conflict, a server error on request), and records every
call. test_gc_kubectl.py runs the real kubectl binary against a stub HTTP API server.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from tooling import TESTS

from krmfn.cli import gc as gc_cli
from krmfn.core.references.kinds import RENAMED
from krmfn.gc import planner as gc

FIXTURES = TESTS / "fixtures" / "gc"
CLUSTER = FIXTURES / "cluster.json"
NOW = "--now=2024-06-01T12:00:00Z"

STAND_IN = r'''#!PYTHON
"""A stand-in kubectl: `get` from $FAKE_KUBE_STATE, `delete --raw` with preconditions, a log of calls."""
import json, os, sys

env = lambda k: [v for v in os.environ.get(k, "").split(",") if v]
argv = sys.argv[1:]
stdin = sys.stdin.read() if "-f" in argv else ""
with open(os.environ["FAKE_KUBE_LOG"], "a") as log:
    log.write(json.dumps({"argv": argv, "stdin": stdin}) + "\n")
state_path = os.environ["FAKE_KUBE_STATE"]
state = json.load(open(state_path))
opts, rest, i = {}, [], 0
while i < len(argv):
    a = argv[i]
    if a in ("--kubeconfig", "--context", "-n", "--namespace", "-o", "-l", "-f", "--raw"):
        opts[a] = argv[i + 1]; i += 2
    elif a in ("-A", "--all-namespaces"):
        opts["-A"] = True; i += 1
    else:
        rest.append(a); i += 1
verb = rest[0]
if verb == "get":
    resource = rest[1]
    kind = resource.split(".")[0]
    kind = kind[:-1] if kind.endswith("s") else kind
    if kind in env("FAKE_KUBE_UNSERVED"):
        sys.exit(print(f'error: the server doesn\'t have a resource type "{resource.split(".")[0]}"', file=sys.stderr) or 1)
    if kind in env("FAKE_KUBE_SLOW"):
        __import__("time").sleep(1.3)
    if kind in env("FAKE_KUBE_FORBIDDEN"):
        sys.exit(print(f'Error from server (Forbidden): {kind}s is forbidden: User "system:serviceaccount:krmfn-system:krmfn-gc" '
                       f'cannot list resource "{kind}s" in API group "" at the cluster scope', file=sys.stderr) or 1)
    ns = None if "-A" in opts else opts.get("--namespace", opts.get("-n", "default"))
    label = opts.get("-l")
    items = [o for o in state["items"] if o["kind"].lower() == kind
             and (ns is None or o["metadata"].get("namespace") == ns)
             and (not label or os.environ.get("FAKE_KUBE_IGNORE_SELECTOR") or label in o["metadata"].get("labels", {}))]
    print(json.dumps({"apiVersion": "v1", "items": items, "kind": "List", "metadata": {"resourceVersion": ""}}, indent=4))
elif verb == "delete":
    _, api, v1, _, ns, plural, name = opts["--raw"].split("/")
    body = json.loads(stdin)
    assert body["kind"] == "DeleteOptions" and body["apiVersion"] == "v1", body
    pre = body["preconditions"]
    kind = {"configmaps": "ConfigMap", "secrets": "Secret"}[plural]
    found = [o for o in state["items"] if o["kind"] == kind and o["metadata"]["namespace"] == ns
             and o["metadata"]["name"] == name]
    if not found or name in env("FAKE_KUBE_GONE"):
        sys.exit(print(f'Error from server (NotFound): {plural} "{name}" not found', file=sys.stderr) or 1)
    meta = found[0]["metadata"]
    if name in env("FAKE_KUBE_FAIL"):
        sys.exit(print('Error from server (InternalError): an error on the server ("etcdserver: request timed out") '
                       'has prevented the request from succeeding', file=sys.stderr) or 1)
    if pre["uid"] != meta["uid"] or pre["resourceVersion"] != meta["resourceVersion"] or name in env("FAKE_KUBE_CONFLICT"):
        sys.exit(print(f'Error from server (Conflict): Operation cannot be fulfilled on configmaps "{name}": '
                       f'Precondition failed: UID in precondition: {pre["uid"]}, UID in object meta: {meta["uid"]}',
                       file=sys.stderr) or 1)
    state["items"].remove(found[0])
    json.dump(state, open(state_path, "w"))
    print(json.dumps({"kind": "Status", "apiVersion": "v1", "status": "Success",
                       "details": {"name": name, "kind": plural, "uid": meta["uid"]}}))
else:
    sys.exit(print(f"stand-in kubectl: unexpected {argv}", file=sys.stderr) or 2)
'''


class FakeKube:
    """The stand-in's state, log and knobs."""

    def __init__(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, state: Path = CLUSTER):
        self.bin = tmp_path / "bin"
        self.bin.mkdir()
        script = self.bin / "kubectl"
        script.write_text(STAND_IN.replace("PYTHON", sys.executable, 1))
        script.chmod(0o755)
        self.state = tmp_path / "state.json"
        self.state.write_text(state.read_text())
        self.log = tmp_path / "calls.jsonl"
        self.log.touch()
        monkeypatch.setenv("PATH", f"{self.bin}{os.pathsep}{os.environ['PATH']}")
        monkeypatch.setenv("FAKE_KUBE_STATE", str(self.state))
        monkeypatch.setenv("FAKE_KUBE_LOG", str(self.log))
        self.monkeypatch = monkeypatch

    def set(self, knob: str, *values: str) -> None:
        self.monkeypatch.setenv(f"FAKE_KUBE_{knob}", ",".join(values))

    def calls(self) -> list[dict]:
        return [json.loads(line) for line in self.log.read_text().splitlines()]

    def deletes(self) -> list[tuple[str, dict]]:
        return [(c["argv"][c["argv"].index("--raw") + 1], json.loads(c["stdin"]))
                for c in self.calls() if "delete" in c["argv"]]

    def live(self) -> list[dict]:
        return json.loads(self.state.read_text())["items"]


def gc_run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = gc_cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def planned(options: gc.Options) -> gc.CollectionPlan:
    objects = gc.parse_list(CLUSTER.read_bytes())
    return gc.plan_collection(objects, gc.parse_time(NOW.split("=")[1], "now"), options, gc.gc_table())


# --- offline: -f ---------------------------------------------------------------------------


def test_dry_run_prints_a_table_and_deletes_nothing(capsys):
    code, out, err = gc_run(capsys, "-f", str(CLUSTER), NOW, "--keep", "1")
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0].split() == ["NAMESPACE", "KIND", "FAMILY", "NAME", "AGE", "VERDICT", "REASON"]
    assert len(lines) == 1 + 20 + 1
    assert lines[2].split()[:6] == ["blog", "configmap", "app-config", "app-config-69hbb4m9f4", "25d", "delete"]
    assert lines[2].endswith("unused, older than 1h, not among the newest 1 (#2 of 2)")
    assert lines[-1] == (f"dry run from {CLUSTER}: 6 of 20 krmfn ConfigMaps would be deleted; 3 ConfigMaps "
                         "without the krmfn.dev/family label left alone; -f only plans: to delete them, run "
                         "krmfn gc --apply against the cluster")


def test_json_output_is_the_same_plan(capsys):
    code, out, _ = gc_run(capsys, "-f", str(CLUSTER), NOW, "--keep=2", "--min-age=30m", "-o", "json")
    assert code == 0
    doc = json.loads(out)
    expected = planned(gc.Options(2, gc.parse_duration("30m")))
    assert doc["rows"] == [r.to_json() for r in expected.rows]
    assert (doc["now"], doc["dryRun"], doc["keep"], doc["minAge"], doc["ignored"]) == (
        "2024-06-01T12:00:00Z", True, 2, "30m", 3)
    assert all("outcome" not in r for r in doc["rows"])


def test_a_yaml_file_and_stdin_are_read(capsys, tmp_path, monkeypatch):
    import io

    import yaml
    path = tmp_path / "live.yaml"
    path.write_text(yaml.safe_dump(json.loads(CLUSTER.read_text())))
    _, from_json, _ = gc_run(capsys, "-f", str(CLUSTER), NOW, "-o", "json")
    _, from_yaml, _ = gc_run(capsys, "-f", str(path), NOW, "-o", "json")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(CLUSTER.read_bytes())))
    _, from_stdin, _ = gc_run(capsys, "-f", "-", NOW, "-o", "json")
    assert from_json == from_yaml == from_stdin


@pytest.mark.parametrize("content,message", [
    ('{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}}',
     "live.json is kind 'ConfigMap', not a List; make it with `kubectl get configmaps,secrets,pods,replicasets,... -o json`."),
    ('{"kind": "List", "apiVersion": "v1", "items": [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": '
     '{"name": "c-1", "namespace": "a", "labels": {"krmfn.dev/family": "c"}, "creationTimestamp": "last tuesday"}}]}',
     "ConfigMap a/c-1 has creationTimestamp 'last tuesday', which is not an RFC 3339 time such as 2024-05-01T12:00:00Z."),
    ("{not json", "live.json is not valid JSON (Expecting property name enclosed in double quotes at line 1)."),
])
def test_bad_input_is_one_sentence_on_stderr_and_exit_2(tmp_path, content, message):
    """Through the real entry point, as a user runs it: no traceback."""
    path = tmp_path / "live.json"
    path.write_text(content)
    proc = subprocess.run([sys.executable, "-m", "krmfn", "gc", "-f", "live.json", NOW], cwd=tmp_path,
                          capture_output=True, text=True)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr == f"krmfn: {message}\n"


def _live(item: dict) -> str:
    base = {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "c-1", "namespace": "a", "labels": {"krmfn.dev/family": "c"}}}
    for path, value in item.items():
        *parents, leaf = path.split(".")
        node = base
        for key in parents:
            node = node[key]
        node[leaf] = value
    return json.dumps({"kind": "List", "apiVersion": "v1", "items": [base]})


@pytest.mark.parametrize("field,value,wanted", [
    ("metadata.namespace", 7, "metadata.namespace that is a number, not a string"),
    ("metadata.name", ["c"], "metadata.name that is a list, not a string"),
    ("metadata.uid", True, "metadata.uid that is a boolean, not a string"),
    ("metadata.resourceVersion", {"v": 1}, "metadata.resourceVersion that is a map, not a string"),
    ("kind", None, "kind that is null, not a string"),
    ("apiVersion", 1, "apiVersion that is a number, not a string"),
    ("metadata.labels", "x=y", "metadata.labels that is a string, not a map"),
    ("metadata.labels", {"krmfn.dev/family": 3}, "metadata.labels that is a number, not a map of strings"),
    ("metadata.ownerReferences", {"kind": "ReplicaSet"}, "metadata.ownerReferences that is a map, not a list of maps"),
])
def test_every_malformed_field_of_a_live_state_file_is_one_sentence(capsys, tmp_path, field, value, wanted):
    """A hand-edited file: the item and the field named, the value never shown (it may be a Secret's)."""
    path = tmp_path / "live.json"
    path.write_text(_live({field: value}))
    code, out, err = gc_run(capsys, "-f", str(path), NOW)
    assert (code, out) == (2, "") and err.count("\n") == 1 and err.startswith("krmfn: item 0 of ")
    if wanted:
        assert wanted in err
    assert "internal error" not in err and "Traceback" not in err


def test_a_nesting_bomb_in_a_json_live_state_file_is_one_sentence(capsys, tmp_path):
    path = tmp_path / "live.json"
    path.write_text('{"kind": "List", "items": ' + "[" * 100_000 + "]" * 100_000 + "}")
    code, out, err = gc_run(capsys, "-f", str(path), NOW)
    assert (code, out, err) == (2, "", f"krmfn: {path} nests lists or maps too deeply to be a kubectl List.\n")


def test_the_live_state_file_is_read_to_its_limit_and_no_further(capsys, monkeypatch):
    """`-f /dev/zero` ends with a sentence, having read the limit plus one byte."""
    monkeypatch.setattr(gc, "MAX_LIVE_STATE_BYTES", 1 << 20)
    code, out, err = gc_run(capsys, "-f", "/dev/zero", NOW)
    assert (code, out) == (2, "")
    assert err == ("krmfn: /dev/zero is larger than 1 MiB, the most gc reads as live state; plan one namespace at a "
                   "time (kubectl get -n NS).\n")


def test_what_kubectl_prints_is_read_to_the_limit_and_no_further(capsys, tmp_path, monkeypatch):
    """A kubectl (or a proxy in front of it) that never stops printing: gc ends with a sentence."""
    monkeypatch.setattr(gc, "MAX_LIVE_STATE_BYTES", 1 << 20)
    flood = tmp_path / "kubectl"
    flood.write_text("#!/bin/sh\nexec cat /dev/zero\n")
    flood.chmod(0o755)
    code, out, err = gc_run(capsys, "-A", NOW, "--kubectl", str(flood))
    assert (code, out) == (2, "")
    assert err == ("krmfn: `kubectl get configmaps` printed more than 1 MiB, the most gc reads of one kind; run gc "
                   "one namespace at a time (-n NS).\n")


@pytest.mark.parametrize("argv,message", [
    (["-f", "/nonexistent/live.json"], "krmfn: cannot read /nonexistent/live.json (No such file or directory).\n"),
    (["-f", str(CLUSTER), "--apply"], "krmfn: --apply reads live state itself; -f is for offline planning only.\n"),
    (["--kubectl", "/nonexistent/kubectl"],
     "krmfn: /nonexistent/kubectl does not exist; pass --kubectl with kubectl's path, or plan offline with -f.\n"),
    (["-f", str(CLUSTER), "--skip-kind", "pod"],
     "krmfn: --skip-kind says what not to read from the cluster; with -f, leave those kinds out of the file.\n"),
])
def test_errors_before_planning_exit_2(capsys, argv, message):
    code, out, err = gc_run(capsys, *argv)
    assert (code, out, err) == (2, "", message)


@pytest.mark.parametrize("argv,fragment", [
    (["--min-age", "soon"], "argument --min-age: 'soon' is not a duration such as 1h, 30m, 1h30m, 2d or 0"),
    (["--keep", "-1"], "argument --keep: '-1' is not a whole number of versions from 0 to 1000000"),
    (["--keep", "99999999999999999999"], "argument --keep: '99999999999999999999' is not a whole number of versions"),
    (["--keep", "\uff15"], "is not a whole number of versions"),  # a fullwidth 5: int() takes it, kubectl would not
    (["--keep", "1_0"], "argument --keep: '1_0' is not a whole number of versions"),
    (["--min-age", "99999999999d"], "argument --min-age: '99999999999d' is longer than 36500d (100 years)"),
    (["--min-age", "9" * 400 + "s"], "is longer than 36500d (100 years), the longest duration gc takes"),
    (["-n", "a", "-A"], "argument -A/--all-namespaces: not allowed with argument -n/--namespace"),
    (["--now", "noon"], "argument --now:"),
])
def test_bad_arguments_exit_2_with_one_sentence(capsys, argv, fragment):
    """As every krmfn mode answers them: one line, prefixed krmfn:, pointing at --help."""
    code, out, err = gc_run(capsys, *argv)
    assert code == 2 and out == "" and fragment in err and "Traceback" not in err
    assert err.startswith("krmfn: ") and err.endswith(" (see krmfn gc --help)\n") and err.count("\n") == 1


def test_a_function_config_that_is_not_one_is_reported(capsys, tmp_path):
    path = tmp_path / "fn.yaml"
    path.write_text("apiVersion: v1\nkind: Secret\nmetadata: {name: x}\n")
    code, _, err = gc_run(capsys, "-f", str(CLUSTER), NOW, "--function-config", str(path))
    assert code == 2 and err.startswith(f"krmfn: {path} is not a krmfn functionConfig: functionConfig is kind 'Secret'")


# --- live: the stand-in kubectl ------------------------------------------------------------------

# Each run of gc against the stand-in starts one kubectl process per resource type it reads (about
# 38, a second a run): outside the inner loop, with the tests that drive real tools, so that the
# inner loop stays under a minute (issue 22). tests/integration/test_gc_kubectl.py drives the
# real kubectl the same way.
LIVE = pytest.mark.integration


ROLLOUT_SPECS = """\
apiVersion: fn.krmfn.dev/v1alpha1
kind: ContentHash
metadata: {name: content-hash}
fieldSpecs:
- {kind: Rollout, group: argoproj.io, path: spec/template/spec/containers/envFrom/configMapRef/name}
"""


@LIVE
def test_apply_reads_every_referrer_kind_and_deletes_one_at_a_time_with_preconditions(capsys, tmp_path, monkeypatch):
    kube = FakeKube(tmp_path, monkeypatch)
    fn = tmp_path / "fn.yaml"
    fn.write_text(ROLLOUT_SPECS)  # the user's own spec for a kind this cluster does not serve: skipped with a note
    monkeypatch.setenv("FAKE_KUBE_UNSERVED", "rollout,workflow")
    before = {(o["metadata"]["namespace"], o["metadata"]["name"]): o["metadata"] for o in kube.live()}
    code, out, err = gc_run(capsys, "--apply", "-A", "--keep", "1", NOW, "--function-config", str(fn))
    expected = planned(gc.Options(keep=1)).deletions
    assert code == 0
    assert err == ("krmfn: skipped kinds the cluster does not serve: rollout.argoproj.io, "
                   "workflow.argoproj.io\n")

    calls = [c["argv"] for c in kube.calls()]
    gets = [c for c in calls if c[0] == "get"]
    assert gets[0] == ["get", "configmaps", "-o", "json", "--all-namespaces", "-l", "krmfn.dev/family"]
    assert gets[1] == ["get", "secrets", "-o", "json", "--all-namespaces", "-l", "krmfn.dev/family"]
    renamed = len(RENAMED)  # then the custom resources krmfn renames, by plural and group
    assert [g[1] for g in gets[2:renamed]] == [k.resource for k in RENAMED[2:]]
    assert [g[1] for g in gets[renamed:]] == gc.referrer_resources(gc.gc_table())  # Rollout is in the table already
    assert all(g[2:] == ["-o", "json", "--all-namespaces"] for g in gets[renamed:])
    assert calls[len(gets):] == [["delete", "--raw", f"/api/v1/namespaces/{r.namespace}/configmaps/{r.name}", "-f", "-"]
                                 for r in expected]
    for (path, body), row in zip(kube.deletes(), expected):
        meta = before[row.namespace, row.name]
        assert body == {"kind": "DeleteOptions", "apiVersion": "v1",
                        "preconditions": {"uid": meta["uid"], "resourceVersion": meta["resourceVersion"]}}
        assert "krmfn.dev/family" in meta["labels"]
    report = out.splitlines()[-len(expected):]
    assert report == [f"deleted configmap {r.namespace}/{r.name}" for r in expected]
    assert len(expected) == 6

    # Run again: the deleted versions are gone, nothing more to do.
    code, out, _ = gc_run(capsys, "-A", "--keep", "1", NOW)
    assert code == 0 and out.splitlines()[-1].startswith("dry run: 0 of 14 krmfn ConfigMaps would be deleted")


@LIVE
def test_a_failed_deletion_does_not_stop_the_others_and_sets_the_exit_code(capsys, tmp_path, monkeypatch):
    kube = FakeKube(tmp_path, monkeypatch)
    expected = planned(gc.Options(keep=1)).deletions
    kube.set("FAIL", expected[0].name)
    kube.set("CONFLICT", expected[2].name)
    kube.set("GONE", expected[4].name)
    code, out, err = gc_run(capsys, "--apply", "-A", "--keep", "1", NOW, "-o", "json")
    assert code == 1
    assert err == "krmfn: 2 of 6 deletions failed\n"
    assert len(kube.deletes()) == 6  # every one tried
    outcomes = {(r["namespace"], r["name"]): (r["outcome"], r.get("error", "")) for r in json.loads(out)["rows"]
                if "outcome" in r}
    statuses = [outcomes[r.namespace, r.name][0] for r in expected]
    assert statuses == ["failed", "deleted", "failed", "deleted", "already gone", "deleted"]
    assert outcomes[expected[0].namespace, expected[0].name][1].startswith("Error from server (InternalError)")
    assert outcomes[expected[2].namespace, expected[2].name][1].startswith(
        "changed or replaced since it was read; not deleted: Error from server (Conflict)")


@LIVE
def test_each_outcome_is_reported_as_it_happens_in_table_mode(capsys, tmp_path, monkeypatch):
    kube = FakeKube(tmp_path, monkeypatch)
    expected = planned(gc.Options(keep=1)).deletions
    kube.set("CONFLICT", expected[1].name)
    code, out, err = gc_run(capsys, "--apply", "-A", "--keep", "1", NOW)
    assert code == 1
    lines = out.splitlines()[-6:]
    assert lines[0] == f"deleted configmap {expected[0].namespace}/{expected[0].name}"
    assert lines[1].startswith(f"failed configmap {expected[1].namespace}/{expected[1].name}: changed or replaced")
    assert err == "krmfn: 1 of 6 deletions failed\n"


@LIVE
def test_context_kubeconfig_and_namespace_reach_every_kubectl_call(capsys, tmp_path, monkeypatch):
    kube = FakeKube(tmp_path, monkeypatch)
    code, out, _ = gc_run(capsys, "--apply", "--context", "prod", "--kubeconfig", "/etc/kube/config",
                          "-n", "blog", "--keep", "1", NOW)
    assert code == 0
    calls = [c["argv"] for c in kube.calls()]
    assert all(c[:4] == ["--kubeconfig", "/etc/kube/config", "--context", "prod"] for c in calls)
    assert all(c[-2:] == ["--namespace", "blog"] or c[-4:-2] == ["--namespace", "blog"]
               for c in calls if "get" in c)
    assert [d[0] for d in kube.deletes()] == ["/api/v1/namespaces/blog/configmaps/app-config-69hbb4m9f4"]


@LIVE
def test_without_a_namespace_kubectl_uses_its_context_default(capsys, tmp_path, monkeypatch):
    kube = FakeKube(tmp_path, monkeypatch)
    code, out, _ = gc_run(capsys, NOW)
    assert code == 0
    assert all("--namespace" not in c["argv"] and "--all-namespaces" not in c["argv"] for c in kube.calls())
    assert out.startswith("NAMESPACE") and "0 of 0" in out  # the stand-in's "default" namespace is empty


@LIVE
def test_the_dry_run_never_calls_delete(capsys, tmp_path, monkeypatch):
    kube = FakeKube(tmp_path, monkeypatch)
    code, _, _ = gc_run(capsys, "-A", "--keep", "0", "--min-age", "0", NOW)
    assert code == 0 and kube.deletes() == []


@LIVE
def test_unlabelled_configmaps_are_never_deleted_even_if_listed(capsys, tmp_path, monkeypatch):
    kube = FakeKube(tmp_path, monkeypatch)
    kube.set("IGNORE_SELECTOR", "1")  # as if the label selector were lost on the way
    code, _, _ = gc_run(capsys, "--apply", "-A", "--keep", "0", "--min-age", "0", NOW)
    assert code == 0
    deleted = {path.rsplit("/", 1)[1] for path, _ in kube.deletes()}
    assert deleted and not deleted & {"kube-root-ca.crt", "legacy-settings"}
    assert {"kube-root-ca.crt", "legacy-settings"} <= {o["metadata"]["name"] for o in kube.live()}


@LIVE
def test_a_referrer_kind_kubectl_cannot_read_stops_the_run_before_any_deletion(capsys, tmp_path, monkeypatch):
    kube = FakeKube(tmp_path, monkeypatch)
    kube.set("FORBIDDEN", "replicaset")
    code, out, err = gc_run(capsys, "--apply", "-A", "--keep", "1", NOW)
    assert code == 2 and out == "" and kube.deletes() == []
    assert err == ('krmfn: `kubectl get replicaset` failed: Error from server (Forbidden): replicasets is forbidden: '
                   'User "system:serviceaccount:krmfn-system:krmfn-gc" cannot list resource "replicasets" in API group "" '
                   'at the cluster scope; let gc list replicaset, or pass --skip-kind replicaset if none of its objects '
                   'can name a krmfn ConfigMap or Secret.\n')


@LIVE
def test_skip_kind_reads_the_cluster_without_that_kind_and_says_so(capsys, tmp_path, monkeypatch):
    """The way past a Forbidden kind, for one who knows nothing of that kind uses krmfn's ConfigMaps."""
    kube = FakeKube(tmp_path, monkeypatch)
    kube.set("FORBIDDEN", "cronjob")
    code, out, err = gc_run(capsys, "-A", NOW, "--skip-kind", "CronJob")
    assert code == 0, err
    assert err == "krmfn: not read, as --skip-kind asked: cronjob.batch\n"
    assert not [c for c in kube.calls() if c["argv"][:2] == ["get", "cronjob.batch"]]
    assert out.splitlines()[-1].startswith("dry run: ")


@LIVE
def test_skip_kind_must_name_a_kind_gc_reads(capsys, tmp_path, monkeypatch):
    kube = FakeKube(tmp_path, monkeypatch)
    code, out, err = gc_run(capsys, "-A", NOW, "--skip-kind", "replicaset,pods")
    assert (code, out) == (2, "") and kube.calls() == []
    assert err.startswith("krmfn: --skip-kind pods names no kind gc reads; it reads pod, podtemplate, ")


@LIVE
def test_a_cluster_that_does_not_serve_a_kubernetes_kind_is_not_the_cluster_meant(capsys, tmp_path, monkeypatch):
    """A CRD that is not installed holds nothing and is skipped; Kubernetes' own kinds are always
    served, so one that is not means a wrong context or an odd proxy: gc stops."""
    kube = FakeKube(tmp_path, monkeypatch)
    kube.set("UNSERVED", "statefulset")
    code, out, err = gc_run(capsys, "--apply", "-A", "--keep", "1", NOW)
    assert (code, out) == (2, "") and kube.deletes() == []
    assert err == ("krmfn: the cluster does not serve statefulset, which every Kubernetes API server does: check "
                   "--context and --kubeconfig, or pass --skip-kind statefulset.\n")
    code, _, err = gc_run(capsys, "-A", "--keep", "1", NOW, "--skip-kind", "statefulset")
    assert code == 0 and err == "krmfn: not read, as --skip-kind asked: statefulset, statefulset.apps.kruise.io\n"


CONFIGMAPS_ONLY = {"apiVersion": "v1", "kind": "List",
                   "items": [o for o in json.loads(CLUSTER.read_text())["items"] if o["kind"] == "ConfigMap"]}


def test_a_file_of_configmaps_alone_is_refused_unless_allowed(capsys, tmp_path):
    """The issue's case: a List with ConfigMaps and no workloads planned the deletion of most versions
    without a word. Now it is an error naming the flag that allows it."""
    path = tmp_path / "configmaps.json"
    path.write_text(json.dumps(CONFIGMAPS_ONLY))
    code, out, err = gc_run(capsys, "-f", str(path), NOW)
    assert (code, out) == (2, "")
    assert err.startswith("krmfn: the live state holds 20 krmfn ConfigMaps and no object that could use one (no Pod,")
    assert err.endswith("or pass --allow-no-referrers if nothing uses them.\n") and err.count("\n") == 1
    code, out, err = gc_run(capsys, "-f", str(path), NOW, "--allow-no-referrers")
    assert code == 0 and err == ""
    assert " 3 of 20 krmfn ConfigMaps would be deleted" in out.splitlines()[-1]


@LIVE
def test_a_cluster_read_that_finds_no_referrer_deletes_nothing_unless_allowed(capsys, tmp_path, monkeypatch):
    state = tmp_path / "configmaps.json"
    state.write_text(json.dumps(CONFIGMAPS_ONLY))
    kube = FakeKube(tmp_path, monkeypatch, state)
    code, out, err = gc_run(capsys, "--apply", "-A", NOW)
    assert (code, out) == (2, "") and kube.deletes() == []
    assert "--allow-no-referrers" in err
    code, out, _ = gc_run(capsys, "--apply", "-A", NOW, "--allow-no-referrers")
    assert code == 0 and len(kube.deletes()) == 3


@LIVE
def test_the_footer_says_what_to_do_next_only_when_there_is_something_to_do(capsys, tmp_path, monkeypatch):
    FakeKube(tmp_path, monkeypatch)
    _, out, _ = gc_run(capsys, "-A", "--keep", "1", NOW)
    assert out.splitlines()[-1] == "dry run: 6 of 20 krmfn ConfigMaps would be deleted; run again with --apply to delete them"
    _, out, _ = gc_run(capsys, "-A", "--keep", "9", NOW)
    assert out.splitlines()[-1] == "dry run: 0 of 20 krmfn ConfigMaps would be deleted"


def test_ages_in_the_table_read_like_kubectl(capsys, tmp_path):
    """The issue's 2d1s: two days and a second is 2d, as kubectl get says."""
    live = json.loads(CLUSTER.read_text())
    now = "--now=2024-06-03T12:00:01Z"  # shop's newest app-config: 2 days, 10 minutes and a second
    path = tmp_path / "live.json"
    path.write_text(json.dumps(live))
    _, out, _ = gc_run(capsys, "-f", str(path), now, "--keep", "1")
    ages = {line.split()[3]: line.split()[4] for line in out.splitlines()[1:-1]}
    assert ages["app-config-25d827hmkd"] == "2d" and ages["report-config-7t98bc227t"] == "2d3h"
    assert all(not age.endswith("s") or len(age) <= 4 for age in ages.values())


def test_help_documents_output_exit_codes_and_the_dry_run():
    done = subprocess.run([sys.executable, "-m", "krmfn", "gc", "--help"], capture_output=True, text=True)
    assert done.returncode == 0
    for text in ("-o {table,json}", "--allow-no-referrers", "--skip-kind", "A dry run unless --apply",
                 "-f plans from a saved", "always a dry run", gc_cli.EXIT_STATUS):
        assert text in done.stdout, text
    assert f"```text\n{gc_cli.EXIT_STATUS}```" in (TESTS.parent / "docs" / "gc.md").read_text()  # the docs say the same


@pytest.mark.parametrize("flag", ["-V", "--version"])
def test_version(flag):
    from krmfn import __version__
    for argv in (["gc", flag], [flag]):
        done = subprocess.run([sys.executable, "-m", "krmfn", *argv], capture_output=True, text=True)
        assert (done.returncode, done.stdout, done.stderr) == (0, f"krmfn {__version__}\n", ""), argv


# --- Secrets --------------------------------------------------------------------------------

SECRETS = FIXTURES / "secrets.json"


def planted_values() -> list[str]:
    """Every value the Secrets of secrets.json hold, as text and as base64."""
    import base64

    values = [i["data"]["token"] for i in json.loads(SECRETS.read_text())["items"] if i["kind"] == "Secret"]
    return values + [base64.b64decode(v).decode() for v in values] + ["PLANTED"]


@LIVE
def test_secrets_are_planned_and_deleted_and_no_value_is_ever_printed(capsys, tmp_path, monkeypatch):
    runs = [gc_run(capsys, "-f", str(SECRETS), NOW, "--keep", "1"),
            gc_run(capsys, "-f", str(SECRETS), NOW, "--keep", "1", "-o", "json")]
    kube = FakeKube(tmp_path, monkeypatch, SECRETS)
    runs.append(gc_run(capsys, "--apply", "-n", "pay", "--keep", "1", NOW, "--debug"))
    runs.append(gc_run(capsys, "--apply", "-n", "pay", "--keep", "1", NOW, "-o", "json"))
    for code, out, err in runs:
        assert code == 0, err
        assert not [v for v in planted_values() if v in out or v in err]
    _, table, _ = runs[0]
    assert "3 of 8 krmfn ConfigMaps and Secrets would be deleted" in table.splitlines()[-1]
    deleted = [c["argv"][2] for c in kube.calls() if c["argv"][0] == "delete"]
    assert len(deleted) == 3 and all(p.startswith("/api/v1/namespaces/pay/secrets/") for p in deleted)
    assert {o["metadata"]["name"] for o in kube.live() if o["kind"] == "Secret"} >= {"default-token"}


@LIVE
def test_kinds_configmap_never_reads_secrets(capsys, tmp_path, monkeypatch):
    kube = FakeKube(tmp_path, monkeypatch, SECRETS)
    code, out, err = gc_run(capsys, "-n", "pay", "--keep", "1", NOW, "--kinds", "ConfigMap")
    assert code == 0, err
    assert not [c for c in kube.calls() if c["argv"][:2] == ["get", "secrets"]]
    assert out.splitlines()[-1].startswith("dry run: 0 of 1 krmfn ConfigMaps would be deleted")
    code, _, err = gc_run(capsys, "-n", "pay", NOW, "--kinds", "Pod")
    assert code == 2 and err == ("krmfn: --kinds Pod is not a kind krmfn renames; use "
                                      f"{', '.join(k.kind for k in RENAMED)}.\n")


@LIVE
def test_a_slow_read_is_said_on_stderr_with_v_and_not_when_stderr_is_a_file(capsys, tmp_path, monkeypatch):
    """gc reads for as long as the API server takes; a read slower than a second gets a line saying
    what was read and how long it took (issue #36): with -v or on a terminal, never into a log file."""
    FakeKube(tmp_path, monkeypatch)
    monkeypatch.setenv("FAKE_KUBE_SLOW", "deployment")
    code, _, err = gc_run(capsys, "-v", "-A", NOW)
    assert code == 0
    [line] = [x for x in err.splitlines() if x.startswith("krmfn: read ")]
    assert line.startswith("krmfn: read deployment") and line.endswith(" s")
    code, _, quiet = gc_run(capsys, "-A", NOW)  # capsys's stderr is no terminal
    assert code == 0 and "krmfn: read " not in quiet


def test_kubectl_given_as_a_path_is_named_as_missing_not_as_off_path(capsys, tmp_path):
    code, _, err = gc_run(capsys, "--kubectl", str(tmp_path / "nowhere" / "kubectl"), NOW)
    assert code == 2 and err.strip() == (f"krmfn: {tmp_path / 'nowhere' / 'kubectl'} does not exist; pass --kubectl "
                                         "with kubectl's path, or plan offline with -f.")
    code, _, err = gc_run(capsys, "--kubectl", "no-such-kubectl", NOW)
    assert code == 2 and "no-such-kubectl is not on PATH" in err
