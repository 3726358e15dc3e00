from planning import planning
from shapes import config, deployment, stream

from krmfn.core.plan import duplicates, referrers
from krmfn.core.plan.passes import PASSES
from krmfn.core.plan.state import Planning, RenamePlan, where


def test_an_item_s_record_is_made_once_on_first_use_and_kept():
    p = planning(duplicates.check, stream(config(), deployment()))
    assert p.changes == [None, None]
    first = p.change(1)
    assert p.change(1) is first and p.changes == [None, first]
    assert RenamePlan(p.changes, []).of(1) is first


def test_a_planning_starts_with_the_scan_s_results_and_the_config_s_namespace():
    p = planning(duplicates.check, stream(config().replace('    krmfn.dev/content-hash: "true"\n',
                                                           '    krmfn.dev/content-hash: "true"\n    krmfn.dev/typo: x\n')))
    assert isinstance(p, Planning) and p.empty == "default"
    assert [r.severity for r in p.results] == ["warning"]  # the unknown key, found by the scan
    assert p.results is not p.scanned.results  # passes add to their own list


def test_where_names_a_node_by_its_field_path():
    p = planning(referrers.resolve, stream(config(), deployment()))
    ref = p.scanned.references[1][0]
    assert where(p.scanned.resources[1], ref.node) == "spec.template.spec.containers[0].envFrom[0].configMapRef.name"


def test_the_passes_run_each_once_in_a_fixed_order():
    assert len(set(PASSES)) == len(PASSES) and PASSES[0] is duplicates.check
