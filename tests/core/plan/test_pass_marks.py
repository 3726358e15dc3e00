from planning import planning
from shapes import deployment, plain_config, stream

from krmfn.core.plan import marks

PLAIN = plain_config()


def marked(value: str) -> str:
    return deployment().replace("  namespace: shop\n", f"  namespace: shop\n  annotations:\n    {value}\n", 1)


def test_a_workload_mark_opts_in_what_it_names():
    p = planning(marks.adopt, stream(PLAIN, marked('krmfn.dev/content-hash: "true"')))
    assert p.scanned.hashed == []
    marks.adopt(p)
    assert [h.res.name for h in p.scanned.hashed] == ["app"]
    assert p.marked == {}  # named by the reference already: nothing beyond it


def test_without_marks_the_pass_does_nothing():
    p = planning(marks.adopt, stream(PLAIN, deployment()))
    marks.adopt(p)
    assert p.scanned.hashed == [] and p.results == [] and p.missing == set()


def test_a_mark_naming_no_object_is_a_warning_and_not_said_again():
    p = planning(marks.adopt, stream(marked("configmap.reloader.stakater.com/reload: gone"), PLAIN),
                 "honor: [reloader]\n")
    marks.adopt(p)
    assert any(r.severity == "warning" and "gone" in r.message for r in p.results)
    assert p.missing == {(0, "ConfigMap", "gone")}
