"""The rename's plan: a list of passes over the scan (core.run.scan), each in its own module, each
``(Planning) -> None``. passes.py lists them in order; state.py holds what they share."""
