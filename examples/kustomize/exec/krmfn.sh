#!/bin/sh
# kustomize runs exec functions by a path relative to the kustomization: this runs the krmfn on PATH.
exec krmfn "$@"
