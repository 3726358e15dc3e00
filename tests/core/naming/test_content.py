"""naming.content: what an object of a renamed kind is, as the hash and the family read it."""

from __future__ import annotations

import pytest

from krmfn.core.naming.content import check_unique_keys, content, family_of, original_name, stale_original
from krmfn.core.naming.hashing import digest
from krmfn.core.references.kinds import renamed_kind
from krmfn.krm.resource import read_resource
from krmfn.results import InputError

CM = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: {name}
  annotations: {{{annotations}}}
data:
  level: info   # a comment the hash never sees
  "port": "8080"
binaryData:
  logo: aGk=
"""


def cm(name: str = "app", annotations: str = ""):
    return read_resource(CM.format(name=name, annotations=annotations).encode(), 0)


KIND = renamed_kind("v1", "ConfigMap")


def test_the_content_is_the_hashed_fields_as_text():
    assert content(cm(), KIND) == {"data": {"level": "info", "port": "8080"}, "binaryData": {"logo": "aGk="}}


def test_a_name_that_ends_in_its_own_content_s_suffix_is_of_the_family_before_it():
    suffix = digest("kustomize", KIND.hash_input(content(cm(), KIND)))
    assert family_of(cm(f"app-{suffix}"), KIND) == "app"
    assert family_of(cm("app-notasuffix"), KIND) == "app-notasuffix"


def test_a_recorded_family_counts_only_when_the_name_carries_it():
    hashed = f"app-{digest('kustomize', 'any content')}"
    assert original_name(cm(hashed, 'krmfn.dev/original-name: app')) == "app"
    assert original_name(cm("app-abc123", 'krmfn.dev/original-name: app')) == "app-abc123"  # no suffix's shape
    stale = cm("db", 'krmfn.dev/original-name: app')
    assert original_name(stale) == "db"
    warning = stale_original(stale)
    assert warning is not None and warning.severity == "warning" and "'app'" in warning.message


def test_a_key_written_twice_in_metadata_is_refused_naming_it():
    twice = read_resource(b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  name: b\n", 0)
    with pytest.raises(InputError, match="metadata has the key 'name' twice"):
        check_unique_keys(twice)
