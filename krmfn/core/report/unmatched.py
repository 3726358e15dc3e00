"""A run that renames nothing, and a rule that reached nothing, say so.

Why: a misspelt name in ``names``, a selector no object's labels match, or a render nobody opted
in is no error (a render may hold none of them today), but a run that changes nothing and says
nothing looks like success. A run that renames nothing gives one result (topic NOTHING_RENAMED:
the shell modes print it whatever the verbosity; the bare function mode keeps it an info); each
rule that reached no object gives an info (``-v``), naming the rule as the user gave it.
"""

from __future__ import annotations

from collections import Counter

from krmfn.core.config import Config
from krmfn.core.naming.content import original_name
from krmfn.core.naming.retention import OPT_IN
from krmfn.core.references.kinds import plural
from krmfn.core.run.scan import Scanned
from krmfn.results import NOTHING_RENAMED, Result


def quiet_rules(scanned: Scanned, config: Config) -> list[Result]:
    """An info for each rule that reached no object, and the one result of a run that renames nothing."""
    out = _unmatched(scanned, config)
    if not scanned.hashed:
        out.append(_nothing_renamed(scanned, config))
    return out


def _kinds(config: Config) -> str:
    return " or ".join(sorted(config.kinds))


def _unmatched(scanned: Scanned, config: Config) -> list[Result]:
    reach = [res for res in scanned.renamed if res.kind in config.kinds]
    out: list[Result] = []
    if config.names:
        known = _names(scanned)
        for name in sorted(config.names):
            if any(name in known[res.index] for res in reach):
                continue
            out.append(Result(f"{config.label('names')} {name} matches no {_kinds(config)} in the input"
                              f"{_nearest(name, scanned, known, config)}", "info"))
    if config.selector.requirements and not any(config.selector.matches(res.labels) for res in reach):
        out.append(Result(f"{config.label('selector')} {config.selector.text()} matches the labels of no "
                          f"{_kinds(config)} in the input", "info"))
    if config.select == "all" and not reach:
        out.append(Result(f"{config.label('select')} all reaches no object: the input holds no {_kinds(config)}",
                          "info"))
    return out


def _names(scanned: Scanned) -> dict[int, set[str]]:
    """The names a rule may use for each object: its own, and its family's."""
    families = {h.res.index: h.original for h in scanned.hashed}
    return {res.index: {res.name, original_name(res), families.get(res.index, res.name)} for res in scanned.renamed}


def _nearest(name: str, scanned: Scanned, known: dict[int, set[str]], config: Config) -> str:
    """Where the name was probably meant: an object of a kind ``kinds`` leaves out, or a close spelling."""
    other = next((res for res in scanned.renamed if res.kind not in config.kinds and name in known[res.index]), None)
    if other is not None:
        return (f" ({other.kind} {other.name} has that name, but {config.label('kinds')} leaves "
                f"{plural(other.kind)} out)")
    import difflib  # here, for start-up time: only a name that matched nothing needs it

    close = difflib.get_close_matches(name, sorted({n for names in known.values() for n in names}), n=1)
    return f"; did you mean {close[0]}?" if close else ""


def _nothing_renamed(scanned: Scanned, config: Config) -> Result:
    counts = Counter(res.kind for res in scanned.renamed)
    if not counts:
        return Result("nothing renamed: the input holds no ConfigMap or Secret", "info", topic=NOTHING_RENAMED)
    held = " and ".join(f"{n} {plural(kind) if n > 1 else kind}" for kind, n in sorted(counts.items()))
    declined = sum(1 for res in scanned.renamed if res.index in scanned.declined)
    out = f" ({declined} opted out with {OPT_IN}: \"false\")" if declined else ""
    rules = ("--select all, --names NAME or --selector SELECTOR" if config.from_shell else
             "select: all, names or selector in the function config")
    left_out = sorted(kind for kind in counts if kind not in config.kinds)
    kinds = (f" ({config.label('kinds')} {','.join(sorted(config.kinds | set(left_out)))} to reach "
             f"{' and '.join(plural(k) for k in left_out)} by rule)") if left_out else ""
    return Result(f"nothing renamed: none of the input's {held} opts in{out}. Opt one in with the annotation "
                  f'{OPT_IN}: "true" on it or on a workload that names it, or by rule: {rules}{kinds}', "info",
                  topic=NOTHING_RENAMED)
