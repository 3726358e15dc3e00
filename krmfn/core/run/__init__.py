"""The run that ties the concerns together, in order: the function (function) reads, the scan (scan,
on two processes for a large input: parallel) reads every object once, the plan's passes (core.plan)
decide, and the write (write) edits each object and checks it."""
