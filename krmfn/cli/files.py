"""Plain manifest files and directories, for users without an orchestrator.

Every document of every file goes into one run, so that a Deployment in one file follows a
ConfigMap in another; each file is then put back together around its own documents, with
everything between documents (comments, separators) as it was.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from krmfn.cli.stream import (
    MARKER,
    Stream,
    TextForm,
    body_origins,
    check_directives,
    check_text,
    run_documents,
    split,
    starts_document,
)
from krmfn.cli.triage import skip_reason
from krmfn.krm.limits import Limits
from krmfn.results import ConfigError, Result, has_errors

YAML_SUFFIXES = (".yaml", ".yml")
# Files a directory walk leaves out: they configure a tool, they are not resources.
NOT_RESOURCES = frozenset({"kustomization.yaml", "kustomization.yml"})


@dataclass(frozen=True)
class Source:
    path: str  # as shown in messages and used for writing back
    text: bytes
    explicit: bool  # named on the command line (never skipped), or found in a directory walk


HELM_CHART = "Chart.yaml"


def helm_chart_hint(path: str) -> str:
    """What to run for a Helm chart: its templates are not manifests until Helm renders them."""
    return (f"{path} is a Helm chart ({HELM_CHART}), whose templates krmfn cannot read before Helm renders them: "
            f"run helm template RELEASE {path} --post-renderer krmfn --post-renderer-args helm "
            "(docs/helm.md)")


def find(paths: list[str]) -> tuple[list[tuple[str, bool]], list[str]]:
    """The files to read: each FILE as given; each DIR walked for *.yaml and *.yml, sorted,
    without hidden files or folders, tool configuration files or Helm charts; and the charts a
    walk left out (a DIR that is itself a chart is an error that says what to run)."""
    out: list[tuple[str, bool]] = []
    charts: list[str] = []
    for given in paths:
        p = Path(given)
        if p.is_dir():
            if (p / HELM_CHART).is_file():
                raise ConfigError(helm_chart_hint(given))
            found = []
            for root, dirs, files in os.walk(p):
                if root != given and HELM_CHART in files:
                    charts.append(root)
                    dirs[:] = []
                    continue
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                found += [os.path.join(root, f) for f in files
                          if f.endswith(YAML_SUFFIXES) and not f.startswith(".") and f not in NOT_RESOURCES]
            out += [(f, False) for f in sorted(found)]
        elif p.is_file():
            out.append((given, True))
        elif p.exists():
            raise ConfigError(f"{given} is neither a file nor a directory")
        else:
            raise ConfigError(f"{given} does not exist")
    seen: set[str] = set()
    unique = []
    for path, explicit in out:
        key = os.path.realpath(path)
        if key not in seen:
            seen.add(key)
            unique.append((path, explicit))
    return unique, sorted(charts)


@dataclass
class FilesOutcome:
    outputs: list[tuple[str, bytes]]  # every file read, with its new text
    skipped: list[tuple[str, str]]  # files a walk found that are not manifests, and what each is
    results: list[Result]

    @property
    def failed(self) -> bool:
        return has_errors(self.results)


def run_files(sources: list[Source], function_config: dict[str, object] | None,
              limits: Limits = Limits(), labels: Mapping[str, str] | None = None) -> FilesOutcome:
    """Run the function over the documents of all files at once; each file's new text."""
    if sum(len(s.text) for s in sources) > limits.max_input_bytes:  # all files are one input
        problem = check_text(b"".join(s.text for s in sources), limits)
        if problem is not None:
            return FilesOutcome([], [], [problem])
    streams: list[tuple[Source, TextForm, Stream]] = []
    skipped: list[tuple[str, str]] = []
    origins = []
    for source in sources:
        reason = None if source.explicit else skip_reason(source.text, limits.max_input_bytes)
        if reason is not None:
            skipped.append((source.path, reason))
            continue
        problem = check_text(source.text, limits)
        if problem is not None:
            return FilesOutcome([], [], [replace(problem, message=f"{source.path}: {problem.message}")])
        form = TextForm.of(source.text)
        plain = form.plain(source.text)
        stream = split(plain)
        problem = check_directives(plain, stream)
        if problem is not None:
            return FilesOutcome([], [], [replace(problem, message=f"{source.path}: {problem.message}")])
        streams.append((source, form, stream))
        origins += body_origins(plain, stream)
    bodies = [b for _, _, s in streams for b in s.bodies]
    where = [f"document {i + 1} of {src.path}" for src, _, s in streams for i in range(len(s.bodies))]
    new, results = run_documents(bodies, function_config, limits, where, origins, labels)
    if new is None:
        return FilesOutcome([], skipped, results)
    outputs = []
    pos = 0
    for source, form, stream in streams:
        n = len(stream.bodies)
        outputs.append((source.path, form.restore(stream.join(new[pos:pos + n]))))
        pos += n
    return FilesOutcome(outputs, skipped, results)


def concatenate(outputs: list[tuple[str, bytes]]) -> bytes:
    """Several files as one stream that reads as YAML whatever each file starts or ends with.

    A file's first document needs a ``---`` when another comes before it; a file that opens with
    a directive (``%YAML 1.2``) needs the document before it closed with ``...`` instead, since
    a directive after an open document is an error (kubectl's reader refuses it). A ``---`` that
    ends the file before opens an empty document, which go-yaml reads only written out: ``null``.
    """
    out = b""
    for _, text in outputs:
        if out:
            if not out.endswith(b"\n"):
                out += b"\n"
            first = _first_line(text)
            if first.startswith(b"%"):
                last = _last_line(out)
                if last.startswith(b"---") and MARKER.fullmatch(last):
                    out += b"null\n"  # the empty document "---" opens, written out: go-yaml wants a node
                if last != b"...":
                    out += b"...\n"
            elif not (first.startswith(b"---") and starts_document(first + b"\n")):
                out += b"---\n"
        out += text
    return out


def _first_line(text: bytes) -> bytes:
    """The first line that is not blank or a comment (a marker, a directive or content)."""
    for line in text.splitlines():
        if line.strip() and not line.lstrip().startswith(b"#"):
            return line
    return b""


def _last_line(text: bytes) -> bytes:
    for line in reversed(text.splitlines()):
        if line.strip() and not line.lstrip().startswith(b"#"):
            return line.rstrip()
    return b""
