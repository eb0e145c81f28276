"""The package's shape, pinned: rooms by job on floors, small modules, no import circles, every
package says what is inside (the house issue's goals, kept true by the suite rather than by a
reviewer). Every import counts, the ones inside functions included (only ``if TYPE_CHECKING``
imports are left out: they never run)."""

from __future__ import annotations

import ast
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "arr"
MAX_LINES = 400
# The shared vocabulary: the only modules directly in arr/ (besides __init__).
VOCABULARY = ("atomic_write", "codes", "deadline", "errors", "models", "version")
MAX_TOP_MODULES = 6
# Rooms by job, on floors: a room imports only rooms on its own floor or below. The package root
# (``arr.load_router``) is the top floor's door.
FLOORS: dict[str, int] = {
    **dict.fromkeys(VOCABULARY, 0),
    "safety": 1,  # the file rule, sensitive names, secret rules
    "query": 1,  # what a query says: its shape, the paths it names, its terms in a snippet
    "readers": 2,  # papers, notebooks, LaTeX and BibTeX as views
    "workspace": 3,  # scopes, roots, the walk, chunking, watching
    "memory": 3,  # the research-memory store and its ledger
    "tools": 4,  # the channels and their contract
    "embedder": 5,
    "vector_store": 5,
    "llm": 5,  # the LLM client
    "fusion": 6,
    "ordering": 6,  # known-item rules after reranking
    "planner": 6,
    "reranker": 6,
    "router": 7,
    "compose": 8,  # config -> objects, library mode, arr index's job
    "audit": 8,  # approvals and verification
    "eval": 9,
    "mcp": 9,  # arr serve
    "cli": 10,
    "arr": 10,  # the package root
}
# Imports that climb, each with its reason; at most two.
BACK_ARROWS: dict[tuple[str, str], str] = {
    ("models", "query"): "EvidenceChunk.highlights() marks the query's terms with "
    "query.snippets (which imports nothing), so every surface shows the same marks",
}


def _modules(package: Path = PACKAGE) -> dict[str, Path]:
    found = {}
    for path in sorted(package.rglob("*.py")):
        relative = path.relative_to(package.parent).with_suffix("")
        parts = relative.parts[:-1] if relative.name == "__init__" else relative.parts
        found[".".join(parts)] = path
    return found


def _imports(name: str, path: Path, known: set[str]) -> set[str]:
    """Modules of the package ``name`` imports anywhere (module level or inside a function),
    except under ``if TYPE_CHECKING``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    edges: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            edges.update(a.name for a in node.names if a.name in known)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                target = f"{base}.{alias.name}"
                edges.add(target if target in known else base)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return {e for e in edges if e in known and e != name}


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    known = set(modules)
    return {name: _imports(name, path, known) for name, path in modules.items()}


def room(module: str) -> str:
    """``arr.tools.bm25.tool`` -> ``tools``; ``arr.codes`` -> ``codes``; ``arr`` -> ``arr``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def test_no_module_is_longer_than_the_house_limit() -> None:
    lines = {
        name: len(path.read_text(encoding="utf-8").splitlines())
        for name, path in _modules().items()
    }
    long = {name: n for name, n in lines.items() if n > MAX_LINES}
    assert long == {}, f"modules above {MAX_LINES} lines: {long}"


def test_only_the_vocabulary_lies_directly_in_the_package() -> None:
    top = sorted(p.stem for p in PACKAGE.glob("*.py") if p.name != "__init__.py")
    assert top == sorted(VOCABULARY)
    assert len(top) <= MAX_TOP_MODULES


def test_every_room_has_a_floor() -> None:
    assert {room(m) for m in _modules()} - set(FLOORS) == set()


def _climbs(graph: dict[str, set[str]]) -> dict[tuple[str, str], list[str]]:
    climbs: dict[tuple[str, str], list[str]] = {}
    for module, imported in graph.items():
        for target in imported:
            low, high = room(module), room(target)
            if FLOORS[high] > FLOORS[low]:
                climbs.setdefault((low, high), []).append(f"{module} -> {target}")
    return climbs


def test_imports_climb_only_where_the_house_says_why() -> None:
    assert set(_climbs(_graph())) == set(BACK_ARROWS)
    assert len(BACK_ARROWS) <= 2


def test_the_climb_finder_finds_a_climb() -> None:
    climbs = _climbs({"arr.tools.x": {"arr.router.y"}, "arr.router.y": {"arr.tools.x"}})
    assert climbs == {("tools", "router"): ["arr.tools.x -> arr.router.y"]}


def _circle(graph: dict[str, set[str]]) -> list[str]:
    """One import circle of ``graph`` (module -> modules it imports), or [] when none."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str]:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt) :], nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        stack.pop()
        state[node] = 2
        return []

    for name in sorted(graph):
        if name not in state and (found := visit(name)):
            return found
    return []


def test_the_circle_finder_finds_a_circle() -> None:
    assert _circle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _circle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) == []


def test_the_package_has_no_import_circles_counting_imports_inside_functions() -> None:
    assert _circle(_graph()) == []


def test_the_benchmarks_have_no_import_circle() -> None:
    """Benchmarks share what they share through ``benchmarks/common/`` (a workspace over papers,
    the baselines, the scoring), never through each other's modules."""
    modules = _modules(PACKAGE.parent / "benchmarks")
    known = set(modules)
    graph = {name: _imports(name, path, known) for name, path in modules.items()}
    assert "benchmarks.common.baselines" in graph
    assert _circle(graph) == []


def test_an_import_inside_a_function_counts(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from arr import codes\n")
    assert _imports("arr.x.m", module, {"arr.codes"}) == {"arr.codes"}


def test_every_package_says_what_is_inside() -> None:
    silent = [
        name
        for name, path in _modules().items()
        if path.name == "__init__.py" and not ast.get_docstring(ast.parse(path.read_text()))
    ]
    assert silent == []


def test_the_wheel_holds_no_benchmark_or_test_fake() -> None:
    """The wheel is ``arr/`` (pyproject); the benchmarks, the LLM fake endpoint and the other
    checkout tools live beside it, in ``benchmarks/``."""
    build = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["hatch"]["build"]
    assert build["targets"]["wheel"]["packages"] == ["arr"]
    shipped = [p.relative_to(ROOT).as_posix() for p in PACKAGE.rglob("*.py")]
    assert [p for p in shipped if "bench" in p or "fake" in p or "/test" in p] == []
    for path, text in ((p, p.read_text()) for p in PACKAGE.rglob("*.py")):
        assert "import benchmarks" not in text and "from benchmarks" not in text, path
