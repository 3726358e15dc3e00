"""The modes with arguments: FILE|DIR, ``--stream``, ``helm``, ``plugin``, the plugin
installers, and a ResourceList with flags. Their options come from flags (and, for Helm, from
``KRMFN_*`` variables), turned into a functionConfig by :mod:`krmfn.cli.options`.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from krmfn.cli import installers as plugin
from krmfn.cli.files import NOT_RESOURCES, Source, concatenate, find, kustomization_hint, run_files
from krmfn.cli.function_mode import resource_list_mode
from krmfn.cli.guard import FAILED, OK, USAGE, guarded, report, say
from krmfn.cli.options import (
    ENVIRONMENT,
    Flags,
    from_environment,
    function_config,
    labels,
    parse_size,
    read_field_specs,
)
from krmfn.cli.parser import Parser, comma_list
from krmfn.cli.reading import read_files, read_limited
from krmfn.cli.stream import run_stream
from krmfn.cli.writeback import Interrupted, write_back
from krmfn.core.config import AUDIT_LEVELS, ROTATIONS, STRATEGIES, read_config_file
from krmfn.core.naming.hashing import ALGORITHMS
from krmfn.core.naming.retention import RETENTION
from krmfn.core.references.kinds import RENAMED
from krmfn.krm.limits import Limits
from krmfn.results import ConfigError

__all__ = ["main"]


@dataclass(frozen=True)
class Mode:
    """One entry of the mode list: ``--help`` prints the table, docs/options.md shows the same text
    (a test compares them), and the usage line names each ``command``, so none of them drifts."""

    synopsis: str
    summary: tuple[str, ...]  # its lines, as --help shows them
    command: str | None = None  # the first argument that selects it, if one does


MODE_TABLE: tuple[Mode, ...] = (
    Mode("krmfn", (
        "read a KRM ResourceList on stdin, write one on stdout: the mode kpt",
        "(fn eval --exec, fn render), kustomize (transformers: exec/container)",
        "and the container image use. Options come from its functionConfig.")),
    Mode("krmfn [OPTIONS] FILE|DIR ...", (
        "plain manifests: every document of every file in one run, written",
        "to stdout as one stream, or back to the files with --in-place. A",
        "DIR is walked for *.yaml and *.yml (hidden entries, kustomization",
        "files and files with no Kubernetes object are left out).")),
    Mode("krmfn --stream [OPTIONS]", (
        "a plain multi-document YAML stream on stdin, the same on stdout",
        "(krmfn [OPTIONS] - is the same).")),
    Mode("krmfn helm [OPTIONS]", (
        "Helm post-renderer: a stream, options also from KRMFN_* variables",
        "(Helm 3: --post-renderer krmfn --post-renderer-args helm, or the",
        "script install-helm-plugin writes; Helm 4: the plugin it writes)."), "helm"),
    Mode("krmfn plugin CONFIG [OPTIONS]", (
        "kustomize legacy exec plugin: CONFIG is the ContentHash transformer",
        "file kustomize passes; a stream on stdin and stdout."), "plugin"),
    Mode("krmfn install-kustomize-plugin [DIR]", (
        "write the exec plugin <DIR>/fn.krmfn.dev/v1alpha1/contenthash/",
        "ContentHash (DIR: $KUSTOMIZE_PLUGIN_HOME, else",
        "$XDG_CONFIG_HOME/kustomize/plugin, else ~/.config/kustomize/plugin)."), "install-kustomize-plugin"),
    Mode("krmfn install-helm-plugin DIR", (
        "write a Helm 4 post-renderer plugin (plugin.yaml and the script",
        "krmfn-post-renderer, which Helm 3 can run directly)."), "install-helm-plugin"),
    Mode("krmfn gc ...", (
        "delete old hashed ConfigMaps and Secrets no rollback needs",
        "(krmfn gc --help)."), "gc"),
    Mode("krmfn plan OLD NEW", (
        "what a config change does: keys changed, workloads that roll and how",
        "(krmfn plan --help)."), "plan"),
)
COMMANDS = tuple(m.command for m in MODE_TABLE if m.command)
_SUMMARY_AT = 33  # the column each summary starts at


def _mode_list() -> str:
    """MODE_TABLE as --help prints it: a synopsis too long for its column gets a line of its own."""
    out = ["modes:"]
    for mode in MODE_TABLE:
        head = f"  {mode.synopsis}"
        lines = list(mode.summary)
        if len(head) + 2 > _SUMMARY_AT:
            out.append(head)
        else:
            out.append(head.ljust(_SUMMARY_AT) + lines.pop(0))
        out += [" " * _SUMMARY_AT + line for line in lines]
    return "\n".join(out) + "\n"


# In --help and in docs/options.md alike (a test keeps them the same).
MODE_LIST = _mode_list()
MODES = MODE_LIST + """
environment (helm mode only; flags win): KRMFN_SELECT, KRMFN_NAMES, KRMFN_SELECTOR, KRMFN_KINDS,
  KRMFN_HONOR, KRMFN_ALGORITHM, KRMFN_RETENTION, KRMFN_SUFFIX_JOBS, KRMFN_STRATEGY,
  KRMFN_DEFAULT_NAMESPACE, KRMFN_AUDIT, KRMFN_ROTATION, KRMFN_FIELD_SPECS, KRMFN_CONFIG, KRMFN_MAX_INPUT_SIZE.

"""

# In --help and in the README alike (a test keeps them the same).
EXIT_STATUS = """\
exit status (krmfn gc has its own: krmfn gc --help):
  0  success
  1  the function reported an error in the input; nothing was written
  2  usage: bad arguments, options or files, nothing piped in; or an internal error
"""


def _add_options(p: argparse.ArgumentParser) -> None:
    """The function's options as flags: the same fields as functionConfig."""
    g = p.add_argument_group("function options (the functionConfig fields of the same names)")
    g.add_argument("--select", choices=("annotated", "all"),
                   help="annotated (default): hash ConfigMaps annotated krmfn.dev/content-hash: \"true\"; "
                        "all: every ConfigMap not opted out")
    g.add_argument("--names", type=comma_list, action="extend", metavar="NAME[,NAME...]",
                   help="also hash these ConfigMaps (by original name); repeatable")
    g.add_argument("--selector", "-l", metavar="SELECTOR",
                   help="also hash ConfigMaps whose labels match (kubectl -l syntax: 'tier in (web,api),!legacy')")
    g.add_argument("--kinds", type=comma_list, action="extend", metavar="KIND[,KIND...]",
                   help="the kinds --select, --names and --selector reach: ConfigMap (default), "
                        f"{', '.join(k.kind for k in RENAMED[1:])}; repeatable")
    g.add_argument("--honor", type=comma_list, action="extend", metavar="TOOL[,TOOL...]",
                   help="also opt in what these tools' workload annotations name: reloader (Stakater Reloader), "
                        "autoreload (the Kyverno autoreload policy); repeatable")
    g.add_argument("--algorithm", choices=ALGORITHMS,
                   help="kustomize (default): 10 characters, identical to configMapGenerator; sha256: 16 hex digits")
    g.add_argument("--retention", type=comma_list, action="extend", metavar="TARGET[,TARGET...]",
                   help=f"add the annotations that keep old versions from pruning: {', '.join(RETENTION)}; repeatable")
    g.add_argument("--suffix-jobs", action=argparse.BooleanOptionalAction, default=None,
                   help="rename Jobs that name a hashed ConfigMap after it (a Job's pod template is immutable)")
    g.add_argument("--strategy", choices=STRATEGIES,
                   help="suffix (default): rename each hashed object <name>-<hash>, immutable; annotation: keep its "
                        "name and put a hash of its content in every referrer's pod template")
    g.add_argument("--default-namespace", metavar="NS",
                   help="what an empty metadata.namespace means in this render (default: default, as in kustomize); "
                        "the NS of `kubectl apply -n NS`")
    g.add_argument("--audit", choices=AUDIT_LEVELS,
                   help="config read through env, envFrom or a subPath mount that nothing rolls, and immutable "
                        "objects that keep their names: warn (default), info, or off (not looked for)")
    g.add_argument("--rotation", choices=ROTATIONS,
                   help="what rolls a workload when something it reads changes outside Git (an ExternalSecret's "
                        "target, a certificate, another team's Secret): off (default), or reloader (krmfn writes "
                        "Reloader's reload annotations naming exactly those objects)")
    g.add_argument("--field-specs", metavar="FILE",
                   help="more places that name ConfigMaps: a YAML list of {kind, group, version, path}, or a "
                        "kustomize nameReference configuration")
    g.add_argument("--config", metavar="FILE",
                   help="a functionConfig file (kind ContentHash, or a v1 ConfigMap); flags override its fields")
    p.add_argument("--max-input-size", type=_size, metavar="SIZE",
                   help=f"refuse input larger than SIZE bytes (suffixes K, M, G; default "
                        f"{Limits().max_input_bytes >> 20}M)")
    p.add_argument("-v", "--verbose", action="store_true",
                   help="also print info results on stderr (the one saying a run renamed nothing is always "
                        "printed), and what each warning's long form holds")
    p.add_argument("--debug", action="store_true", help="show a traceback on internal errors")


def _size(text: str) -> int:
    try:
        return parse_size(text)
    except ConfigError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a size; use bytes, or a number with K, M or G "
                                         "(e.g. 512M)") from None


def _parser() -> argparse.ArgumentParser:
    p = Parser(
        prog="krmfn",
        usage=f"krmfn [OPTIONS] [FILE|DIR ...]  |  krmfn {{{','.join(COMMANDS)}}} ...",
        description="Content-hash the names of ConfigMaps and Secrets (and SealedSecrets, ExternalSecrets and "
                    "SecretProviderClasses), make them immutable, and rewrite every reference, so a config "
                    "change rolls the workloads that read it. With no arguments, reads a KRM ResourceList on "
                    "stdin and writes one on stdout.",
        epilog=f"{MODES}\n{EXIT_STATUS}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("paths", nargs="*", metavar="FILE|DIR", help="manifest files or directories to transform")
    p.add_argument("--stream", action="store_true", help="read a plain multi-document YAML stream on stdin")
    p.add_argument("--in-place", "-i", action="store_true", help="with FILE|DIR: write changed files back")
    _add_options(p)
    return p


def _mode_parser(mode: str, usage: str, description: str) -> argparse.ArgumentParser:
    p = Parser(prog=f"krmfn {mode}", usage=usage, description=description)
    _add_options(p)
    return p


def main(argv: list[str]) -> int:
    """Every mode but the bare function mode and gc (cli.main dispatches those)."""
    commands: dict[str, Callable[[list[str]], int]] = {
        "helm": _helm, "plugin": _plugin,
        "install-kustomize-plugin": _install_kustomize, "install-helm-plugin": _install_helm,
    }
    if argv[:1] and argv[0] in commands:
        return commands[argv[0]](argv[1:])
    args = _parser().parse_args(argv)
    if "-" in args.paths:  # stdin, as kubectl -f - and most Unix tools read it
        if args.paths != ["-"]:
            return _usage("- reads stdin as a plain stream: give it alone, not with FILE|DIR arguments")
        if args.in_place:
            return _usage("--in-place writes files back, and - (stdin) is no file: give FILE|DIR arguments")
        args.paths, args.stream = [], True
    if args.paths and args.stream:
        return _usage("--stream reads stdin: give either FILE|DIR arguments or --stream")
    if args.in_place and not args.paths:
        return _usage("--in-place writes files back: it needs FILE|DIR arguments")
    if args.paths or args.stream:
        return guarded(lambda: _files(args) if args.paths else _stream(args), args.debug)
    given = [f"--{k.replace('_', '-')}" for k in ("select", "names", "selector", "kinds", "honor", "algorithm",
                                                  "retention", "suffix_jobs", "strategy", "default_namespace",
                                                  "audit", "rotation", "field_specs", "config")
             if getattr(args, k) is not None]
    if given:
        return _usage(f"{given[0]} applies to FILE|DIR, --stream, helm and plugin modes; a ResourceList "
                      "takes its options from functionConfig")
    return resource_list_mode(_limits(args), args.debug)


# --- the plain-stream modes -------------------------------------------------------------------

def _usage(message: str) -> int:
    say(message)
    return USAGE


def _read(path: str, what: str, variable: str | None = None) -> bytes:
    """A file an option names (``variable``: the KRMFN_* variable that named it, said in the error)."""
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        named = f", named by {variable}" if variable else ""
        raise ConfigError(f"cannot read {what} {path}{named} ({exc.strerror})") from None


def _function_config(args: argparse.Namespace,
                     config_path: str | None = None) -> tuple[dict[str, object] | None, dict[str, str]]:
    """The functionConfig for the flags (and a config file), or None when no option is given; and
    how messages name the fields the flags (or the environment) set."""
    name: str = "krmfn"
    fields: dict[str, object] = {}
    path = config_path or args.config
    if path:
        ref, fields = read_config_file(_read(path, "config file", _variable(args, "config")), path)
        name = ref.name or name
    specs = None
    if args.field_specs:
        specs = read_field_specs(_read(args.field_specs, "field specs file", _variable(args, "field_specs")),
                                 args.field_specs)
    flags = Flags(args.select, args.names, args.selector, args.algorithm, args.retention, args.suffix_jobs, specs,
                  args.kinds, args.honor, args.strategy, args.default_namespace, args.audit, args.rotation)
    given = flags.fields()
    fields.update(given)
    named = labels(given, getattr(args, "from_environment", set()))
    if not fields and not path:
        return None, named
    return function_config(name, fields, named), named


def _variable(args: argparse.Namespace, option: str) -> str | None:
    """The KRMFN_* variable an option came from (helm mode), or None for a flag."""
    if option not in getattr(args, "from_environment", ()):
        return None
    return next(var for var, opt in ENVIRONMENT.items() if opt == option)


def _limits(args: argparse.Namespace) -> Limits:
    return Limits() if args.max_input_size is None else Limits(max_input_bytes=args.max_input_size)


def _stream(args: argparse.Namespace, config_path: str | None = None, helm: bool = False) -> int:
    if sys.stdin.isatty():  # `krmfn helm` typed at a terminal, meaning a directory named helm?
        raise ConfigError("this mode reads a YAML stream on stdin, and none is piped in (a directory named "
                          "like a mode is ./NAME)")
    fc, named = _function_config(args, config_path)
    limits = _limits(args)
    data = read_limited(sys.stdin.buffer, limits.max_input_bytes)
    outcome = run_stream(data, fc, limits, named)
    if helm and not outcome.failed:  # Helm 4 passes hooks to its post-renderer, Helm 3 never does
        from krmfn.cli.helm_hooks import warnings  # imported here, for start-up time: the Helm route only

        outcome.results += warnings(outcome.before, outcome.after)
    report(outcome.results, args.verbose)
    if outcome.failed:
        return FAILED
    sys.stdout.buffer.write(outcome.stdout)
    sys.stdout.flush()
    return OK


def _files(args: argparse.Namespace) -> int:
    fc, named = _function_config(args)
    limits = _limits(args)
    found, left_out = find(args.paths)
    read, not_regular = read_files(found, limits.max_input_bytes)
    sources = [Source(path, text, explicit) for path, text, explicit in read]
    if not sources:
        kustomization = next((path for path, _ in left_out if os.path.basename(path) in NOT_RESOURCES), None)
        if kustomization is not None:
            raise ConfigError(kustomization_hint(kustomization))
        raise ConfigError(f"no *.yaml or *.yml files in {', '.join(args.paths)}")
    outcome = run_files(sources, fc, limits, named)
    report(outcome.results, args.verbose)
    if args.verbose:
        for path, why in left_out:
            say(f"skipped {path}: {why}")
        for path in not_regular:
            say(f"skipped {path}: not a regular file")
        for path, reason in outcome.skipped:
            say(f"skipped {path}: {reason}")
    if outcome.failed:
        return FAILED
    if not args.in_place:
        sys.stdout.buffer.write(concatenate(outcome.outputs, outcome.after))
        sys.stdout.flush()
        return OK
    before = {s.path: s.text for s in sources}
    try:
        done = write_back([(path, before[path], text) for path, text in outcome.outputs if text != before[path]])
    except Interrupted as exc:
        say(exc.state())
        return 128 + exc.signum
    for path in done.leftovers:
        say(f"removed {path}, a temp file an interrupted krmfn run left")
    if args.verbose:
        for path in done.written:
            say(f"wrote {path}")
    return OK


def _helm(argv: list[str]) -> int:
    p = _mode_parser("helm", "krmfn helm [OPTIONS]",
                     "Helm post-renderer: Helm's rendered stream on stdin, the transformed stream on stdout. "
                     "Options from flags, else from the KRMFN_* environment variables of the same names "
                     "(KRMFN_SELECT=all, KRMFN_RETENTION=helm, ...).")
    args = p.parse_args(argv)
    env = from_environment(os.environ)
    args.from_environment = set()  # the options taken from KRMFN_* variables: messages name those
    try:
        if "max_input_size" in env and args.max_input_size is None:
            args.max_input_size = parse_size(env["max_input_size"], "KRMFN_MAX_INPUT_SIZE")
        for key in ("select", "selector", "algorithm", "strategy", "default_namespace", "audit", "rotation",
                    "field_specs", "config"):
            if getattr(args, key) is None and key in env:
                setattr(args, key, env[key])
                args.from_environment.add(key)
        for key in ("names", "retention", "kinds", "honor"):
            if getattr(args, key) is None and key in env:
                setattr(args, key, comma_list(env[key]))
                args.from_environment.add(key)
        if args.suffix_jobs is None and "suffix_jobs" in env:
            args.from_environment.add("suffix_jobs")
            args.suffix_jobs = {"true": True, "false": False}.get(env["suffix_jobs"].strip().lower())
            if args.suffix_jobs is None:
                raise ConfigError(f"KRMFN_SUFFIX_JOBS is {env['suffix_jobs']!r}; use true or false")
    except ConfigError as exc:
        return _usage(str(exc))
    return guarded(lambda: _stream(args, helm=True), args.debug)


def _plugin(argv: list[str]) -> int:
    p = _mode_parser("plugin", "krmfn plugin CONFIG [OPTIONS]",
                     "kustomize legacy exec plugin: CONFIG is the transformer's config file (kind ContentHash, "
                     "apiVersion fn.krmfn.dev/v1alpha1); kustomize's resources on stdin, transformed on stdout. "
                     "Extra OPTIONS come from the config's argsOneLiner or argsFromFile.")
    p.add_argument("plugin_config", metavar="CONFIG")
    args = p.parse_args(argv)
    return guarded(lambda: _stream(args, args.plugin_config), args.debug)


def _command() -> list[str]:
    """How an installed script runs this krmfn: this interpreter, so a venv needs no PATH entry."""
    return [sys.executable, "-m", "krmfn"]


def _install(files: list[plugin.File], target: Path) -> int:
    for f in files:
        path = target / f.path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f.text)
        if f.executable:
            path.chmod(0o755)
        sys.stdout.write(f"{path}\n")
    return OK


def _install_kustomize(argv: list[str]) -> int:
    p = Parser(prog="krmfn install-kustomize-plugin", description=(
        "Write kustomize's legacy exec plugin for kind ContentHash, a script that runs `krmfn plugin`, to "
        "DIR/fn.krmfn.dev/v1alpha1/contenthash/ContentHash; then use it with "
        "`kubectl kustomize --enable-alpha-plugins` and KUSTOMIZE_PLUGIN_HOME=DIR."))
    p.add_argument("dir", nargs="?", metavar="DIR",
                   help="plugin home (default: $KUSTOMIZE_PLUGIN_HOME, else $XDG_CONFIG_HOME/kustomize/plugin, "
                        "else ~/.config/kustomize/plugin)")
    args = p.parse_args(argv)
    target = Path(args.dir) if args.dir else plugin.kustomize_plugin_home(os.environ)
    return guarded(lambda: _install(plugin.kustomize_plugin(_command()), target), debug=False)


def _install_helm(argv: list[str]) -> int:
    p = Parser(prog="krmfn install-helm-plugin", description=(
        "Write a Helm post-renderer plugin to DIR: plugin.yaml (Helm 4: `helm plugin install DIR`, then "
        "`--post-renderer krmfn`) and the script krmfn-post-renderer (Helm 3: `--post-renderer "
        "DIR/krmfn-post-renderer`)."))
    p.add_argument("dir", metavar="DIR")
    args = p.parse_args(argv)
    return guarded(lambda: _install(plugin.helm_plugin(_command()), Path(args.dir)), debug=False)
