import pytest
from planning import planning
from shapes import config, plain_config, stream

from krmfn.core.plan import own
from krmfn.results import ReferenceProblem


def test_each_hashed_object_gets_its_own_change():
    p = planning(own.own_changes, stream(config(), config(name="other")))
    own.own_changes(p)
    assert [c.hashed.new_name.rsplit("-", 1)[0] for c in p.changes if c and c.hashed] == ["app", "other"]


RENAMED = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: app-{suffix}
  namespace: shop
  annotations:
    krmfn.dev/content-hash: "false"
    krmfn.dev/original-name: app
data:
  level: info
"""


def test_a_name_back_that_another_object_holds_is_an_error():
    suffix = planning(own.own_changes, stream(config())).scanned.hashed[0].new_name.rsplit("-", 1)[1]
    plain = plain_config()
    p = planning(own.own_changes, stream(RENAMED.format(suffix=suffix), plain))
    with pytest.raises(ReferenceProblem, match="would get its original name back, app"):
        own.own_changes(p)
