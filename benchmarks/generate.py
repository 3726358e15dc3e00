"""Make the benchmark ResourceList: N ConfigMaps (ten 200-byte values each) and 4N workloads.

The default N=1000 gives the issue's 5,000 items (about 7 MB). Deterministic: same N, same bytes.
"""

from __future__ import annotations

import random
import sys

WORKLOAD_KINDS = (("apps/v1", "Deployment"), ("apps/v1", "StatefulSet"), ("apps/v1", "DaemonSet"), ("batch/v1", "Job"))


def configmap(i: int, rng: random.Random) -> str:
    lines = [f"- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: config-{i}\n    namespace: ns-{i % 7}\n"
             f"    annotations:\n      krmfn.dev/content-hash: \"true\"\n      config.kubernetes.io/index: '{i}'\n"
             f"      config.kubernetes.io/path: 'cm/config-{i}.yaml'\n  data:\n"]
    for k in range(10):
        value = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789 ") for _ in range(200))
        lines.append(f"    key-{k}: \"{value}\"\n")
    return "".join(lines)


def workload(j: int, n_cm: int) -> str:
    api, kind = WORKLOAD_KINDS[j % len(WORKLOAD_KINDS)]
    cm = j % n_cm
    ns = cm % 7
    containers = "".join(
        f"""        - name: c{c}
          image: registry.example.com/app:{j}.{c}
          args: ["--port", "80{c}", "--verbose"]
          ports:
          - containerPort: 80{c}
            protocol: TCP
          resources:
            limits: {{cpu: 500m, memory: 256Mi}}
          envFrom:
          - configMapRef:
              name: config-{cm}
          env:
          - name: LEVEL
            valueFrom:
              configMapKeyRef:
                name: config-{cm}
                key: key-{c}
          - name: PLAIN
            value: "x{j}"
          volumeMounts:
          - name: cfg
            mountPath: /etc/cfg
"""
        for c in range(1)
    )
    return f"""- apiVersion: {api}
  kind: {kind}
  metadata:
    name: app-{j}
    namespace: ns-{ns}
    labels:
      app.kubernetes.io/name: app-{j}
      tier: backend
    annotations:
      config.kubernetes.io/index: '0'
      config.kubernetes.io/path: 'apps/app-{j}.yaml'
  spec:
    selector:
      matchLabels:
        app.kubernetes.io/name: app-{j}
    template:
      metadata:
        labels:
          app.kubernetes.io/name: app-{j}
      spec:
        serviceAccountName: app
        containers:
{containers}        volumes:
        - name: cfg
          configMap:
            name: config-{cm}
        - name: proj
          projected:
            sources:
            - configMap:
                name: config-{cm}
"""


def resource_list(n_cm: int = 1000) -> str:
    rng = random.Random(42)
    parts = ["apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"]
    parts += [configmap(i, rng) for i in range(n_cm)]
    parts += [workload(j, n_cm) for j in range(4 * n_cm)]
    return "".join(parts)


if __name__ == "__main__":
    sys.stdout.write(resource_list(int(sys.argv[1]) if len(sys.argv) > 1 else 1000))
