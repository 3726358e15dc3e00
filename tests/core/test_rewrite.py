"""The rename and the rewrite, end to end through the ResourceList function."""

from __future__ import annotations

import pytest
from conftest import exit_code, items_by_name, load, resource_list, run

from krmfn.core.naming import hashing

CM = """\
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: {name}
    {namespace}
    annotations:
      krmfn.dev/content-hash: "{optin}"
  data:
    key: {value}
"""


def cm(name="app", value="one", optin="true", namespace=None):
    ns = f"namespace: {namespace}" if namespace else ""
    return CM.format(name=name, value=value, optin=optin, namespace=ns)


def suffix_of(value="one"):
    return hashing.suffix("kustomize", {"key": value}, None)


POD_SPEC = """\
      containers:
      - name: main
        image: nginx
        envFrom:
        - configMapRef:
            name: {ref}
        env:
        - name: A
          valueFrom:
            configMapKeyRef:
              name: {ref}
              key: key
      initContainers:
      - name: init
        image: busybox
        envFrom:
        - configMapRef: {{name: {ref}}}
      ephemeralContainers:
      - name: debug
        image: busybox
        env:
        - name: B
          valueFrom:
            configMapKeyRef: {{name: {ref}, key: key}}
      volumes:
      - name: plain
        configMap:
          name: {ref}
      - name: projected
        projected:
          sources:
          - configMap:
              name: {ref}
          - secret:
              name: {ref}
"""

WORKLOADS = {
    ("v1", "Pod"): ("spec", 0),
    ("v1", "PodTemplate"): ("template/spec", 0),
    ("v1", "ReplicationController"): ("spec/template/spec", 0),
    ("apps/v1", "Deployment"): ("spec/template/spec", 0),
    ("apps/v1", "ReplicaSet"): ("spec/template/spec", 0),
    ("apps/v1", "DaemonSet"): ("spec/template/spec", 0),
    ("apps/v1", "StatefulSet"): ("spec/template/spec", 0),
    ("batch/v1", "Job"): ("spec/template/spec", 0),
    ("batch/v1", "CronJob"): ("spec/jobTemplate/spec/template/spec", 0),
}


def workload(api_version: str, kind: str, ref: str = "app", name: str = "w", namespace: str | None = None) -> str:
    path = WORKLOADS[(api_version, kind)][0].split("/")
    lines = [f"- apiVersion: {api_version}", f"  kind: {kind}", "  metadata:", f"    name: {name}"]
    if namespace:
        lines.append(f"    namespace: {namespace}")
    indent = "  "
    for key in path[:-1]:
        lines.append(f"{indent}{key}:")
        indent += "  "
    lines.append(f"{indent}{path[-1]}:")
    body = POD_SPEC.format(ref=ref)
    shift = len(indent) + 2 - 6  # POD_SPEC is written at 6 spaces
    body = "\n".join((" " * shift + line if shift >= 0 else line[-shift:]) if line.strip() else line
                     for line in body.splitlines())
    return "\n".join(lines) + "\n" + body + "\n"


def get(obj, path):
    for key in path.split("/"):
        obj = obj[key]
    return obj


def names_in_pod_spec(spec):
    out = []
    for lst in ("containers", "initContainers", "ephemeralContainers"):
        for c in spec.get(lst, []):
            out += [e["configMapRef"]["name"] for e in c.get("envFrom", []) if "configMapRef" in e]
            out += [e["valueFrom"]["configMapKeyRef"]["name"] for e in c.get("env", [])
                    if "configMapKeyRef" in e.get("valueFrom", {})]
    for v in spec.get("volumes", []):
        if "configMap" in v:
            out.append(v["configMap"]["name"])
        for s in v.get("projected", {}).get("sources", []):
            if "configMap" in s:
                out.append(s["configMap"]["name"])
    return out


@pytest.mark.parametrize("api_version,kind", list(WORKLOADS))
def test_every_reference_in_every_workload_kind_is_rewritten(api_version, kind):
    out = run(resource_list(cm() + workload(api_version, kind)))
    assert exit_code(out) == 0, out.results
    objs = items_by_name(out)
    new = f"app-{suffix_of()}"
    assert ("ConfigMap", new) in objs
    spec = get(objs[(kind, "w")], WORKLOADS[(api_version, kind)][0])
    names = names_in_pod_spec(spec)
    assert names == [new] * 6
    # A Secret of the same name is not a ConfigMap reference.
    projected = [v for v in spec["volumes"] if "projected" in v][0]
    assert projected["projected"]["sources"][1]["secret"]["name"] == "app"


def test_configmap_becomes_immutable_and_records_its_family():
    out = run(resource_list(cm() + workload("apps/v1", "Deployment")))
    c = items_by_name(out)[("ConfigMap", f"app-{suffix_of()}")]
    assert c["immutable"] is True
    assert c["metadata"]["annotations"]["krmfn.dev/original-name"] == "app"
    assert c["metadata"]["labels"]["krmfn.dev/family"] == "app"
    assert c["metadata"]["annotations"]["krmfn.dev/content-hash"] == "true"


def test_info_result_names_the_new_name_and_every_referrer():
    text = resource_list(cm() + workload("apps/v1", "Deployment", name="web")
                         + workload("apps/v1", "StatefulSet", name="db", namespace="default"))
    out = run(text)
    info = [r for r in out.results if r.resource and r.resource.kind == "ConfigMap"]
    assert len(info) == 1 and info[0].severity == "info"
    assert f"app-{suffix_of()}" in info[0].message
    assert "Deployment/web" in info[0].message and "StatefulSet/default/db" in info[0].message
    assert info[0].resource.name == f"app-{suffix_of()}"


def test_unreferenced_opted_in_configmap_is_a_warning():
    out = run(resource_list(cm()))
    assert exit_code(out) == 0
    (warning,) = [r for r in out.results if r.severity == "warning"]
    assert "nothing in the input references it" in warning.message


def test_reference_to_a_configmap_not_in_the_input_is_an_info_with_field_path():
    out = run(resource_list(cm() + workload("v1", "Pod", ref="elsewhere")))
    missing = [r for r in out.results if "ConfigMap elsewhere" in r.message and "not in the input" in r.message]
    assert len(missing) == 6
    (secret,) = [r for r in out.results if "Secret elsewhere" in r.message]  # a projected secret source
    assert secret.field_path == "spec.volumes[1].projected.sources[1].secret.name"
    assert {r.field_path for r in missing} >= {
        "spec.containers[0].envFrom[0].configMapRef.name",
        "spec.volumes[1].projected.sources[0].configMap.name",
        "spec.ephemeralContainers[0].env[0].valueFrom.configMapKeyRef.name",
    }
    pod = items_by_name(out)[("Pod", "w")]
    assert set(names_in_pod_spec(pod["spec"])) == {"elsewhere"}


def test_optional_references_are_rewritten_and_reported_the_same_way():
    items = cm() + """\
- apiVersion: v1
  kind: Pod
  metadata: {name: p}
  spec:
    containers:
    - name: c
      envFrom:
      - configMapRef: {name: app, optional: true}
      - configMapRef: {name: gone, optional: true}
"""
    out = run(resource_list(items))
    pod = items_by_name(out)[("Pod", "p")]
    assert pod["spec"]["containers"][0]["envFrom"][0]["configMapRef"]["name"] == f"app-{suffix_of()}"
    (missing,) = [r for r in out.results if "not in the input" in r.message]
    assert "(optional)" in missing.message


def test_not_opted_in_configmaps_are_untouched_and_so_are_their_references():
    text = resource_list(cm(optin="false") + workload("apps/v1", "Deployment"))
    out = run(text)
    assert exit_code(out) == 0
    assert out.text.startswith(text[: text.index("results") if "results" in text else len(text)])
    objs = items_by_name(out)
    assert ("ConfigMap", "app") in objs and "immutable" not in objs[("ConfigMap", "app")]


def test_only_a_configmap_in_the_referrers_namespace_matches():
    text = resource_list(cm(namespace="prod") + workload("apps/v1", "Deployment", namespace="staging"))
    out = run(text)
    dep = items_by_name(out)[("Deployment", "w")]
    assert set(names_in_pod_spec(dep["spec"]["template"]["spec"])) == {"app"}
    assert any("not in the input" in r.message for r in out.results)


def test_empty_namespace_and_default_are_the_same():
    out = run(resource_list(cm(namespace="default") + workload("apps/v1", "Deployment")))
    dep = items_by_name(out)[("Deployment", "w")]
    assert set(names_in_pod_spec(dep["spec"]["template"]["spec"])) == {f"app-{suffix_of()}"}


def test_same_name_in_two_namespaces_each_referrer_gets_its_own():
    text = resource_list(cm(namespace="a", value="x") + cm(namespace="b", value="yy")
                         + workload("apps/v1", "Deployment", name="wa", namespace="a")
                         + workload("apps/v1", "Deployment", name="wb", namespace="b"))
    out = run(text)
    objs = items_by_name(out)
    assert set(names_in_pod_spec(objs[("Deployment", "wa")]["spec"]["template"]["spec"])) == {f"app-{suffix_of('x')}"}
    assert set(names_in_pod_spec(objs[("Deployment", "wb")]["spec"]["template"]["spec"])) == {f"app-{suffix_of('yy')}"}


def test_ambiguous_reference_is_an_error_naming_both_candidates():
    # Two families claim the name "app": an unhashed ConfigMap named app-<suffix> whose recorded
    # original name is app, and another hashed one of the same family in the same namespace.
    items = cm(value="x") + """\
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: app-bbbbbbbbbb
    annotations:
      krmfn.dev/content-hash: "true"
      krmfn.dev/original-name: app
  data:
    key: other
""" + workload("v1", "Pod", ref="app-cccccccccc")
    out = run(resource_list(items))
    assert exit_code(out) == 1
    (err,) = [r for r in out.results if r.severity == "error"]
    assert "ambiguous" in err.message and "ConfigMap/app" in err.message and "ConfigMap/app-bbbbbbbbbb" in err.message
    assert err.field_path.startswith("spec.")
    # Nothing half-written: the items come back exactly as they went in.
    assert out.text.startswith(resource_list(items))


def test_duplicate_configmaps_are_an_error():
    out = run(resource_list(cm() + cm()))
    assert exit_code(out) == 1
    assert "appears twice" in out.results[0].message


def test_kustomize_generated_configmaps_are_left_alone():
    items = """\
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: gen
    annotations:
      krmfn.dev/content-hash: "true"
      internal.config.kubernetes.io/needsHashSuffix: enabled
  data: {a: b}
"""
    out = run(resource_list(items))
    assert exit_code(out) == 0
    assert ("ConfigMap", "gen") in items_by_name(out)
    assert any("kustomize adds its own hash suffix" in r.message for r in out.results)


def test_running_on_its_own_output_changes_nothing():
    text = resource_list(cm() + workload("apps/v1", "Deployment") + workload("batch/v1", "CronJob", name="c"))
    first = run(text)
    second = run(first.text)
    assert second.text == first.text
    assert exit_code(second) == 0


def test_editing_data_of_a_hashed_configmap_renames_from_the_original_and_references_follow():
    first = run(resource_list(cm(value="one") + workload("apps/v1", "Deployment")))
    edited = first.text.replace("key: one", "key: two")
    second = run(edited)
    objs = items_by_name(second)
    assert ("ConfigMap", f"app-{suffix_of('two')}") in objs
    dep = objs[("Deployment", "w")]
    assert set(names_in_pod_spec(dep["spec"]["template"]["spec"])) == {f"app-{suffix_of('two')}"}


def test_a_name_already_ending_in_its_own_suffix_is_not_suffixed_again():
    """``kubectl kustomize . | krmfn --stream --select all``: kustomize's generator named the
    ConfigMap by its content already. The name stays; the object is made immutable and records
    its family like any hashed one, so that a data edit re-suffixes from the original name."""
    hashed = f"app-{suffix_of('one')}"
    first = run(resource_list(cm(name=hashed) + workload("apps/v1", "Deployment", ref=hashed)))
    assert exit_code(first) == 0, first.results
    objs = items_by_name(first)
    assert ("ConfigMap", hashed) in objs, list(objs)
    made = objs[("ConfigMap", hashed)]
    assert made["immutable"] is True and made["metadata"]["annotations"]["krmfn.dev/original-name"] == "app"
    assert set(names_in_pod_spec(objs[("Deployment", "w")]["spec"]["template"]["spec"])) == {hashed}
    again = run(first.text)  # the items are a fixed point (the results: test_a_name_that_stays_is_said_to_keep_it)
    assert load(again)["items"] == load(first)["items"] and run(again.text).text == again.text
    edited = run(first.text.replace("key: one", "key: two"))
    assert ("ConfigMap", f"app-{suffix_of('two')}") in items_by_name(edited)
    stale = f"app-{suffix_of('two')}"  # ends in a suffix, but not this content's: suffixed as any name
    assert ("ConfigMap", f"{stale}-{suffix_of('one')}") in items_by_name(run(resource_list(cm(name=stale))))


def test_a_name_with_its_own_suffix_gets_no_second_one_under_any_algorithm():
    """kustomize's generator named the ConfigMap ``app-<kustomize suffix>``: ``--algorithm sha256``
    must not make it ``app-<kustomize>-<sha256>`` (a family of one, which gc would keep forever),
    and a name made by sha256 is not suffixed twice by kustomize's algorithm either. The family is
    the name without the suffix; a name that stays is said to keep it, not to be "now" itself."""
    sha = hashing.digest("sha256", hashing.encode_configmap({"key": "one"}, None))
    config = "apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: cfg}}\ndata: {{algorithm: {}}}"
    for named, algorithm, expected in ((f"app-{suffix_of('one')}", "sha256", f"app-{sha}"),
                                       (f"app-{sha}", "kustomize", f"app-{suffix_of('one')}")):
        out = run(resource_list(cm(name=named) + workload("apps/v1", "Deployment", ref=named),
                                config.format(algorithm)))
        assert exit_code(out) == 0, out.results
        objs = items_by_name(out)
        assert ("ConfigMap", expected) in objs, list(objs)
        made = objs[("ConfigMap", expected)]
        assert made["metadata"]["labels"]["krmfn.dev/family"] == "app"
        assert made["metadata"]["annotations"]["krmfn.dev/original-name"] == "app"
        assert set(names_in_pod_spec(objs[("Deployment", "w")]["spec"]["template"]["spec"])) == {expected}
        assert f"ConfigMap app is now {expected}; referenced by Deployment/w" in [r.message for r in out.results]


def test_a_name_that_stays_is_said_to_keep_it():
    hashed = f"app-{suffix_of('one')}"
    out = run(resource_list(cm(name=hashed) + workload("apps/v1", "Deployment", ref=hashed)))
    messages = [r.message for r in out.results]
    assert f"ConfigMap {hashed} keeps its name (it ends in its content's suffix already); referenced by Deployment/w" \
        in messages, messages
    assert not any(" is now " in m for m in messages)
    again = run(out.text)  # the output records its family: a re-run names it as krmfn's own re-runs do
    assert load(again)["items"] == load(out)["items"]
    assert f"ConfigMap app is now {hashed}; referenced by Deployment/w" in [r.message for r in again.results]


def test_names_reach_a_generated_name_by_its_family():
    """``--names app`` opts in kustomize's ``app-<suffix>``: names are family names."""
    hashed = f"app-{suffix_of('one')}"
    out = run(resource_list(cm(name=hashed).replace('krmfn.dev/content-hash: "true"', "x: y"),
                            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg}\ndata: {names: app}"))
    made = items_by_name(out)[("ConfigMap", hashed)]
    assert made.get("immutable") is True and made["metadata"]["labels"]["krmfn.dev/family"] == "app"


def test_references_to_an_older_hashed_name_follow_the_family():
    items = cm(value="two") + workload("apps/v1", "Deployment", ref=f"app-{suffix_of('one')}")
    out = run(resource_list(items))
    dep = items_by_name(out)[("Deployment", "w")]
    assert set(names_in_pod_spec(dep["spec"]["template"]["spec"])) == {f"app-{suffix_of('two')}"}


def test_select_all_and_opt_out():
    items = cm(name="a", optin="false") + """\
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: b}
  data: {k: v}
"""
    out = run(resource_list(items, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg}\ndata: {select: all}"))
    names = {n for k, n in items_by_name(out) if k == "ConfigMap"}
    assert "a" in names and any(n.startswith("b-") for n in names)


def test_select_by_name_and_by_label():
    items = """\
- {apiVersion: v1, kind: ConfigMap, metadata: {name: byname}, data: {k: v}}
- {apiVersion: v1, kind: ConfigMap, metadata: {name: bylabel, labels: {hash: "yes"}}, data: {k: v}}
- {apiVersion: v1, kind: ConfigMap, metadata: {name: neither}, data: {k: v}}
"""
    fc = """\
apiVersion: fn.krmfn.dev/v1alpha1
kind: ContentHash
metadata: {name: h}
names: [byname]
selector: {matchLabels: {hash: "yes"}}
"""
    out = run(resource_list(items, fc))
    names = {n.rsplit("-", 1)[0] if n != "neither" else n for k, n in items_by_name(out) if k == "ConfigMap"}
    assert names == {"byname", "bylabel", "neither"}
    assert ("ConfigMap", "neither") in items_by_name(out)


def test_sha256_algorithm():
    out = run(resource_list(cm(), "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {algorithm: sha256}"))
    (name,) = [n for k, n in items_by_name(out) if k == "ConfigMap"]
    assert name == "app-" + hashing.suffix("sha256", {"key": "one"}, None)


def test_name_over_253_characters_is_an_error():
    long = "a" * 250
    out = run(resource_list(cm(name=long)))
    assert exit_code(out) == 1
    assert "253" in out.results[0].message and out.results[0].field_path == "metadata.name"


def test_binary_data_is_hashed_as_written():
    items = """\
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: bin
    annotations: {krmfn.dev/content-hash: "true"}
  binaryData:
    blob: aGVsbG8=
"""
    out = run(resource_list(items))
    (name,) = [n for k, n in items_by_name(out) if k == "ConfigMap"]
    assert name == "bin-" + hashing.suffix("kustomize", None, {"blob": "aGVsbG8="})


def test_non_string_data_value_is_an_error_naming_the_field():
    items = cm(value="on")
    out = run(resource_list(items))
    assert exit_code(out) == 1
    err = out.results[0]
    assert err.field_path == "data.key" and "quote it" in err.message
    assert err.resource.kind == "ConfigMap" and err.resource.name == "app"


def test_every_annotation_kpt_and_kustomize_rely_on_is_kept():
    items = """\
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: app
    annotations:
      krmfn.dev/content-hash: "true"
      config.kubernetes.io/index: '0'
      config.kubernetes.io/path: 'cm.yaml'
      internal.config.kubernetes.io/index: '0'
      internal.config.kubernetes.io/path: 'cm.yaml'
      internal.config.kubernetes.io/seqindent: compact
      config.k8s.io/id: '1'
  data: {k: v}
"""
    out = run(resource_list(items))
    (c,) = [i for (k, _), i in items_by_name(out).items() if k == "ConfigMap"]
    ann = c["metadata"]["annotations"]
    for key in ("config.kubernetes.io/index", "config.kubernetes.io/path", "internal.config.kubernetes.io/index",
                "internal.config.kubernetes.io/path", "internal.config.kubernetes.io/seqindent", "config.k8s.io/id"):
        assert key in ann
    assert ann["config.kubernetes.io/index"] == "0"


def test_items_that_are_not_configmaps_or_referrers_pass_through_untouched_in_order():
    items = """\
- apiVersion: kpt.dev/v1
  kind: Kptfile
  metadata: {name: pkg}
  # a comment kept with the item
  pipeline: {mutators: [{image: x}]}
- apiVersion: apiextensions.k8s.io/v1
  kind: CustomResourceDefinition
  metadata: {name: things.example.com}
  spec: {group: example.com}
""" + cm() + """\
- apiVersion: example.com/v1
  kind: Thing
  metadata: {name: t}
  spec: {x: 'y'}
"""
    text = resource_list(items)
    out = run(text)
    kinds = [i["kind"] for i in load(out)["items"]]
    assert kinds == ["Kptfile", "CustomResourceDefinition", "ConfigMap", "Thing"]
    for chunk in ("  # a comment kept with the item\n", "  spec: {x: 'y'}\n", "  spec: {group: example.com}\n"):
        assert chunk in out.text


def test_output_is_byte_identical_for_identical_input():
    text = resource_list(cm() + workload("apps/v1", "Deployment") + workload("v1", "Pod", ref="missing"))
    assert run(text).text == run(text).text


def test_results_of_an_earlier_run_are_replaced_not_duplicated():
    first = run(resource_list(cm() + workload("apps/v1", "Deployment")))
    assert first.text.count("results:") == 1
    assert run(first.text).text.count("results:") == 1
