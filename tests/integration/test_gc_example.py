"""examples/gc-cronjob: the RBAC must cover every kind gc reads and grant nothing more.

The kinds come from the live reference table, so a referrer kind added to it without a
rule here fails this test rather than the CronJob in a cluster (a Forbidden list stops gc).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from tooling import REPO

from krmfn.cli import gc as gc_cli
from krmfn.core.references.kinds import RENAMED
from krmfn.gc import planner as gc

EXAMPLE = REPO / "examples" / "gc-cronjob"


def docs(name: str) -> list[dict]:
    return [d for d in yaml.safe_load_all((EXAMPLE / name).read_text()) if d]


def one(kind: str) -> dict:
    [doc] = [d for name in ("rbac.yaml", "cronjob.yaml") for d in docs(name) if d["kind"] == kind]
    return doc


def plural(kind: str) -> str:
    """The resource name RBAC uses: Kubernetes' own guess (meta.UnsafeGuessKindToResource), except
    that a vowel before the final y keeps it, as the CRDs declare (Istio's Gateway: gateways, where
    the guess says gatewaies)."""
    k = kind.lower()
    if k.endswith("s"):
        return k + "es"
    return k[:-1] + "ies" if k.endswith("y") and k[-2] not in "aeiou" else k + "s"


def granted() -> dict[str, set[str]]:
    """resource (group-qualified: ``replicasets.apps``) -> verbs."""
    out: dict[str, set[str]] = {}
    for rule in one("ClusterRole")["rules"]:
        for group in rule["apiGroups"]:
            for resource in rule["resources"]:
                out.setdefault(f"{resource}.{group}" if group else resource, set()).update(rule["verbs"])
    return out


def test_every_kind_gc_reads_can_be_listed():
    rights = granted()
    for kind in RENAMED:  # read and deleted by gc: ConfigMaps, Secrets, the renamed custom resources
        assert rights[kind.resource] == {"list", "delete"}, kind.resource  # a referrer kind too (a SecretProviderClass)
    table = gc.gc_table()
    for resource in gc.referrer_resources(table):
        kind, _, group = resource.partition(".")
        spec_kind = next(k for k in table.by_kind if k.lower() == kind)
        name = plural(spec_kind)
        matches = [r for r in rights if r == (f"{name}.{group}" if group else name) or (not group and r.split(".")[0] == name)]
        assert matches and all("list" in rights[m] for m in matches), f"no list rule for {resource}"


def test_nothing_but_the_renamed_kinds_can_be_deleted_and_no_wildcards():
    for resource, verbs in granted().items():
        assert "*" not in resource and "*" not in verbs
        renamed = {k.resource for k in RENAMED}
        assert verbs <= ({"list", "delete"} if resource in renamed else {"get", "list"}), resource


def test_the_cronjob_runs_gc_apply_as_the_bound_service_account():
    cron, binding, account = one("CronJob"), one("ClusterRoleBinding"), one("ServiceAccount")
    pod = cron["spec"]["jobTemplate"]["spec"]["template"]["spec"]
    assert pod["serviceAccountName"] == account["metadata"]["name"]
    assert binding["subjects"] == [{"kind": "ServiceAccount", "name": account["metadata"]["name"],
                                    "namespace": account["metadata"]["namespace"]}]
    assert binding["roleRef"]["name"] == one("ClusterRole")["metadata"]["name"]
    [container] = pod["containers"]
    args = gc_cli._parser().parse_args(container["args"])
    assert args.apply and args.all_namespaces and args.keep == 5
    assert cron["spec"]["concurrencyPolicy"] == "Forbid"
    assert container["securityContext"]["readOnlyRootFilesystem"] is True


@pytest.mark.skipif(shutil.which("kubectl") is None, reason="kubectl is not on PATH")
def test_the_example_builds_with_kubectl_kustomize():
    proc = subprocess.run(["kubectl", "kustomize", str(EXAMPLE)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    kinds = [d["kind"] for d in yaml.safe_load_all(proc.stdout)]
    assert sorted(kinds) == ["ClusterRole", "ClusterRoleBinding", "CronJob", "Namespace", "ServiceAccount"]


def test_the_cronjob_image_builds_offline_and_plans_as_the_host_does(docker: str, image: str) -> None:
    """make gc-image: the krmfn image plus the official kubectl, built with --network none; the
    CronJob's image name; and gc in it, as the CronJob's user, plans a live-state file as on the host."""
    from containers import example_image

    tag = example_image(image, "gc")
    [container] = one("CronJob")["spec"]["jobTemplate"]["spec"]["template"]["spec"]["containers"]
    assert container["image"] == tag
    fixtures = REPO / "tests" / "fixtures" / "gc"
    args = ["-f", "/live/cluster.json", "--now=2024-06-01T12:00:00Z", "-o", "json"]
    done = subprocess.run([docker, "run", "--rm", "--network", "none", "--read-only", "-v", f"{fixtures}:/live:ro",
                           tag, *args], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    host = subprocess.run([sys.executable, "-m", "krmfn", "gc", "-f", str(fixtures / "cluster.json"), *args[2:]],
                          capture_output=True, text=True, cwd=REPO, timeout=120)
    assert done.stdout == host.stdout
    client = subprocess.run([docker, "run", "--rm", "--network", "none", "--entrypoint", "kubectl", tag, "version",
                             "--client"], capture_output=True, text=True, timeout=60)
    assert client.stdout.splitlines()[0] == "Client Version: v1.32.3"
    uid = subprocess.run([docker, "run", "--rm", "--entrypoint", "id", tag, "-u"], capture_output=True, text=True,
                         timeout=60)
    assert uid.stdout.strip() == "65534"
