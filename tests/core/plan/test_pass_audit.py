from planning import planning
from shapes import config, deployment, plain_config, stream

from krmfn.core.plan import audit

PLAIN = plain_config()


def test_an_env_read_of_a_config_nothing_hashes_is_a_roll_path_warning():
    p = planning(audit.audit, stream(PLAIN, deployment()))
    before = len(p.results)
    audit.audit(p)
    said = p.results[before:]
    assert said and all("web" in str(r.resource) or "app" in r.message for r in said)


def test_audit_off_says_nothing():
    p = planning(audit.audit, stream(PLAIN, deployment()), "audit: 'off'\n")
    before = list(p.results)
    audit.audit(p)
    assert p.results == before


def test_a_hashed_config_is_no_roll_path_problem():
    p = planning(audit.audit, stream(config(), deployment()))
    before = len(p.results)
    audit.audit(p)
    assert p.results[before:] == []
