"""Plain manifest files and directories, for users without an orchestrator.

Every document of every file goes into one run, so that a Deployment in one file follows a
ConfigMap in another; each file is then put back together around its own documents, with
everything between documents (comments, separators) as it was.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from krmfn.cli.stream import config_text
from krmfn.cli.triage import skip_reason
from krmfn.core.run.function import run_streams
from krmfn.krm.limits import Limits
from krmfn.results import ConfigError, InputError, KrmfnError, Result, has_errors
from krmfn.yaml.encoding import as_lf_utf8
from krmfn.yaml.split import cut

YAML_SUFFIXES = (".yaml", ".yml")
# Files a directory walk leaves out: they configure a tool, they are not resources.
NOT_RESOURCES = frozenset({"kustomization.yaml", "kustomization.yml", "Kustomization"})


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


def kustomization_hint(path: str) -> str:
    """What to run for a kustomization: kustomize renders it, then krmfn reads the stream."""
    return f"{path} is {_kustomization(path)}"


def _kustomization(path: str) -> str:
    folder = os.path.dirname(path) or "."
    return (f"a kustomization, which kustomize renders: run kubectl kustomize {folder} | krmfn --stream, or add "
            "krmfn to it as a transformer (docs/kustomize.md)")


_CHART_LEFT_OUT = "a Helm chart, whose templates are not manifests until helm template renders them"


def find(paths: list[str]) -> tuple[list[tuple[str, bool]], list[tuple[str, str]]]:
    """The files to read: each FILE as given; each DIR walked for *.yaml and *.yml, sorted,
    without hidden files or folders, tool configuration files or Helm charts; and what a walk left
    out that a user may have meant, with why (a chart, a kustomization). A DIR that is itself a
    chart, or a kustomization named as a FILE, is an error that says what to run."""
    out: list[tuple[str, bool]] = []
    left: list[tuple[str, str]] = []
    for given in paths:
        p = Path(given)
        if p.is_dir():
            if (p / HELM_CHART).is_file():
                raise ConfigError(helm_chart_hint(given))
            found = []
            for root, dirs, files in os.walk(p):
                if root != given and HELM_CHART in files:
                    left.append((root, _CHART_LEFT_OUT))
                    dirs[:] = []
                    continue
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                found += [os.path.join(root, f) for f in files
                          if f.endswith(YAML_SUFFIXES) and not f.startswith(".") and f not in NOT_RESOURCES]
                left += [(os.path.join(root, f), _kustomization(os.path.join(root, f)))
                         for f in sorted(files) if f in NOT_RESOURCES]
            out += [(f, False) for f in sorted(found)]
        elif p.is_file():
            if p.name in NOT_RESOURCES:
                raise ConfigError(kustomization_hint(given))
            out.append((given, True))
        elif p.exists():
            raise ConfigError(f"{given} is neither a file nor a directory")
        else:
            raise ConfigError(f"{given} does not exist")
    return once(out), sorted(left)


def once(found: list[tuple[str, bool]]) -> list[tuple[str, bool]]:
    """Each file once, however many names reach it (a path given twice, a symlink, a hard link):
    by device and inode, the first name kept. A name that reaches nothing (a dangling link a walk
    found) is kept for the reader, which passes it over as it does any other non-file."""
    seen: set[tuple[int, int]] = set()
    unique = []
    for path, explicit in found:
        try:
            st = os.stat(path)
        except OSError:
            unique.append((path, explicit))
            continue
        key = (st.st_dev, st.st_ino)
        if key not in seen:
            seen.add(key)
            unique.append((path, explicit))
    return unique


@dataclass
class FilesOutcome:
    outputs: list[tuple[str, bytes]]  # every file read, with its new text
    skipped: list[tuple[str, str]]  # files a walk found that are not manifests, and what each is
    results: list[Result]
    after: list[bytes] = field(default_factory=list)  # every object's new text, in order

    @property
    def failed(self) -> bool:
        return has_errors(self.results)


def run_files(sources: list[Source], function_config: dict[str, object] | None,
              limits: Limits = Limits(), labels: Mapping[str, str] | None = None) -> FilesOutcome:
    """Run the function over the documents of all files at once; each file's new text."""
    kept: list[Source] = []
    skipped: list[tuple[str, str]] = []
    for source in sources:
        reason = None if source.explicit else skip_reason(source.text, limits.max_input_bytes)
        if reason is not None:
            skipped.append((source.path, reason))
        else:
            kept.append(source)
    if not kept:
        return FilesOutcome([], skipped, [])
    done = run_streams([s.text for s in kept], config_text(function_config), limits, [s.path for s in kept], labels)
    if done.failed:
        return FilesOutcome([], skipped, done.results)
    return FilesOutcome([(s.path, out) for s, out in zip(kept, done.outputs)], skipped, done.results, done.after)


# A document separator or end marker, with nothing but an optional comment after it; one with content
# after it on the same line (``--- {a: 1}``).
_MARKER = re.compile(rb"(?:---|\.\.\.)(?:[ \t]+#.*)?[ \t]*")
_INLINE_START = re.compile(rb"---[ \t]+(?=[^ \t#\r\n])")


def concatenate(outputs: list[tuple[str, bytes]], objects: list[bytes] | None = None) -> bytes:
    """Several files as one stream that reads as YAML whatever each file starts or ends with.

    A file's first document needs a ``---`` when another comes before it; a file that opens with
    a directive (``%YAML 1.2``) needs the document before it closed with ``...`` instead, since
    a directive after an open document is an error (kubectl's reader refuses it). A ``---`` that
    ends the file before opens an empty document, which go-yaml reads only written out: ``null``.
    ``objects``: every object's text as the files hold them; the stream is read back and must hold
    exactly these, or it is refused (a file that ends inside a block scalar with no line break
    would take one into its value).
    """
    out = b""
    for _, text in outputs:
        if out:
            if not out.endswith(b"\n"):
                out += b"\n"
            first = _first_line(text)
            if first.startswith(b"%"):
                last = _last_line(out)
                if last.startswith(b"---") and _MARKER.fullmatch(last):
                    out += b"null\n"  # the empty document "---" opens, written out: go-yaml wants a node
                if last != b"...":
                    out += b"...\n"
            elif not (_MARKER.fullmatch(first) or _INLINE_START.match(first)) or first.startswith(b"..."):
                out += b"---\n"
        out += text
    if objects is not None and len(outputs) > 1:
        _read_back(out, objects, outputs)
    return out


def _read_back(stream: bytes, objects: list[bytes], outputs: list[tuple[str, bytes]]) -> None:
    """The stream printed for several files holds exactly their objects' texts, each in place."""
    try:
        read = list(cut(as_lf_utf8(stream), stream=True).items)
    except KrmfnError:
        read = []
    if read != objects:
        ends = [path for path, text in outputs[:-1] if not text.endswith(b"\n")]
        why = (f"{ends[0]} ends without a line break, and the one printing it before the next file adds would "
               "change the value it ends with" if ends else "the files printed as one stream would read differently")
        raise InputError(f"{why}; end the file with a line break, or write the files back with -i")


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
