"""Small streams the pass tests share, written as kubectl and editors write them."""

CONFIG = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: {name}
  namespace: {namespace}
  annotations:
    krmfn.dev/content-hash: "true"
data:
  level: {level}
"""

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {name}
  namespace: {namespace}
spec:
  selector:
    matchLabels: {{app: {name}}}
  template:
    metadata:
      labels: {{app: {name}}}
    spec:
      containers:
      - name: app
        image: app:1
        envFrom:
        - configMapRef:
            name: {reads}
"""


def config(name: str = "app", namespace: str = "shop", level: str = "info") -> str:
    return CONFIG.format(name=name, namespace=namespace, level=level)


def plain_config(name: str = "app", namespace: str = "shop") -> str:
    """The same ConfigMap with no opt-in mark."""
    return config(name, namespace).replace('  annotations:\n    krmfn.dev/content-hash: "true"\n', "")


def deployment(reads: str = "app", name: str = "web", namespace: str = "shop") -> str:
    return DEPLOYMENT.format(name=name, namespace=namespace, reads=reads)


def stream(*documents: str) -> str:
    """Documents joined as kubectl prints them, with a comment and an empty line an editor leaves."""
    return "# rendered\n---\n" + "\n---\n".join(documents)
