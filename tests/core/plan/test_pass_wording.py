from planning import planning
from shapes import config, deployment, stream

from krmfn.core.plan import wording
from krmfn.results import ResourceRef, Result


def test_results_about_a_renamed_object_name_it_as_the_output_does():
    p = planning(wording.as_output, stream(config(), deployment()))
    new = p.scanned.hashed[0].new_name
    p.results.append(Result("said of the input name", "info", ResourceRef("v1", "ConfigMap", "app", "shop")))
    wording.as_output(p)
    assert p.results[-1].resource.name == new


def test_a_warning_of_a_topic_the_object_ignores_becomes_an_info_saying_so():
    quiet = config().replace('    krmfn.dev/content-hash: "true"\n',
                             '    krmfn.dev/content-hash: "true"\n    krmfn.dev/ignore-warnings: unreferenced\n')
    p = planning(wording.as_output, stream(quiet))
    assert [r.severity for r in p.results if r.topic == "unreferenced"] == ["warning"]
    wording.as_output(p)
    [said] = [r for r in p.results if r.topic == "unreferenced"]
    assert said.severity == "info" and said.message.endswith("(silenced: krmfn.dev/ignore-warnings)")
