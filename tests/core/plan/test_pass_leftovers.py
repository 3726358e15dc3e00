from planning import planning
from shapes import config, stream

from krmfn.core.plan import leftovers

SCRIPT = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: notes
  namespace: shop
data:
  run.sh: kubectl get configmap app -o yaml
"""


def test_an_old_name_left_where_no_reference_is_warns():
    p = planning(leftovers.leftovers, stream(config(), SCRIPT.replace("configmap app", "configmap/app")))
    before = len(p.results)
    leftovers.leftovers(p)
    assert p.results[before:], "the old name in the script is said"


def test_a_run_that_renames_nothing_pays_nothing():
    p = planning(leftovers.leftovers, stream(SCRIPT))
    before = list(p.results)
    leftovers.leftovers(p)
    assert p.results == before
