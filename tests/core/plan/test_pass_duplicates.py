import pytest
from planning import planning
from shapes import config, stream

from krmfn.core.plan import duplicates
from krmfn.results import ReferenceProblem


def test_an_object_twice_in_a_namespace_is_an_error_naming_both_places():
    p = planning(duplicates.check, stream(config(), config(level="debug")))
    with pytest.raises(ReferenceProblem, match=r"ConfigMap 'app' appears twice in namespace 'shop' \(.*1.* and .*2.*\)"):
        duplicates.check(p)


def test_the_same_name_in_two_namespaces_is_two_objects():
    p = planning(duplicates.check, stream(config(namespace="a"), config(namespace="b")))
    duplicates.check(p)
    assert p.results == []


def test_no_namespace_and_the_default_namespace_are_the_same():
    p = planning(duplicates.check, stream(config(namespace="default"), config().replace("  namespace: shop\n", "")))
    with pytest.raises(ReferenceProblem, match="appears twice in namespace 'default'"):
        duplicates.check(p)
