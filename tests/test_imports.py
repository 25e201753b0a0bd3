"""The tree's shape, read from the source: no import circles, and no module longer than one sitting's read
unless it says near its top why it is one.

An import circle counts every import a module makes: at the top, inside a function, and under
``if TYPE_CHECKING:``. An import moved into a function or under TYPE_CHECKING hides a circle from the
interpreter; the two modules still cannot be read, tested or moved apart. A circle is broken by the
direction of the layers (a port or protocol type in the lower module, or the shared piece moved where both
import it downwards), as ``docs/architecture.md`` says the rooms call each other.

The imports are read with :mod:`ast` from ``src/chessatron``, nothing is imported. ``import a.b``,
``from a.b import c`` and their relative forms each name the most precise module they reach:
``from . import x`` where ``x`` is a module imports that module, ``from .x import name`` imports ``x``.
Importing a submodule runs its packages' ``__init__`` too, but that is not counted: otherwise a package
whose ``__init__`` imports its own submodules would make a circle with any submodule importing a name from
a sibling.
"""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "src" / "chessatron"

#: How long a module may be and still be read in one sitting (lines, as ``wc -l`` counts them).
MAX_LINES = 500
#: The comment a longer module carries near its top, before its first statement after the docstring:
#: ``# One module on purpose (about 640 lines): why it is not split``.
ON_PURPOSE = re.compile(r"^# One module on purpose \(about \d+ lines\): \S", re.MULTILINE)


@dataclass(frozen=True)
class Import:
    """``importer`` imports ``imported`` (dotted module names) on ``line`` of its source."""

    importer: str
    imported: str
    line: int


@dataclass(frozen=True)
class Module:
    """A module of the tree: its dotted name, its file and whether it is a package's ``__init__``."""

    name: str
    path: Path
    is_package: bool


@functools.cache
def modules(source: Path) -> dict[str, Module]:
    """Every module under the package directory ``source``, by dotted name (read once a run)."""
    found = {}
    for path in sorted(source.rglob("*.py")):
        parts = (source.name, *path.relative_to(source).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        name = ".".join(parts[:-1] if is_package else parts)
        found[name] = Module(name, path, is_package)
    return found


def imports_of(module: Module, known: Mapping[str, Module]) -> Iterator[Import]:
    """Every import of ``module`` of a module in ``known``, wherever in the file it stands."""
    package = module.name if module.is_package else module.name.rpartition(".")[0]
    for node in ast.walk(ast.parse(module.path.read_text(encoding="utf-8"), str(module.path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                up = parts[: len(parts) - (node.level - 1)]
                base = ".".join([*up, base] if base else up)
            names = [
                f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names
            ]
        else:
            continue
        for name in names:
            # the longest part of the name that is one of ours: an outside module (chess.pgn) is none
            while name and name not in known:
                name = name.rpartition(".")[0]
            if name and name != module.name:
                yield Import(module.name, name, node.lineno)


def import_graph(source: Path) -> dict[str, dict[str, Import]]:
    """For each module, the modules it imports, each with the first line that does."""
    known = modules(source)
    graph: dict[str, dict[str, Import]] = {}
    for name, module in known.items():
        edges: dict[str, Import] = {}
        for found in sorted(imports_of(module, known), key=lambda i: i.line):
            edges.setdefault(found.imported, found)
        graph[name] = edges
    return graph


def circles(graph: Mapping[str, Mapping[str, Import]]) -> list[frozenset[str]]:
    """The import circles: each set of modules that reach one another through their imports (the strongly
    connected components of more than one module, by Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []

    def visit(name: str) -> None:
        index[name] = low[name] = len(index)
        stack.append(name)
        on_stack.add(name)
        for other in graph[name]:
            if other not in index:
                visit(other)
                low[name] = min(low[name], low[other])
            elif other in on_stack:
                low[name] = min(low[name], index[other])
        if low[name] == index[name]:
            members = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                members.add(member)
                if member == name:
                    break
            if len(members) > 1:
                found.append(frozenset(members))

    for name in sorted(graph):
        if name not in index:
            visit(name)
    return found


def walk(circle: frozenset[str], graph: Mapping[str, Mapping[str, Import]]) -> list[Import]:
    """One way round ``circle``: the shortest chain of imports from its first module back to it."""
    start = min(circle)
    paths: dict[str, list[Import]] = {start: []}
    queue = [start]
    for name in queue:
        for other, found in sorted(graph[name].items()):
            if other == start:
                return [*paths[name], found]
            if other in circle and other not in paths:
                paths[other] = [*paths[name], found]
                queue.append(other)
    raise AssertionError(f"{sorted(circle)!r} is no circle")


def path_of(name: str, source: Path) -> str:
    """A module's file under ``source``, as messages name it (``game/players/buttons.py``)."""
    module = modules(source)[name]
    return module.path.relative_to(source).as_posix()


def describe(circle: frozenset[str], graph: Mapping[str, Mapping[str, Import]], source: Path) -> str:
    """A circle as its files and, one way round it, the import lines that close it."""
    steps = walk(circle, graph)
    lines = [f"      {path_of(step.importer, source)}:{step.line} imports {step.imported}" for step in steps]
    files = ", ".join(sorted(path_of(name, source) for name in circle))
    return f"{files}; one way round:\n" + "\n".join(lines)


def test_no_module_imports_itself_round_a_circle() -> None:
    graph = import_graph(SOURCE)
    problems = [f"  an import circle: {describe(circle, graph, SOURCE)}" for circle in circles(graph)]
    assert not problems, (
        "import circles (break each by the direction of the layers, never by moving an import into a "
        "function or under TYPE_CHECKING):\n" + "\n".join(problems)
    )


def test_the_circle_finder_counts_every_import_but_a_package_of_its_own_submodules(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    files = {
        # an __init__ importing its submodules, which import from each other: no circle
        "__init__.py": "from .a import A\nfrom .b import B\nfrom pkg import sub\n",
        "a.py": "import pkg.sub.d\nfrom .c import C\nA = 1\n",
        # a circle made of an import under TYPE_CHECKING and one inside a function
        "b.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .c import C\nB = 2\n",
        "c.py": "C = 3\n\n\ndef later():\n    from . import b\n    return b\n",
        "sub/__init__.py": "",
        # a circle through a package: a relative import upwards, an absolute one down
        "sub/d.py": "from ..a import A\n",
    }
    for name, text in files.items():
        (package / name).parent.mkdir(parents=True, exist_ok=True)
        (package / name).write_text(text)
    graph = import_graph(package)
    found = {frozenset(path_of(name, package) for name in circle) for circle in circles(graph)}
    assert found == {frozenset({"b.py", "c.py"}), frozenset({"a.py", "sub/d.py"})}
    assert describe(frozenset({"pkg.b", "pkg.c"}), graph, package) == (
        "b.py, c.py; one way round:\n      b.py:3 imports pkg.c\n      c.py:5 imports pkg.b"
    )


def header(path: Path) -> str:
    """A module's text before its first statement after the docstring: where it says what it is."""
    text = path.read_text(encoding="utf-8")
    body = ast.parse(text).body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    if not body:
        return text
    return "".join(text.splitlines(keepends=True)[: body[0].lineno - 1])


def too_long(source: Path) -> dict[str, int]:
    """Modules over :data:`MAX_LINES` that do not say near their top why they are one, with their length."""
    long = {}
    for path in sorted(source.rglob("*.py")):
        count = len(path.read_text(encoding="utf-8").splitlines())
        if count > MAX_LINES and not ON_PURPOSE.search(header(path)):
            long[path.relative_to(source).as_posix()] = count
    return long


def test_no_module_is_longer_than_a_sitting_unless_it_says_why() -> None:
    problems = [
        f"  {path}: {count} lines; split it by responsibility, or say why not near its top "
        "(# One module on purpose (about N lines): why)"
        for path, count in too_long(SOURCE).items()
    ]
    assert not problems, f"modules over {MAX_LINES} lines:\n" + "\n".join(problems)


@pytest.mark.parametrize(
    ("where", "flagged"),
    [("before the imports", False), ("below the imports", True), ("nowhere", True)],
)
def test_the_reason_for_a_long_module_counts_only_near_its_top(
    tmp_path: Path, where: str, flagged: bool
) -> None:
    reason = "# One module on purpose (about 600 lines): one state machine.\n"
    code = "import math\n" + "X = math.pi\n" * MAX_LINES
    parts = {
        "before the imports": ['"""A module."""\n\n', reason, "\n", code],
        "below the imports": ['"""A module."""\n\n', code, reason],
        "nowhere": ['"""A module."""\n\n', code],
    }[where]
    (tmp_path / "long.py").write_text("".join(parts))
    assert ("long.py" in too_long(tmp_path)) is flagged
