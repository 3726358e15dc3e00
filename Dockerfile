# krmfn as a containerised KRM function (kpt `--image`, kustomize `container:`).
#
# Offline build from local parts (what CI does; no registry is needed):
#   .ci/docker-up.sh && .ci/base-image.sh && .ci/wheels.sh
#   docker build --network none --build-arg BASE=krmfn-base:bookworm -t krmfn .
# Elsewhere the default base is the public python:3.11-slim, with the same
# dist/wheels/ prepared by .ci/wheels.sh.
#
# Run:  docker run --rm -i --network none --read-only --user nobody krmfn < resourcelist.yaml
ARG BASE=python:3.11-slim

FROM ${BASE} AS builder
ENV PIP_NO_INDEX=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_ROOT_USER_ACTION=ignore
COPY dist/wheels/pip/pip-*.whl /tmp/pip.whl
COPY requirements.lock /tmp/requirements.lock
COPY dist/wheels/ /tmp/wheels/
# The base may have no pip (python3-minimal): pip runs from its own wheel.
# Dependencies come hash-checked from the lock; the project itself without deps.
RUN python3 /tmp/pip.whl/pip install --quiet --target /opt/krmfn --find-links /tmp/wheels \
        --only-binary :all: --require-hashes -r /tmp/requirements.lock \
 && python3 /tmp/pip.whl/pip install --quiet --target /opt/krmfn --no-deps /tmp/wheels/krmfn-*.whl \
 && rm -rf /opt/krmfn/bin \
 && PYTHONPATH=/opt/krmfn python3 -c "import krmfn, ryml"

FROM ${BASE}
LABEL org.opencontainers.image.title="krmfn" \
      org.opencontainers.image.description="KRM function: content-hashed ConfigMap names, references rewritten" \
      org.opencontainers.image.licenses="Apache-2.0"
COPY --from=builder /opt/krmfn /opt/krmfn
# PYTHONSAFEPATH: no working directory on sys.path; bytecode was compiled at
# install time and the root file system may be read-only.
ENV PYTHONPATH=/opt/krmfn \
    PYTHONSAFEPATH=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    LANG=C.UTF-8
USER 65534:65534
ENTRYPOINT ["python3", "-m", "krmfn"]
