"""The package's shape, pinned: small modules, no import circles, every package says what is
inside (the house issue's goals, kept true by the suite rather than by a reviewer)."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "arr"
MAX_LINES = 400
# Benchmarks are scripts that print figures; they live apart and may be long.
EXEMPT = ("bench",)


def _modules() -> dict[str, Path]:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE.parent).with_suffix("")
        parts = relative.parts[:-1] if relative.name == "__init__" else relative.parts
        found[".".join(parts)] = path
    return found


def _in_bench(name: str) -> bool:
    return name.split(".")[1:2] == list(EXEMPT)


def _module_level_imports(name: str, path: Path, known: set[str]) -> set[str]:
    """Modules of the package imported when ``name`` is imported (not those imported inside a
    function, nor under ``if TYPE_CHECKING``): the edges an import circle is made of."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    edges: set[str] = set()

    def visit(nodes: list[ast.stmt]) -> None:
        for node in nodes:
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                continue
            if isinstance(node, (ast.If, ast.Try)):
                visit(node.body)
                visit(getattr(node, "orelse", []))
                for handler in getattr(node, "handlers", []):
                    visit(handler.body)
                continue
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

    visit(tree.body)
    return {e for e in edges if e in known and e != name}


def test_no_module_outside_the_benchmarks_is_longer_than_the_house_limit() -> None:
    lines = {
        name: len(path.read_text(encoding="utf-8").splitlines())
        for name, path in _modules().items()
        if not _in_bench(name)
    }
    long = {name: n for name, n in lines.items() if n > MAX_LINES}
    assert long == {}, f"modules above {MAX_LINES} lines: {long}"


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


def test_the_package_has_no_import_circles() -> None:
    modules = _modules()
    known = set(modules)
    graph = {name: _module_level_imports(name, path, known) for name, path in modules.items()}
    assert _circle(graph) == []


def test_every_package_says_what_is_inside() -> None:
    silent = [
        name
        for name, path in _modules().items()
        if path.name == "__init__.py" and not ast.get_docstring(ast.parse(path.read_text()))
    ]
    assert silent == []
