from planning import planning
from shapes import deployment, stream

from krmfn.core.plan import written

CERTIFICATE = """\
apiVersion: cert-manager.io/v1
kind: Certificate
metadata:
  name: tls
  namespace: shop
spec:
  secretName: web-tls
  dnsNames: [shop.example.com]
"""

SECRET = """\
apiVersion: v1
kind: Secret
metadata:
  name: web-tls
  namespace: shop
type: kubernetes.io/tls
data:
  tls.crt: ""
  tls.key: ""
"""


def test_a_secret_a_controller_of_the_input_writes_leaves_the_plan():
    p = planning(written.leave_alone, stream(CERTIFICATE, SECRET, deployment()), 'select: all\nkinds: [ConfigMap, Secret]\n')
    assert [h.res.name for h in p.scanned.hashed] == ["web-tls"]
    written.leave_alone(p)
    assert p.scanned.hashed == []
    assert p.written == {("shop", "web-tls"): "Certificate tls's controller writes it (spec.secretName)"}
    declined = p.scanned.declined[1]
    assert declined.outside and "Certificate tls" in declined.why
    assert any("web-tls" in str(r.resource) for r in p.results)


def test_without_a_writer_nothing_changes():
    p = planning(written.leave_alone, stream(SECRET), 'select: all\nkinds: [ConfigMap, Secret]\n')
    written.leave_alone(p)
    assert [h.res.name for h in p.scanned.hashed] == ["web-tls"]
    assert p.written == {}
