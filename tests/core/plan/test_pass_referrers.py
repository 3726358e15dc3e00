import pytest
from planning import planning
from shapes import config, deployment, stream

from krmfn.core.plan import duplicates, lookup, marks, own, referrers, written
from krmfn.results import ReferenceProblem


def test_a_reference_to_a_hashed_object_is_rewritten_and_the_referrer_rolls():
    p = planning(referrers.resolve, stream(config(), deployment()))
    referrers.resolve(p)
    change = p.changes[1]
    [(ref, target)] = change.rewrites
    assert ref.name == "app" and target.new_name == p.changes[0].hashed.new_name
    assert [(r.kind, r.name) for r in target.referrers] == [("Deployment", "web")]
    assert len(p.fates) == 1 and "web" in str(p.fates[0].resource)


def test_a_name_not_in_the_input_is_an_info_and_left_alone():
    p = planning(referrers.resolve, stream(config(), deployment(reads="elsewhere")))
    referrers.resolve(p)
    assert p.changes[1] is None
    [info] = [r for r in p.results if "elsewhere" in r.message]
    assert info.severity == "info" and "not in the input" in info.message
    assert info.field_path == "spec.template.spec.containers[0].envFrom[0].configMapRef.name"


def test_a_name_only_in_another_namespace_warns_and_the_object_notes_who_named_it():
    p = planning(referrers.resolve, stream(config(namespace="ops"), deployment()))
    referrers.resolve(p)
    assert any(r.severity == "warning" and r.topic == "namespace" for r in p.results)
    assert list(p.trapped) == [0]


def test_a_reference_two_objects_could_mean_is_an_error():
    p = planning(duplicates.check, stream(config().replace("  namespace: shop\n", ""),
                                          config(namespace="default"), deployment(namespace="default")))
    for earlier in (written.leave_alone, lookup.build, marks.adopt, own.own_changes):  # duplicates.check refuses first
        earlier(p)
    with pytest.raises(ReferenceProblem, match="ambiguous"):
        referrers.resolve(p)
