"""Plain multi-document YAML streams (Helm, kustomize exec plugins, kubectl's output) through the function.

Why no framing here: the stream is read by the same reader as a ResourceList (yaml.split, libyaml's
own document events), each document an object in place; the output is the input with the changed
documents' texts in place and every other byte (separators, comments, empty lines, directives) as
it was, proven so before it is printed (krm.envelope.prove). The shell only turns the flags into
the function config and the outcome into stdout.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from krmfn.core.run.function import StreamsOutcome, run_streams
from krmfn.krm.limits import Limits
from krmfn.results import Result, has_errors
from krmfn.yaml.scalars import yaml_json


@dataclass
class StreamOutcome:
    """What a stream run prints: the transformed stream and the results; and every object's text
    before and after, for the Helm route's hook warnings."""

    stdout: bytes
    results: list[Result]
    before: Sequence[bytes]
    after: Sequence[bytes]

    @property
    def failed(self) -> bool:
        return has_errors(self.results)


def config_text(function_config: dict[str, object] | None) -> bytes | None:
    """The function config the flags made, as YAML text (JSON is YAML) for the reader."""
    return None if function_config is None else yaml_json(function_config).encode()


def run_stream(data: bytes, function_config: dict[str, object] | None, limits: Limits = Limits(),
               labels: Mapping[str, str] | None = None) -> StreamOutcome:
    """A multi-document stream in, the same stream with the function applied out."""
    done: StreamsOutcome = run_streams([data], config_text(function_config), limits, None, labels)
    return StreamOutcome(done.outputs[0] if done.outputs else b"", done.results, done.before, done.after)
