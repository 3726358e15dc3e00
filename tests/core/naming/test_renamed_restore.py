"""core.naming.renamed and core.naming.restore on their own: the rename and the way back, as edits
of the object's own text that keep its comments, indentation and flow maps."""

from __future__ import annotations

from krmfn.core.naming.renamed import owned, renamed_edits
from krmfn.core.naming.restore import renamed_before, restore_edits
from krmfn.krm.resource import read_resource
from krmfn.yaml.textedit import splice

# as kubectl create configmap --dry-run=client -o yaml writes one, in a list, with a comment
CONFIG_MAP = b"""- apiVersion: v1
  kind: ConfigMap
  metadata:
      name: app-config   # keep me
  data:
    a: "1"
"""

HASHED = b"""- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: app-config-h29d89cmmt
    annotations:
      krmfn.dev/original-name: app-config
      team: web
    labels:
      krmfn.dev/family: app-config
  data: {a: "1"}
  immutable: true
"""


def test_the_rename_writes_the_name_marks_and_immutable_in_the_objects_own_indentation():
    res = read_resource(CONFIG_MAP, 0)
    out = splice(CONFIG_MAP, renamed_edits(res, "app-config", "app-config-h29d89cmmt", {}))
    assert out == (b"- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n      name: app-config-h29d89cmmt   # keep me\n"
                   b"      annotations:\n          krmfn.dev/original-name: app-config\n"
                   b"      labels:\n          krmfn.dev/family: app-config\n"
                   b"  data:\n    a: \"1\"\n  immutable: true\n")


def test_a_kind_without_immutable_is_not_given_it():
    res = read_resource(CONFIG_MAP, 0)
    out = splice(CONFIG_MAP, renamed_edits(res, "app-config", "app-config-x", {}, immutable=False))
    assert b"immutable" not in out and b"name: app-config-x" in out


def test_retention_annotations_are_merged_with_what_the_object_has():
    res = read_resource(HASHED, 0)
    annotations, labels = owned(res, "app-config", {"argocd.argoproj.io/sync-options": "Prune=false"})
    assert annotations == {"krmfn.dev/original-name": "app-config", "argocd.argoproj.io/sync-options": "Prune=false"}
    assert labels == {"krmfn.dev/family": "app-config"}


def test_an_object_renamed_before_is_known_by_its_original_name_annotation():
    assert renamed_before(read_resource(HASHED, 0), "app-config")
    assert not renamed_before(read_resource(HASHED, 0), "other")
    assert not renamed_before(read_resource(CONFIG_MAP, 0), "app-config")


def test_the_restore_gives_the_name_back_and_removes_only_krmfns_own_marks():
    res = read_resource(HASHED, 0)
    out = splice(HASHED, restore_edits(res, "app-config"))
    assert out == (b"- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: app-config\n    annotations:\n"
                   b"      team: web\n  data: {a: \"1\"}\n")


def test_restoring_an_object_never_renamed_changes_nothing():
    assert restore_edits(read_resource(CONFIG_MAP, 0), "app-config") == []
