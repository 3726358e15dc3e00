"""Opt-in from the workload: krmfn's own annotation on a workload, and the marks users already
carry (Reloader's annotations, the Kyverno autoreload policy's), with who wins when they disagree."""

from __future__ import annotations

import textwrap

import pytest
import yaml
from conftest import exit_code, resource_list, run


def cm(name: str = "app", annotations: dict[str, str] | None = None, namespace: str = "") -> str:
    ns = f"\n    namespace: {namespace}" if namespace else ""
    notes = f"\n    annotations: {yaml.safe_dump(annotations, default_flow_style=True).strip()}" if annotations else ""
    return f"""\
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: {name}{ns}{notes}
  data: {{k: v}}
"""


def secret(name: str = "creds", annotations: dict[str, str] | None = None) -> str:
    notes = f"\n    annotations: {yaml.safe_dump(annotations, default_flow_style=True).strip()}" if annotations else ""
    return f"""\
- apiVersion: v1
  kind: Secret
  metadata:
    name: {name}{notes}
  type: Opaque
  stringData: {{password: hunter2}}
"""


def deployment(annotations: dict[str, str] | None = None, refs: tuple[str, ...] = ("app",),
               secrets: tuple[str, ...] = ("creds",), template_annotations: dict[str, str] | None = None,
               kind: str = "Deployment", name: str = "web") -> str:
    notes = f"\n    annotations: {yaml.safe_dump(annotations, default_flow_style=True).strip()}" if annotations else ""
    tnotes = (f"\n        annotations: {yaml.safe_dump(template_annotations, default_flow_style=True).strip()}"
              if template_annotations else "")
    env = "".join(f"\n          - configMapRef: {{name: {r}}}" for r in refs)
    env += "".join(f"\n          - secretRef: {{name: {s}}}" for s in secrets)
    return f"""\
- apiVersion: apps/v1
  kind: {kind}
  metadata:
    name: {name}{notes}
  spec:
    template:
      metadata:
        labels: {{app: {name}}}{tnotes}
      spec:
        containers:
        - name: main
          image: nginx
          envFrom:{env}
"""


def items(out) -> dict[tuple[str, str], dict]:
    return {(i["kind"], i["metadata"].get("annotations", {}).get("krmfn.dev/original-name", i["metadata"]["name"])): i
            for i in yaml.safe_load(out.text)["items"]}


def hashed(out, kind: str, name: str) -> bool:
    obj = items(out)[(kind, name)]
    return obj["metadata"]["name"] != name and obj.get("immutable") is True


def config(**fields: object) -> str:
    body = yaml.safe_dump({"apiVersion": "fn.krmfn.dev/v1alpha1", "kind": "ContentHash",
                           "metadata": {"name": "fn"}, **fields})
    return body


def infos(out, text: str) -> list:
    return [r for r in out.results if text in r.message]


# --- krmfn's own annotation on a workload --------------------------------------------------

def test_a_workload_opts_in_what_its_pod_template_names():
    out = run(resource_list(cm() + cm("other") + secret() + deployment({"krmfn.dev/content-hash": "true"})))
    assert exit_code(out) == 0, out.results
    assert hashed(out, "ConfigMap", "app") and not hashed(out, "ConfigMap", "other")
    (info,) = infos(out, "opted in by")
    assert info.resource.kind == "ConfigMap" and info.resource.name.startswith("app-")  # its new name
    assert "Deployment/web (krmfn.dev/content-hash: true)" not in info.message  # a mark, not a name, is quoted
    assert "Deployment/web (krmfn.dev/content-hash)" in info.message
    # The reference follows.
    env = items(out)[("Deployment", "web")]["spec"]["template"]["spec"]["containers"][0]["envFrom"]
    assert env[0]["configMapRef"]["name"] == items(out)[("ConfigMap", "app")]["metadata"]["name"]


def test_secrets_only_where_the_function_config_enables_them():
    text = cm() + secret() + deployment({"krmfn.dev/content-hash": "true"})
    out = run(resource_list(text))
    assert not hashed(out, "Secret", "creds")
    (why,) = infos(out, "leaves Secrets out")  # a slip kustomize and Helm never show as an info: a warning
    assert why.resource.kind == "Secret" and why.severity == "warning"
    assert "function config field 'kinds' leaves Secrets out: add Secret (kinds: [ConfigMap, " \
        "Secret] in the function config)" in why.message
    out = run(resource_list(text, config(kinds=["ConfigMap", "Secret"])))
    assert hashed(out, "Secret", "creds") and hashed(out, "ConfigMap", "app")
    secret_name = items(out)[("Secret", "creds")]["metadata"]["name"]
    env = items(out)[("Deployment", "web")]["spec"]["template"]["spec"]["containers"][0]["envFrom"]
    assert env[1]["secretRef"]["name"] == secret_name


def test_the_objects_own_false_wins_over_a_workload():
    out = run(resource_list(cm(annotations={"krmfn.dev/content-hash": "false"})
                            + deployment({"krmfn.dev/content-hash": "true"}, secrets=())))
    assert exit_code(out) == 0
    assert not hashed(out, "ConfigMap", "app")
    (why,) = infos(out, 'own krmfn.dev/content-hash: "false" wins')
    assert why.resource.name == "app" and why.severity == "info"


@pytest.mark.parametrize("workload_first", [True, False])
def test_order_does_not_matter_and_a_rerun_changes_nothing(workload_first):
    parts = [cm(), deployment({"krmfn.dev/content-hash": "true"}, secrets=())]
    text = resource_list("".join(reversed(parts) if workload_first else parts))
    out = run(text)
    assert hashed(out, "ConfigMap", "app")
    again = run(out.text)
    assert again.text == out.text


def test_the_annotation_in_the_pod_template_gets_a_warning_saying_where_it_belongs():
    out = run(resource_list(cm() + deployment(template_annotations={"krmfn.dev/content-hash": "true"}, secrets=())))
    assert exit_code(out) == 0 and not hashed(out, "ConfigMap", "app")
    (warning,) = [r for r in out.results if r.severity == "warning" and "sits in the pod template" in r.message]
    assert warning.field_path == "spec.template.metadata.annotations[krmfn.dev/content-hash]"
    assert "Deployment's own metadata.annotations" in warning.message


def test_a_workload_annotation_that_is_not_true_or_false_is_an_error():
    out = run(resource_list(cm() + deployment({"krmfn.dev/content-hash": "yes"}, secrets=())))
    assert exit_code(out) == 1
    (error,) = [r for r in out.results if r.severity == "error"]
    assert error.resource.kind == "Deployment" and "use \"true\"" in error.message


# --- Reloader -------------------------------------------------------------------------------

RELOADER = config(honor=["reloader"], kinds=["ConfigMap", "Secret"])


def test_reloader_marks_are_ignored_unless_honored():
    out = run(resource_list(cm() + secret() + deployment({"reloader.stakater.com/auto": "true"})))
    assert not hashed(out, "ConfigMap", "app") and not hashed(out, "Secret", "creds")


@pytest.mark.parametrize("annotation,configmap,secret_too", [
    ("reloader.stakater.com/auto", True, True),
    ("configmap.reloader.stakater.com/auto", True, False),
    ("secret.reloader.stakater.com/auto", False, True),
])
def test_reloader_auto_marks(annotation, configmap, secret_too):
    out = run(resource_list(cm() + secret() + deployment({annotation: "true"}), RELOADER))
    assert exit_code(out) == 0, out.results
    assert hashed(out, "ConfigMap", "app") == configmap
    assert hashed(out, "Secret", "creds") == secret_too
    assert all(annotation in r.message for r in infos(out, "opted in by"))


def test_reloader_auto_false_and_unknown_values_mean_no():
    for value in ("false", "yes", "True"):
        out = run(resource_list(cm() + deployment({"reloader.stakater.com/auto": value}, secrets=()), RELOADER))
        assert not hashed(out, "ConfigMap", "app"), value


def test_reloader_search_takes_only_objects_that_match_and_auto_wins_over_it():
    objects = cm("app", {"reloader.stakater.com/match": "true"}) + cm("plain")
    search = {"reloader.stakater.com/search": "true"}
    out = run(resource_list(objects + deployment(search, refs=("app", "plain"), secrets=()), RELOADER))
    assert hashed(out, "ConfigMap", "app") and not hashed(out, "ConfigMap", "plain")
    both = {**search, "reloader.stakater.com/auto": "true"}
    out = run(resource_list(objects + deployment(both, refs=("app", "plain"), secrets=()), RELOADER))
    assert hashed(out, "ConfigMap", "app") and hashed(out, "ConfigMap", "plain")


def test_reloader_ignore_on_the_object_wins():
    out = run(resource_list(cm(annotations={"reloader.stakater.com/ignore": "true"})
                            + deployment({"reloader.stakater.com/auto": "true"}, secrets=()), RELOADER))
    assert not hashed(out, "ConfigMap", "app")
    (why,) = infos(out, "reloader.stakater.com/ignore")
    assert why.resource.name == "app"


def test_reloader_reload_lists_name_objects_referenced_or_not():
    text = (cm("app") + cm("flags") + secret()
            + deployment({"configmap.reloader.stakater.com/reload": "app, flags",
                          "secret.reloader.stakater.com/reload": "creds"}))
    out = run(resource_list(text, RELOADER))
    assert exit_code(out) == 0, out.results
    assert hashed(out, "ConfigMap", "app") and hashed(out, "ConfigMap", "flags") and hashed(out, "Secret", "creds")
    (warning,) = [r for r in out.results if r.severity == "warning" and "does not reference" in r.message]
    assert "ConfigMap flags" in warning.message and warning.resource.kind == "Deployment"
    assert warning.field_path == "metadata.annotations[configmap.reloader.stakater.com/reload]"


def test_a_name_not_in_the_render_is_a_warning_to_keep_the_controller_for_it():
    out = run(resource_list(cm() + deployment({"configmap.reloader.stakater.com/reload": "app,elsewhere"},
                                              secrets=()), RELOADER))
    assert exit_code(out) == 0
    (warning,) = [r for r in out.results if r.severity == "warning" and "not in this render" in r.message]
    assert "ConfigMap elsewhere" in warning.message and "keep Reloader for it" in warning.message
    assert warning.field_path == "metadata.annotations[configmap.reloader.stakater.com/reload]"


def test_auto_reaches_a_reference_not_in_the_render_with_one_warning_not_two():
    out = run(resource_list(deployment({"reloader.stakater.com/auto": "true"}, refs=("gone",), secrets=()), RELOADER))
    about = [r for r in out.results if "gone" in r.message]
    assert len(about) == 1 and about[0].severity == "warning"


def test_a_reloader_list_naming_an_object_twice_is_an_error():
    out = run(resource_list(cm() + deployment({"configmap.reloader.stakater.com/reload": "app,app"}, secrets=()),
                            RELOADER))
    assert exit_code(out) == 1
    (error,) = [r for r in out.results if r.severity == "error"]
    assert "names app twice" in error.message
    assert error.field_path == "metadata.annotations[configmap.reloader.stakater.com/reload]"
    assert yaml.safe_load(out.text)["items"][0]["metadata"]["name"] == "app"  # nothing half-written


def test_a_pattern_in_a_reloader_list_is_said_not_expanded():
    out = run(resource_list(cm() + deployment({"configmap.reloader.stakater.com/reload": "app-.*"}, secrets=()),
                            RELOADER))
    (warning,) = [r for r in out.results if "not a ConfigMap name" in r.message]
    assert warning.severity == "warning"


# --- the Kyverno autoreload policy ---------------------------------------------------------

def test_the_kyverno_autoreload_annotation_opts_in_its_configmap():
    # The seed's Deployment: the annotation on its own metadata names one ConfigMap.
    text = cm("pint-config", namespace="monitoring") + textwrap.dedent("""\
        - apiVersion: apps/v1
          kind: Deployment
          metadata:
            annotations:
              autoreloader.thaum.xyz/configmap: pint-config
            name: pint
            namespace: monitoring
          spec:
            template:
              metadata: {}
              spec:
                containers:
                - name: pint
                  image: pint
                  volumeMounts: [{name: config, mountPath: /etc/pint}]
                volumes:
                - name: config
                  configMap: {name: pint-config}
        """)
    out = run(resource_list(text, config(honor=["autoreload"])))
    assert exit_code(out) == 0, out.results
    assert hashed(out, "ConfigMap", "pint-config")
    (info,) = infos(out, "opted in by")
    assert "Deployment/monitoring/pint (autoreloader.thaum.xyz/configmap: pint-config)" in info.message


def test_the_kyverno_annotation_in_the_pod_template_is_the_seeds_mistake():
    out = run(resource_list(cm() + deployment(template_annotations={"autoreloader.thaum.xyz/configmap": "app"},
                                              secrets=()), config(honor=["autoreload"])))
    assert not hashed(out, "ConfigMap", "app")
    warning, unrolled = [r for r in out.results if r.severity == "warning"]
    assert "autoreloader.thaum.xyz/configmap sits in the pod template" in warning.message
    assert "nothing rolls Deployment" in unrolled.detail  # the roll-path audit says what it costs (-v)


def test_unknown_honor_entry_is_a_config_error():
    out = run(resource_list(cm(), config(honor=["reloader", "flux"])))
    assert exit_code(out) == 1
    assert "unknown mark 'flux'" in out.results[0].message


def test_a_rerun_finds_named_objects_by_the_family_they_record():
    text = cm("app") + cm("flags") + deployment({"configmap.reloader.stakater.com/reload": "app,flags"}, secrets=())
    out = run(resource_list(text, RELOADER))
    assert hashed(out, "ConfigMap", "flags")
    again = run(out.text)
    assert again.text == out.text
    assert not [r for r in again.results if "not in this render" in r.message]


def test_a_reference_to_a_family_not_opted_in_any_more_is_a_warning():
    out = run(resource_list(cm() + deployment({"krmfn.dev/content-hash": "true"}, secrets=())))
    hashed_cm = yaml.safe_load(out.text)["items"][0]
    name = hashed_cm["metadata"]["name"]
    # The workload drops its mark and names the ConfigMap by its old name again.
    later = resource_list(yaml.safe_dump([hashed_cm], sort_keys=False) + deployment(secrets=()))
    again = run(later)
    assert exit_code(again) == 0
    (warning,) = [r for r in again.results if r.severity == "warning" and "krmfn renamed" in r.message]
    assert f"renamed {name} before" in warning.message and warning.resource.kind == "Deployment"


# --- krmfn's own keys: a slip is said, an unquoted value is an error ------------------------------

def own_keys(out) -> list:
    return [r for r in out.results if "krmfn.dev/" in r.message and r.severity != "info"
            and "nothing rolls" not in r.message]  # the roll-path audit (tests/core/test_rollpath.py)


def test_a_misspelt_opt_in_is_a_warning_naming_the_nearest_key():
    out = run(resource_list(cm(annotations={"krmfn.dev/contenthash": "true"}) + deployment(secrets=())))
    (warning,) = own_keys(out)
    assert warning.severity == "warning" and warning.resource.kind == "ConfigMap"
    assert "did you mean krmfn.dev/content-hash?" in warning.message
    assert warning.field_path == "metadata.annotations[krmfn.dev/contenthash]"
    assert not hashed(out, "ConfigMap", "app")  # said, and still not read as an opt-in


def test_a_warning_about_a_renamed_object_names_it_as_the_output_does():
    """Found by fuzzing: the warning named the ConfigMap by its old name, the output by its new one,
    so kpt could not place it and a re-run gave different results."""
    text = cm(annotations={"krmfn.dev/content-hash": "true", "krmfn.dev/contenthash": "x"}) + deployment(secrets=())
    out = run(resource_list(text))
    (warning,) = own_keys(out)
    assert warning.resource.name == items(out)[("ConfigMap", "app")]["metadata"]["name"] != "app"
    assert run(out.text).text == out.text


def test_a_key_far_from_every_known_one_lists_them():
    out = run(resource_list(cm(annotations={"krmfn.dev/zzz": "1"})))
    (warning,) = own_keys(out)
    assert "krmfn's keys are krmfn.dev/content-hash, krmfn.dev/original-name" in warning.message


def test_the_opt_in_written_as_a_label_is_said_to_belong_in_annotations():
    text = cm().replace("    name: app\n", '    name: app\n    labels: {krmfn.dev/content-hash: "true"}\n')
    (warning,) = own_keys(run(resource_list(text)))
    assert "belongs in metadata.annotations, not in metadata.labels" in warning.message
    assert warning.field_path == "metadata.labels[krmfn.dev/content-hash]"


def test_a_misspelt_key_in_the_pod_template_is_said_with_its_path():
    out = run(resource_list(cm() + deployment(secrets=(), template_annotations={"krmfn.dev/config-hsh": "x"})))
    (warning,) = own_keys(out)
    assert "did you mean krmfn.dev/config-hash?" in warning.message
    assert warning.field_path == "spec.template.metadata.annotations[krmfn.dev/config-hsh]"


@pytest.mark.parametrize("item", ["configmap", "workload"])
def test_an_unquoted_true_is_an_error_saying_to_quote_it(item):
    text = cm() + deployment(secrets=())
    name = "    name: app\n" if item == "configmap" else "    name: web\n"
    text = text.replace(name, f"{name}    annotations:\n      krmfn.dev/content-hash: true\n", 1)
    out = run(resource_list(text))
    assert exit_code(out) == 1
    (error,) = out.results
    assert error.message == ("krmfn.dev/content-hash is true unquoted, which YAML reads as a boolean or a number, and "
                             'Kubernetes annotations are strings (kubectl refuses it): quote it, '
                             'krmfn.dev/content-hash: "true"')
    assert error.field_path == "metadata.annotations[krmfn.dev/content-hash]"
    assert out.text.split("results:")[0] == resource_list(text)  # nothing half-written


def test_an_empty_value_and_a_numeric_label_are_errors_too():
    empty = cm().replace("    name: app\n", "    name: app\n    annotations:\n      krmfn.dev/strategy:\n")
    assert "krmfn.dev/strategy has no value" in run(resource_list(empty)).results[0].message
    label = cm().replace("    name: app\n", "    name: app\n    labels: {krmfn.dev/family: 12}\n")
    (error,) = run(resource_list(label)).results
    assert "Kubernetes labels are strings" in error.message and error.field_path == "metadata.labels[krmfn.dev/family]"


def test_other_domains_and_krmfns_own_api_version_are_not_keys():
    fc = ("- apiVersion: fn.krmfn.dev/v1alpha1\n  kind: ContentHash\n  metadata:\n    name: c\n"
          "    annotations: {x.krmfn.dev/y: z, config.kubernetes.io/local-config: 'true'}\n")
    out = run(resource_list(fc + cm()))
    assert exit_code(out) == 0 and own_keys(out) == []
