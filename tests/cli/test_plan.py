"""`krmfn plan OLD NEW`: keys changed, workloads that roll and how, every output format, the
--fail-on gate, and no Secret value (nor its base64) anywhere in a plan."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from pathlib import Path

import pytest
from tooling import TESTS

from krmfn.changes import changeplan
from krmfn.cli import plan as plan_cli

REPO = TESTS.parent
QUICKSTART = REPO / "examples" / "quickstart" / "input.yaml"


def krmfn(*args: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "krmfn", *args], input=stdin, capture_output=True, check=False)


def render(source: str) -> bytes:
    done = krmfn(stdin=source.encode())
    assert done.returncode == 0, done.stderr
    return done.stdout


APP = """\
apiVersion: config.kubernetes.io/v1
kind: ResourceList
functionConfig: {{apiVersion: fn.krmfn.dev/v1alpha1, kind: ContentHash, kinds: [ConfigMap, Secret]}}
items:
- apiVersion: v1
  kind: ConfigMap
  metadata: {{name: web, annotations: {{krmfn.dev/content-hash: "true"}}}}
  data:
    LOG_LEVEL: {level}
    COLOR: blue
    big.txt: "{big}"
  binaryData:
    logo.png: {logo}
- apiVersion: v1
  kind: Secret
  metadata: {{name: creds, annotations: {{krmfn.dev/content-hash: "true"}}}}
  stringData:
    password: {password}
    user: admin
  data:
    token: {token}
- apiVersion: v1
  kind: ConfigMap
  metadata: {{name: plain}}
  data: {{MODE: {mode}}}
- apiVersion: apps/v1
  kind: Deployment
  metadata: {{name: api}}
  spec:
    replicas: 3
    strategy: {{type: Recreate}}
    selector: {{matchLabels: {{app: api}}}}
    template:
      metadata: {{labels: {{app: api}}}}
      spec:
        containers:
        - name: api
          image: api:1
          env:
          - name: LOG_LEVEL
            valueFrom: {{configMapKeyRef: {{name: web, key: LOG_LEVEL}}}}
          - name: PASSWORD
            valueFrom: {{secretKeyRef: {{name: creds, key: password}}}}
- apiVersion: apps/v1
  kind: Deployment
  metadata: {{name: colors}}
  spec:
    selector: {{matchLabels: {{app: colors}}}}
    template:
      metadata: {{labels: {{app: colors}}}}
      spec:
        containers:
        - name: c
          image: c:1
          env:
          - name: COLOR
            valueFrom: {{configMapKeyRef: {{name: web, key: COLOR}}}}
- apiVersion: apps/v1
  kind: StatefulSet
  metadata: {{name: db}}
  spec:
    replicas: 2
    updateStrategy: {{type: OnDelete}}
    selector: {{matchLabels: {{app: db}}}}
    template:
      metadata: {{labels: {{app: db}}}}
      spec:
        containers: [{{name: db, image: db:1}}]
        volumes:
        - name: creds
          secret: {{secretName: creds, items: [{{key: token, path: token}}]}}
- apiVersion: apps/v1
  kind: Deployment
  metadata: {{name: legacy}}
  spec:
    selector: {{matchLabels: {{app: legacy}}}}
    template:
      metadata: {{labels: {{app: legacy}}}}
      spec:
        containers:
        - name: l
          image: l:1
          envFrom: [{{configMapRef: {{name: plain}}}}]
"""
OLD_SECRETS = {"password": "hunter2-old-pass", "token": "s3cr3t-old-token"}
NEW_SECRETS = {"password": "correct-horse-battery", "token": "s3cr3t-new-token"}


def app(level: str, secrets: dict[str, str], mode: str, logo: bytes) -> str:
    return APP.format(level=level, big="x" * 400 + level, logo=base64.b64encode(logo).decode(), mode=mode,
                      password=secrets["password"], token=base64.b64encode(secrets["token"].encode()).decode())


@pytest.fixture(scope="module")
def renders(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    d = tmp_path_factory.mktemp("plan")
    old, new = d / "old.yaml", d / "new.yaml"
    old.write_bytes(render(app("info", OLD_SECRETS, "a", b"\x89PNG" + b"0" * 10)))
    new.write_bytes(render(app("debug", NEW_SECRETS, "b", b"\x89PNG" + b"1" * 30)))
    return old, new


def plan_of(renders: tuple[Path, Path], *args: str) -> subprocess.CompletedProcess[bytes]:
    return krmfn("plan", str(renders[0]), str(renders[1]), *args)


def test_json_says_which_keys_changed_and_how_each_workload_rolls(renders: tuple[Path, Path]) -> None:
    done = plan_of(renders, "-o", "json")
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["apiVersion"] == "krmfn.dev/plan/v1"
    configs = {(c["kind"], c["name"]): c for c in found["configs"]}
    web = configs[("ConfigMap", "web")]
    assert web["changed"] == ["LOG_LEVEL", "big.txt", "logo.png"] and web["oldName"] != web["newName"]
    assert web["diffs"]["LOG_LEVEL"] == ["@@ -1 +1 @@", "-info", "+debug"]
    assert all(len(line) <= changeplan.MAX_WIDTH for line in web["diffs"]["big.txt"])  # long values trimmed
    assert web["diffs"]["logo.png"] == ["binary: 14 bytes -> 34 bytes"]
    creds = configs[("Secret", "creds")]
    assert creds["changed"] == ["password", "token"] and "diffs" not in creds
    assert creds["renamed"] is True and "newName" not in creds and "oldName" not in creds
    assert configs[("ConfigMap", "plain")]["oldName"] == "plain" == configs[("ConfigMap", "plain")]["newName"]
    rolls = {w["name"]: w for w in found["workloads"]}
    assert rolls["api"]["category"] == "downtime" and rolls["api"]["replicas"] == "3"
    assert rolls["api"]["reads"] == {"ConfigMap web": ["LOG_LEVEL"], "Secret creds": ["password"]}
    assert rolls["db"]["category"] == "on-delete" and rolls["db"]["reads"] == {"Secret creds": ["token"]}
    # colors reads COLOR, which did not change: it rolls all the same (its hashed name changed)
    assert rolls["colors"]["category"] == "rolls" and rolls["colors"]["readsChangedKeys"] is False
    # plain keeps its name: legacy's pod template does not change, so nothing rolls it
    assert rolls["legacy"]["category"] == "no-roll" and rolls["legacy"]["templateChanges"] is False


def test_text_and_markdown_say_the_same(renders: tuple[Path, Path]) -> None:
    text = plan_of(renders).stdout.decode()
    assert "ConfigMap web (web-" in text and "changed: LOG_LEVEL, big.txt, logo.png" in text
    assert "Deployment api [downtime, replicas 3]" in text and "StatefulSet db [on-delete, replicas 2]" in text
    assert "rolls, though it reads none of the changed keys" in text
    assert "Deployment legacy [no-roll, replicas 1]" in text
    md = plan_of(renders, "-o", "markdown").stdout.decode()
    assert md.startswith("### krmfn plan\n") and "| Secret `creds` |" in md and "changed: `password`, `token`" in md
    assert "```diff\n@@ -1 +1 @@\n-info\n+debug\n```" in md and "**downtime**" in md


@pytest.mark.parametrize("fmt", ["text", "markdown", "json"])
def test_no_secret_value_in_any_output(renders: tuple[Path, Path], fmt: str) -> None:
    out = plan_of(renders, "-o", fmt)
    shown = out.stdout + out.stderr
    for value in (*OLD_SECRETS.values(), *NEW_SECRETS.values(), "admin"):
        for form in (value, base64.b64encode(value.encode()).decode()):
            assert form.encode() not in shown, f"{fmt} shows a Secret value"
    assert b"creds" in shown and b"password" in shown  # key names only
    for name in hashed_names(renders, "Secret"):  # a Secret's hashed name is a digest of its values
        assert name.encode() not in shown, f"{fmt} shows a Secret's hashed name"


def hashed_names(renders: tuple[Path, Path], kind: str) -> list[str]:
    objs = [o for r in renders for o in changeplan.read_render(r.read_bytes()) if o.kind == kind]
    names = [o.name for o in objs if o.name != o.family]
    assert len(names) == 2
    return names


@pytest.mark.parametrize(("fail_on", "code"), [("downtime", 1), ("no-roll", 1), ("unread", 1), ("paused", 0),
                                               ("cannot-apply,paused", 0)])
def test_fail_on_is_a_ci_gate(renders: tuple[Path, Path], fail_on: str, code: int) -> None:
    done = plan_of(renders, "--fail-on", fail_on)
    assert done.returncode == code and done.stdout
    if code:
        assert b"--fail-on" in done.stderr


def test_stdin_and_no_change(renders: tuple[Path, Path]) -> None:
    done = krmfn("plan", "-", str(renders[0]), stdin=renders[0].read_bytes())
    assert done.returncode == 0 and done.stdout == b"No ConfigMap or Secret changes.\n"


def test_plain_streams_pair_by_family(tmp_path: Path) -> None:
    """Plain multi-document streams (what `krmfn FILE` writes) work as well as ResourceLists."""
    src = QUICKSTART.read_text().split("items:\n", 1)[1]
    stream = "---\n".join(("apiVersion" + doc).replace("\n  ", "\n") for doc in src.split("- apiVersion")[1:])
    (tmp_path / "a.yaml").write_text(stream)
    (tmp_path / "b.yaml").write_text(stream.replace("LOG_LEVEL: info", "LOG_LEVEL: warn"))
    old, new = (krmfn(str(tmp_path / f)).stdout for f in ("a.yaml", "b.yaml"))
    (tmp_path / "old").mkdir()
    (tmp_path / "old" / "all.yaml").write_bytes(old)
    (tmp_path / "new.yaml").write_bytes(new)
    found = json.loads(krmfn("plan", str(tmp_path / "old"), str(tmp_path / "new.yaml"), "-o", "json").stdout)
    assert [c["changed"] for c in found["configs"]] == [["LOG_LEVEL"]]
    assert found["workloads"][0]["reads"] == {"ConfigMap api-config": ["*"]}


@pytest.mark.parametrize(("args", "says"), [(["a"], b"the following arguments are required"),
                                            (["missing.yaml", "x"], b"missing.yaml does not exist"),
                                            (["-", "-"], b"only one of OLD and NEW"),
                                            (["--fail-on", "nope", "a", "b"], b"unknown category 'nope'")])
def test_usage_errors_exit_2(args: list[str], says: bytes) -> None:
    done = krmfn("plan", *args)
    assert done.returncode == 2 and says in done.stderr and b"Traceback" not in done.stderr


@pytest.mark.parametrize("text", ["a: [\n", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\nkind: Job\n"])
def test_unreadable_render_is_one_sentence_as_every_mode_says_it(tmp_path: Path, text: str) -> None:
    """A render is read by the reader and checks every mode uses: the same sentence, naming the file and
    the document, as `krmfn FILE` gives; a usage error here (exit 2)."""
    (tmp_path / "bad.yaml").write_text(text)
    done = krmfn("plan", str(tmp_path / "bad.yaml"), str(tmp_path / "bad.yaml"))
    assert done.returncode == 2 and b"Traceback" not in done.stderr
    named = b"krmfn: error: document " in done.stderr and f" of {tmp_path / 'bad.yaml'}".encode() in done.stderr
    assert named and done.stderr == krmfn(str(tmp_path / "bad.yaml")).stderr


def test_help_has_exit_codes_and_the_docs_say_the_same() -> None:
    assert plan_cli.EXIT_STATUS in krmfn("plan", "--help").stdout.decode()
    assert f"```text\n{plan_cli.EXIT_STATUS}```" in (REPO / "docs" / "plan.md").read_text()


def test_a_render_on_stdin_is_read_to_the_input_limit_and_no_further(renders: tuple[Path, Path]) -> None:
    """`krmfn plan - NEW < /dev/zero` ends with one sentence, as every other mode does."""
    with open("/dev/zero", "rb") as zero:
        done = subprocess.run([sys.executable, "-m", "krmfn", "plan", "-", str(renders[1])], stdin=zero,
                              capture_output=True, timeout=120, check=False)
    assert (done.returncode, done.stdout) == (2, b"")
    assert done.stderr == b"krmfn: - is over the limit of 32 MiB for a render\n"


def test_a_change_of_image_beside_the_config_is_in_the_plan_and_gates(tmp_path: Path) -> None:
    """The plan is the whole change: an image changed in the same render is named, with the old and
    new image, and --fail-on template gates on it (issue #36 point 2)."""
    from krmfn.changes.changeplan import CATEGORIES

    assert "template" in CATEGORIES
    workload = ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: web}}\nspec:\n  template:\n    spec:\n"
                "      containers: [{{name: web, image: '{image}', envFrom: [{{configMapRef: {{name: app}}}}]}}]\n")
    config = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n  annotations: {{krmfn.dev/content-hash: "
              "'true'}}\ndata: {{level: {level}}}\n---\n")
    for name, image, level in (("old", "web:1.0", "info"), ("new", "web:1.1", "debug")):
        (tmp_path / f"{name}.yaml").write_text(config.format(level=level) + workload.format(image=image))
        done = subprocess.run([sys.executable, "-m", "krmfn", str(tmp_path / f"{name}.yaml")], capture_output=True,
                              text=True, check=True, cwd=REPO)
        (tmp_path / f"{name}.out").write_text(done.stdout)
    shown = subprocess.run([sys.executable, "-m", "krmfn", "plan", str(tmp_path / "old.out"), str(tmp_path / "new.out")],
                           capture_output=True, text=True, check=False, cwd=REPO)
    assert shown.returncode == 0
    assert "its pod template also changed: image of container web: web:1.0 -> web:1.1" in shown.stdout
    gated = subprocess.run([sys.executable, "-m", "krmfn", "plan", str(tmp_path / "old.out"), str(tmp_path / "new.out"),
                            "--fail-on", "template"], capture_output=True, text=True, check=False, cwd=REPO)
    assert gated.returncode == 1 and "the plan has template (--fail-on)" in gated.stderr
