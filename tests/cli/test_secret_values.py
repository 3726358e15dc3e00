"""A Secret's values never leave the process except in the Secret itself.

A value is planted in Secrets (as text in stringData, as base64 in data), then krmfn runs in
every mode and on every kind of bad input that names a Secret's field: the value must appear in
no result, no stderr line, no error and no --debug output. The items themselves are the only
place it may be (a Secret goes back out as it came, or renamed).
"""

from __future__ import annotations

import base64
import subprocess
import sys
from pathlib import Path

import pytest

PLANTED = "PLANTED-VALUE-9f3k"
PLANTED_BYTES = "PLANTED-BYTES-x7q"
SECRETS = (PLANTED, PLANTED_BYTES, base64.b64encode(PLANTED_BYTES.encode()).decode(),
           base64.b64encode(PLANTED.encode()).decode())
B64 = base64.b64encode(PLANTED_BYTES.encode()).decode()


def secret(extra: str = "", name: str = "creds", optin: str = '"true"', type_: str = "Opaque") -> str:
    return f"""\
apiVersion: v1
kind: Secret
metadata:
  name: {name}
  annotations:
    krmfn.dev/content-hash: {optin}
type: {type_}
data:
  bytes: {B64}
stringData:
  text: {PLANTED}
{extra}"""


WORKLOAD = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  template:
    spec:
      containers:
      - name: c
        image: i
        envFrom: [{secretRef: {name: creds}}]
"""

# Each case: the Secret document, and whether krmfn must refuse it.
CASES = {
    "renamed": (secret(), False),
    "not opted in": (secret(optin='"false"'), False),
    "a data value that is not base64": (secret().replace(f"  bytes: {B64}\n", f"  bytes: {B64}\n  bad: '{PLANTED}!'\n"),
                                        True),
    "a stringData value YAML reads as a number": (secret("  port: 0x1F\n").replace("stringData:\n", "stringData:\n  n: 1e5\n"),
                                                  True),
    "a stringData that is not a map": (secret().replace(f"stringData:\n  text: {PLANTED}\n", f"stringData: {PLANTED}\n"),
                                       True),
    "a key written twice": (secret().replace(f"  text: {PLANTED}\n", f"  text: {PLANTED}\n  text: {PLANTED}2\n"), True),
    "a YAML syntax error": (secret().replace(f"  text: {PLANTED}\n", f'  text: "{PLANTED}\n  other: [x\n'), True),
    "a name Kubernetes refuses": (secret(name="Creds_X"), True),
    "a type that is not text": (secret(type_="[Opaque]"), True),
}


def krmfn(args: list[str], stdin: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "krmfn", *args], input=stdin, capture_output=True, text=True,
                          timeout=60, cwd=cwd)


def outside_the_items(stdout: str) -> str:
    """The part of a ResourceList's output that is not an item: its results."""
    at = stdout.find("\nresults:")
    return "" if at < 0 else stdout[at:]


def assert_no_value(*texts: str) -> None:
    for text in texts:
        for value in SECRETS:
            assert value not in text, f"a Secret's value leaked: {text!r}"


@pytest.mark.parametrize("case", list(CASES))
def test_no_value_in_results_or_stderr_in_any_mode(case, tmp_path):
    doc, refused = CASES[case]
    stream = doc + "---\n" + WORKLOAD
    items = "".join("- " + d.replace("\n", "\n  ").rstrip(" ") + "\n" for d in (doc, WORKLOAD))
    resource_list = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n" + items
    (tmp_path / "secret.yaml").write_text(stream)
    runs = {
        "function": krmfn([], resource_list),
        "function --debug": krmfn(["--debug"], resource_list),
        "stream -v --debug": krmfn(["--stream", "-v", "--debug", "--kinds", "ConfigMap,Secret"], stream),
        "files -v": krmfn(["-v", "secret.yaml"], "", cwd=tmp_path),
        "helm": krmfn(["helm", "-v"], stream),
    }
    for mode, done in runs.items():
        assert (done.returncode != 0) == refused, (mode, done.returncode, done.stderr)
        assert_no_value(done.stderr, outside_the_items(done.stdout) if mode.startswith("function") else "")
        if refused and not mode.startswith("function"):
            assert done.stdout == "", mode  # plain modes write nothing on failure
        if refused:
            assert "Secret" in done.stderr or "item 0" in done.stderr or "document 1" in done.stderr, (mode, done.stderr)
