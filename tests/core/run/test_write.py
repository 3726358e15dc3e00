"""core.run.write on its own: pass 3 gives each item's new text from the scan and the plan, keeps
an untouched item's bytes, and refuses a text that would not read as planned."""

from __future__ import annotations

import pytest
from units import scanned

from krmfn.core.plan.passes import plan
from krmfn.core.run.write import item_edits, write
from krmfn.results import InputError

CONFIG_MAP = """
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: app-config
    annotations:
      krmfn.dev/content-hash: "true"
  data:
    a: "1"
"""
DEPLOYMENT = """
- apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: web
  spec:
    template:
      spec:
        containers:
        - name: app
          envFrom:
          - configMapRef:
              name: app-config   # set by helm
"""
SERVICE = """
- apiVersion: v1
  kind: Service
  metadata: {name: svc}  # nothing to change
"""


def planned(items: str):
    rl, config, s = scanned(items)
    return rl, config, s, plan(s, config, rl.item_name)


def test_a_reference_is_rewritten_in_place_and_its_comment_stays():
    rl, config, s, p = planned(CONFIG_MAP + DEPLOYMENT)
    _, deployment = write(s, p, config)
    assert deployment.endswith(b"          - configMapRef:\n              name: app-config-h29d89cmmt   # set by helm\n")
    assert deployment.replace(b"app-config-h29d89cmmt", b"app-config") == rl.sources[1]


def test_the_hashed_object_gets_its_name_and_marks():
    _, config, s, p = planned(CONFIG_MAP)
    (config_map,) = write(s, p, config)
    assert b"    name: app-config-h29d89cmmt\n" in config_map
    assert b"      krmfn.dev/original-name: app-config\n" in config_map
    assert config_map.endswith(b"  immutable: true\n")


def test_an_untouched_item_is_its_input_bytes_and_has_no_edits():
    rl, config, s, p = planned(CONFIG_MAP + SERVICE)
    out = write(s, p, config)
    assert out[1] == rl.sources[1]
    assert item_edits(s.resources[1], p) == []


def test_a_range_of_items_is_written_alone():
    rl, config, s, p = planned(CONFIG_MAP + SERVICE + DEPLOYMENT)
    assert write(s, p, config, start=1, stop=2) == [rl.sources[1]]


def test_a_reference_that_cannot_be_written_in_place_is_an_error_naming_the_field():
    tagged = DEPLOYMENT.replace("name: app-config   # set by helm", "name: !!str app-config")
    _, config, s, p = planned(CONFIG_MAP + tagged)
    with pytest.raises(InputError, match=r"spec\.template\.spec\.containers\[0\]\.envFrom\[0\]\.configMapRef\.name "
                                         r"must change and cannot be written in place: it carries a tag"):
        write(s, p, config)


def test_a_text_that_would_not_read_as_planned_is_refused_not_written():
    other = DEPLOYMENT.replace("name: web", "name: web-2")
    _, config, s, p = planned(CONFIG_MAP + DEPLOYMENT + other)
    s.resources[1].meaning = s.resources[2].meaning  # the same shape, read as another name
    with pytest.raises(InputError, match=r"would read differently at metadata\.name; "
                                         "krmfn writes nothing rather than a wrong value"):
        write(s, p, config)
