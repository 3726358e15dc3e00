from planning import planning
from shapes import config, deployment, stream

from krmfn.core.plan import lookup


def test_every_object_of_a_renamed_kind_is_found_by_its_name_in_its_namespace():
    p = planning(lookup.build, stream(config(), deployment(), config(name="other", namespace="ops")))
    lookup.build(p)
    web = p.scanned.resources[1]
    [(found, hashed)] = p.index.candidates("ConfigMap", "app", web)
    assert found.name == "app" and hashed is not None and hashed.new_name.startswith("app-")
    assert p.index.candidates("ConfigMap", "other", web) == []
    assert [r.namespace for r, _ in p.index.elsewhere("ConfigMap", "other")] == ["ops"]
