"""The KRM layer: a ResourceList and its items as resources, the input limits, results as YAML."""
