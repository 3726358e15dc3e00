from planning import planning
from shapes import config, deployment, stream

from krmfn.core.plan import objects


def test_each_hashed_object_says_what_it_became_and_who_follows_then_the_rollouts():
    p = planning(objects.report, stream(config(), deployment()))
    before = len(p.results)
    objects.report(p)
    said = p.results[before:]
    assert said[0].message.startswith("ConfigMap app is now app-") and "referenced by" in said[0].message
    assert said[1:] == p.fates and p.fates


def test_an_object_nothing_references_is_a_warning():
    p = planning(objects.report, stream(config()))
    objects.report(p)
    [warning] = [r for r in p.results if r.severity == "warning"]
    assert "nothing in the input references it" in warning.message and warning.topic == "unreferenced"
