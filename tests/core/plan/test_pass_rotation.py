from planning import planning
from shapes import deployment, stream

from krmfn.core.plan import rotation


def test_under_rotation_reloader_a_workload_gets_reload_annotations_for_what_rotates_outside_git():
    p = planning(rotation.rotation, stream(deployment(reads="from-vault")), "rotation: reloader\n")
    rotation.rotation(p)
    assert p.changes[0] is not None and p.changes[0].rotation


def test_with_rotation_and_audit_off_nothing_is_looked_at():
    p = planning(rotation.rotation, stream(deployment(reads="from-vault")), "rotation: 'off'\naudit: 'off'\n")
    before = list(p.results)
    rotation.rotation(p)
    assert p.changes == [None] and p.results == before
