"""The run's first steps, for tests of one module further on: a ResourceList read, its config and
its scan, so that a test calls the module it is about on what a real run would hand it."""

from __future__ import annotations

from conftest import resource_list

from krmfn.core.config import Config, read_config
from krmfn.core.references.walk import ReferenceTable
from krmfn.core.run.scan import Scanned, scan
from krmfn.krm.envelope import ResourceList, read_resource_list


def scanned(items: str, function_config: str | None = None) -> tuple[ResourceList, Config, Scanned]:
    """``items`` (a YAML list, dedented) read and scanned as the function mode does, on one process."""
    rl = read_resource_list(resource_list(items, function_config).encode())
    config = read_config(rl.envelope, rl.function_config)
    return rl, config, scan(rl, config, ReferenceTable.builtin(config.field_specs))
