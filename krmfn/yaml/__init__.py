"""The YAML layer: libyaml events read into a tree of spans, scalars, splices, verification.

The only package that imports the parser (PyYAML over libyaml)."""
