"""krmfn: a KRM function that makes ConfigMaps content-addressed and immutable."""

__version__ = "0.1.0"
