"""core.report.rotation on its own: what a workload reads that changes outside Git, the warning
when nothing rolls it, and the precise Reloader annotations ``rotation: reloader`` writes."""

from __future__ import annotations

from units import scanned

from krmfn.core.config import Config
from krmfn.core.references.lookup import Index
from krmfn.core.report.rotation import Outside, Reads, findings, reads, reload_edits
from krmfn.yaml.textedit import splice

ITEMS = """
- apiVersion: v1
  kind: Secret
  metadata:
    name: tls
    annotations: {cert-manager.io/certificate-name: web}
  type: kubernetes.io/tls
- apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: web
    annotations: %s
  spec:
    template:
      spec:
        containers:
        - name: app
          envFrom:
          - secretRef: {name: tls}
          - secretRef: {name: from-another-team}
"""

CERT = Outside("Secret", "tls", "cert-manager fills it", True)


def scan_of(annotations: str = "{}"):
    _, config, s = scanned(ITEMS % annotations)
    return s, config


def test_a_workloads_reads_say_which_objects_change_outside_git_and_why():
    s, config = scan_of()
    found = reads(s, Index.of(s, config.algorithm), {}, "default", lambda res, node: res.tree.path_of(node, res.node))
    assert list(found) == [1]
    assert [(o.kind, o.name, o.known) for o in found[1].outside] == [("Secret", "tls", True),
                                                                    ("Secret", "from-another-team", False)]
    assert found[1].outside[0].why.startswith("cert-manager fills it")


def test_nothing_rolling_a_deployment_that_reads_a_rotated_secret_is_a_warning():
    s, config = scan_of()
    (result,) = findings(s, {1: Reads([CERT])}, config)
    assert (result.severity, result.topic, result.resource.name) == ("warning", "rotation", "web")
    assert result.message == ("nothing rolls this Deployment when Secret tls changes outside Git: set rotation: "
                              "reloader to have Reloader roll it on exactly these (docs/rotation.md)")


def test_a_blanket_reloader_mark_gets_the_precise_one_to_write_instead():
    s, config = scan_of('{reloader.stakater.com/auto: "true"}')
    (result,) = findings(s, {1: Reads([CERT])}, config)
    assert result.topic == "reloader-auto" and result.field_path == "metadata.annotations[reloader.stakater.com/auto]"
    assert 'secret.reloader.stakater.com/reload: "tls"' in result.detail


def test_rotation_reloader_writes_the_reload_annotation_naming_exactly_what_rotates():
    s, _ = scan_of()
    edits = reload_edits(s, {1: Reads([CERT, Outside("Secret", "db", "an operator fills it", True)])})
    new = splice(s.resources[1].source, edits[1])
    assert b'    annotations: {secret.reloader.stakater.com/reload: "db,tls"}\n' in new


def test_a_workload_that_already_names_them_gets_no_edit():
    s, _ = scan_of('{secret.reloader.stakater.com/reload: "tls"}')
    assert reload_edits(s, {1: Reads([CERT])}) == {}
    assert findings(s, {1: Reads([CERT])}, Config()) == []  # the user's own list: theirs to keep right
