"""Every krmfn module is imported by a test file of the inner loop, so that a failure points at
the module that broke instead of at an end-to-end run through twenty of them (issue #38).

"Imported" is read from the test files' own import statements (``import krmfn.x``, ``from
krmfn.x import y``, ``from krmfn.x import module``), at any depth of the file. The files are
``tests/**/test_*.py`` outside ``tests/integration/``: integration tests drive real tools and
are left out of ``-m 'not integration'``, and a helper module (conftest.py, units.py) is not a
test of what it imports. A package whose ``__init__.py`` holds nothing but a docstring has
nothing to import and is not counted.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "krmfn"
TESTS = ROOT / "tests"

# Modules no test file needs to import, each with the reason.
EXEMPT = {
    # ``python -m krmfn``: one line that runs cli.main and exits, so importing it ends the test
    # process; tests/cli/test_cli.py runs it as a process.
    "krmfn.__main__": "runs the shell on import",
}


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def holds_code(path: Path) -> bool:
    """Whether a module has anything to import: a package's ``__init__.py`` may hold only a docstring."""
    body = ast.parse(path.read_text(), str(path)).body
    return any(not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant)) for s in body)


def krmfn_modules() -> set[str]:
    return {module_name(p) for p in PACKAGE.rglob("*.py") if holds_code(p)}


def inner_loop_tests() -> list[Path]:
    return sorted(p for p in TESTS.rglob("test_*.py") if "integration" not in p.relative_to(TESTS).parts)


def imported_by(path: Path) -> set[str]:
    """Every name a file's import statements could mean as a krmfn module."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{a.name}" for a in node.names)  # ``from krmfn.x import module``
    return {n for n in names if n == "krmfn" or n.startswith("krmfn.")}


def test_every_module_is_imported_by_a_test_file():
    imported = set().union(*(imported_by(p) for p in inner_loop_tests()))
    untested = sorted(krmfn_modules() - imported - set(EXEMPT))
    assert not untested, ("no test file imports " + ", ".join(untested) + ": add tests/<layer>/test_<module>.py "
                          "asserting what its public functions do, so that a failure names the module")


def test_the_exemptions_name_modules_that_exist():
    known = krmfn_modules()
    assert set(EXEMPT) <= known


def test_the_reading_sees_every_form_of_import(tmp_path):
    test = tmp_path / "test_x.py"
    test.write_text("import krmfn.yaml.split\nfrom krmfn.core.run import write\n"
                    "def f():\n    from krmfn.cli.parser import Parser\n")
    assert {"krmfn.yaml.split", "krmfn.core.run.write", "krmfn.cli.parser"} <= imported_by(test)
