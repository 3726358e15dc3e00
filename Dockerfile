# krmfn as a containerised KRM function (kpt `--image`, kustomize `container:`).
#
# Build it with `make image` (.ci/image.sh): it prepares dist/wheels/ on the host
# (.ci/wheels.sh), picks the base (python:3.11-slim, or, where no registry is reachable, the
# local krmfn-base:bookworm that .ci/base-image.sh builds from Debian packages), builds with
# --network none, and tags localhost/krmfn:<version>, the name the examples use.
#
# Run:  docker run --rm -i --network none --read-only localhost/krmfn:0.1.0 < resourcelist.yaml
ARG BASE=python:3.11-slim

FROM ${BASE} AS builder
# The classic builder leaves this stage's image behind, untagged; .ci/image.sh removes it by this label.
ARG KRMFN_BUILD=
LABEL dev.krmfn.build=${KRMFN_BUILD}
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
 && PYTHONPATH=/opt/krmfn python3 -c "import krmfn, yaml; assert yaml.__with_libyaml__"

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
