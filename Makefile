# The documented entry points (README: Install). Each is one script under
# .ci/, which says what it does and what it needs; CI and the tests run the same scripts.

PYTHON ?= python3

.PHONY: wheelhouse

# dist/wheelhouse/: every wheel an offline pip or pipx install needs (.ci/wheels.sh here).
wheelhouse:
	KRMFN_PYTHON=$(PYTHON) bash .ci/wheels.sh here
