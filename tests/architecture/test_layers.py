"""The layout is the architecture: each package a layer, every import pointing down.

results <- yaml <- krm <- core <- changes, gc <- cli: a module may import its own layer and the ones
below it, never one above, and no two modules may import each other, even through others
or from inside a function. A function-local import is allowed only where start-up time needs
it, and says so in a comment.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "krmfn"
LAYERS = {"results": 0, "yaml": 1, "krm": 2, "core": 3, "changes": 4, "gc": 4, "cli": 5}
# The package's own files: the version, and ``python -m krmfn`` (a shell).
TOP = {"krmfn": 0, "krmfn.__main__": 5}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def layer(module: str) -> int:
    if module in TOP:
        return TOP[module]
    return LAYERS[module.split(".")[1]]


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def imports(path: Path) -> list[tuple[str, ast.stmt, bool]]:
    """The krmfn modules a file imports: (module, statement, whether inside a function)."""
    tree = ast.parse(path.read_text(), str(path))
    known = modules()
    found: list[tuple[str, ast.stmt, bool]] = []

    def visit(node: ast.AST, local: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inner = local or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if isinstance(child, ast.ImportFrom) and child.level == 0 and (child.module or "").startswith("krmfn"):
                base = child.module or ""
                for alias in child.names:  # ``from krmfn.core.references import walk`` imports a module
                    name = f"{base}.{alias.name}"
                    found.append((name if name in known else base, child, inner))
            elif isinstance(child, ast.ImportFrom) and child.level:
                found.append((f"(relative) {child.module}", child, inner))
            elif isinstance(child, ast.Import):
                found.extend((a.name, child, inner) for a in child.names if a.name.startswith("krmfn"))
            visit(child, inner)

    visit(tree, False)
    return found


def graph() -> dict[str, set[str]]:
    return {name: {m for m, _, _ in imports(path) if m != name} for name, path in modules().items()}


def test_every_package_is_a_known_layer():
    for name in modules():
        assert name in TOP or name.split(".")[1] in LAYERS, f"{name} is in no layer: add it to LAYERS"


def test_imports_are_absolute():
    bad = [f"{name}: from {'.' * s.level}{s.module} import ..." for name, path in modules().items()  # type: ignore[attr-defined]
           for m, s, _ in imports(path) if m.startswith("(relative)")]
    assert not bad, "use absolute imports (from krmfn.core.x import ...), so that the layer reads at a glance"


@pytest.mark.parametrize("name", sorted(modules()))
def test_no_import_points_up(name: str):
    mine = layer(name)
    up = [m for m, _, _ in imports(modules()[name]) if layer(m) > mine]
    assert not up, f"{name} (layer {mine}) imports {up}, a layer above it"


def test_gc_is_not_imported_by_the_core_and_the_core_knows_no_shell():
    for name, deps in graph().items():
        if layer(name) <= LAYERS["core"]:
            assert not {d for d in deps if layer(d) >= LAYERS["gc"]}, name


def test_no_cycles():
    edges = graph()
    state: dict[str, int] = {}  # 1: on the path, 2: done
    path: list[str] = []

    def walk(node: str) -> None:
        state[node] = 1
        path.append(node)
        for dep in sorted(edges.get(node, ())):
            if state.get(dep) == 1:
                cycle = path[path.index(dep):] + [dep]
                pytest.fail("import cycle: " + " -> ".join(cycle))
            if dep not in state:
                walk(dep)
        path.pop()
        state[node] = 2

    for node in sorted(edges):
        if node not in state:
            walk(node)


def test_function_local_imports_say_why():
    """Start-up time is the one reason to import inside a function, and the comment says so."""
    unexplained = []
    for name, path in modules().items():
        lines = path.read_text().splitlines()
        tree = ast.parse("\n".join(lines))
        for fn in ast.walk(tree):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for stmt in ast.walk(fn):
                if isinstance(stmt, (ast.Import, ast.ImportFrom)):
                    here = lines[stmt.lineno - 1]
                    above = lines[max(0, stmt.lineno - 4):stmt.lineno - 1]
                    if not any("start-up time" in text for text in [here, *above]):
                        unexplained.append(f"{name}:{stmt.lineno}: {here.strip()}")
    assert not unexplained, "function-local imports without a start-up-time comment:\n" + "\n".join(unexplained)


def test_the_parser_is_behind_one_package():
    """Only krmfn.yaml reads YAML with the parser (PyYAML over libyaml): its events, marks and
    styles never leave that package, so a change of parser is a change of one package."""
    leaks = []
    for name, path in modules().items():
        if name.startswith("krmfn.yaml"):
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                leaks += [f"{name}: import {a.name}" for a in node.names if a.name.split(".")[0] == "yaml"]
            elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "yaml" and not node.level:
                leaks.append(f"{name}: from {node.module} import ...")
    assert not leaks, "the parser is imported outside krmfn.yaml:\n" + "\n".join(leaks)


# The arrays of a Doc that hold nodes by number; reading them by a node is the YAML package's own business.
_NODE_ARRAYS = {"up", "kids", "stop", "alias_of", "key_aliases"}


def node_leaks(name: str, source: str) -> list[str]:
    """Where a module outside krmfn.yaml makes a node (``Node(...)``, a ``cast`` to one) or reads
    the tree's structure by number (``doc.up[n]``, ``doc.stop[n]``...)."""
    leaks = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            if node.func.id == "Node" or (node.func.id == "cast" and "Node" in ast.unparse(node.args[0])):
                leaks.append(f"{name}:{node.lineno}: {ast.unparse(node)}")
        elif isinstance(node, ast.Attribute) and node.attr in _NODE_ARRAYS:
            leaks.append(f"{name}:{node.lineno}: {ast.unparse(node)}")
    return leaks


def test_no_node_is_made_or_walked_by_number_outside_the_yaml_package():
    """Point 5 of #18: the layers above hold nodes (yaml.tree.Node, a type mypy tells from an int)
    and pass them back to the Doc that gave them; none makes one from a number, and none walks
    the tree's parent, children or subtree arrays itself (yaml.measure does that for the limits,
    yaml.follow for the reference walk)."""
    leaks = [leak for name, path in modules().items() if not name.startswith("krmfn.yaml")
             for leak in node_leaks(name, path.read_text())]
    assert not leaks, "nodes made or walked by number outside krmfn.yaml:\n" + "\n".join(leaks)


def test_the_node_check_finds_what_it_looks_for():
    found = node_leaks("m", "a = Node(3)\nb = cast('Node', 4)\nc = doc.up[n]\nkids = doc.kids\ne = doc.get(n, 'k')\n")
    assert sorted(leak.split(":")[1] for leak in found) == ["1", "2", "3", "4"]
