"""Shared helpers: run the function in-process on YAML text, the way the CLI does."""

from __future__ import annotations

import os
import textwrap

import pytest
import yaml
from containers import docker, image  # noqa: F401  (session fixtures: one image build per run)
from hypothesis import settings
from tooling import PLUGIN_PATH, env_with, write_krmfn
from tooling import run as run_tool

from krmfn.cli.guard import FAILED, OK
from krmfn.core.run.function import Outcome, run_resource_list
from krmfn.results import has_errors

# Random tests are seeded (the same examples every run), so that a red run is a change's doing;
# KRMFN_RANDOM=1 searches afresh. The fuzz tests keep their own profiles.
settings.register_profile("seeded", derandomize=True, deadline=None)
settings.register_profile("random", deadline=None)
settings.load_profile("random" if os.environ.get("KRMFN_RANDOM") else "seeded")


def resource_list(items: str, function_config: str | None = None) -> str:
    """A ResourceList around ``items`` (a YAML list, dedented); ``function_config`` likewise."""
    out = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n" + textwrap.indent(textwrap.dedent(items).strip("\n"), "") + "\n"
    if function_config:
        out += "functionConfig:\n" + textwrap.indent(textwrap.dedent(function_config).strip("\n"), "  ") + "\n"
    return out


def exit_code(outcome: object) -> int:
    """The exit code the shell gives a run's outcome (the core has none of its own)."""
    return FAILED if has_errors(outcome.results) else OK  # type: ignore[attr-defined]


def run(text: str) -> Outcome:
    return run_resource_list(text.encode())


def load(outcome: Outcome) -> dict:
    return yaml.safe_load(outcome.text)


def items_by_name(outcome: Outcome) -> dict[str, dict]:
    return {(i["kind"], i["metadata"]["name"]): i for i in load(outcome)["items"]}


@pytest.fixture
def krm():
    class K:
        resource_list = staticmethod(resource_list)
        run = staticmethod(run)
        load = staticmethod(load)
        items = staticmethod(items_by_name)
    return K


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test under tests/integration drives a real tool (kpt, kubectl, docker, helm, strace, a
    fuzzer): marked ``integration``, so that ``pytest -m "not integration"`` is the inner loop."""
    for item in items:
        if "integration" in item.path.parts:
            item.add_marker(pytest.mark.integration)


@pytest.fixture
def plugin_home(tmp_path):
    """A plugin home with krmfn's legacy exec plugin, installed by ``krmfn install-kustomize-plugin``
    (the work tree's krmfn in ``tmp_path/bin``), for ``kubectl kustomize --enable-alpha-plugins``."""
    bin_dir = tmp_path / "bin"
    write_krmfn(bin_dir)
    home = tmp_path / "plugins"
    done = run_tool(["krmfn", "install-kustomize-plugin", str(home)], env=env_with(bin_dir))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(home / PLUGIN_PATH)
    return home
