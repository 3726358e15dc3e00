# The documented entry points (docs/install.md: the wheelhouse, the container image). Each is one script under
# .ci/, which says what it does and what it needs; CI and the tests run the same scripts.

PYTHON ?= python3

.PHONY: image wheelhouse helm gc-image argocd-image

# The container image, tagged localhost/krmfn:<version> (.ci/image.sh).
image:
	KRMFN_PYTHON=$(PYTHON) bash .ci/image.sh

# The examples' images, built with no network (.ci/example-image.sh): gc's CronJob, Argo CD's sidecar.
gc-image:
	KRMFN_PYTHON=$(PYTHON) bash .ci/example-image.sh gc

argocd-image:
	KRMFN_PYTHON=$(PYTHON) bash .ci/example-image.sh argocd

# dist/wheelhouse/: every wheel an offline pip or pipx install needs (.ci/wheels.sh here).
wheelhouse:
	KRMFN_PYTHON=$(PYTHON) bash .ci/wheels.sh here
