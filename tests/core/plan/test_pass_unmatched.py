from planning import planning
from shapes import config, plain_config, stream

from krmfn.core.plan import unmatched


def test_a_name_in_the_config_that_matches_nothing_is_said_with_the_nearest():
    plain = plain_config()
    p = planning(unmatched.unmatched, stream(plain), "names: [apps]\n")
    unmatched.unmatched(p)
    assert any("apps" in r.message and "app" in r.message for r in p.results)


def test_a_run_that_hashes_by_annotation_says_nothing_of_rules():
    p = planning(unmatched.unmatched, stream(config()))
    before = list(p.results)
    unmatched.unmatched(p)
    assert p.results == before
