"""Every reason and trace code the package emits is one of ``arr.codes``' strings, named there:
no module spells a code itself (a typo there would be a new, undocumented code in a trace)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from arr import codes

PACKAGE = Path(__file__).resolve().parents[2] / "arr"
CODE_SHAPE = re.compile(r"[a-z]+(?:_[a-z0-9]+)*")
# Calls whose first argument or ``code=`` is a reason code.
CODE_TAKERS = re.compile(r"(Error|Degradation|Rejection|ToolTrace|Freshness|NotReady)$")


def _sources() -> list[tuple[Path, ast.AST]]:
    return [
        (path, ast.parse(path.read_text(encoding="utf-8")))
        for path in sorted(PACKAGE.rglob("*.py"))
        if path != PACKAGE / "codes.py"
    ]


def _literal(node: ast.AST | None) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def codes_spelled_outside(sources: list[tuple[Path, ast.AST]] | None = None) -> list[str]:
    found = []
    for path, tree in sources if sources is not None else _sources():
        where = path.name if sources is not None else path.relative_to(PACKAGE.parent)
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and CODE_TAKERS.search(ast.unparse(node.func)):
                first = _literal(node.args[0]) if node.args else None
                keyword = next((_literal(k.value) for k in node.keywords if k.arg == "code"), None)
                for value in (first, keyword):
                    if value is not None and CODE_SHAPE.fullmatch(value) and "_" in value:
                        found.append(f"{where}:{node.lineno} {value}")
            elif isinstance(node, ast.Assign) and (value := _literal(node.value)) is not None:
                named = [t.id for t in node.targets if isinstance(t, ast.Name) and t.id.isupper()]
                if named and CODE_SHAPE.fullmatch(value) and value in _all_codes():
                    found.append(f"{where}:{node.lineno} {named[0]} = {value!r}")
            elif isinstance(node, ast.Compare) and "code" in ast.unparse(node.left):
                for value in map(_literal, node.comparators):
                    if value is not None:
                        found.append(f"{where}:{node.lineno} code == {value!r}")
    return found


def _all_codes() -> set[str]:
    return {v for k, v in vars(codes).items() if k.isupper() and isinstance(v, str)}


def codes_used() -> set[str]:
    """The names of ``codes`` the package uses (``codes.X`` or ``from arr.codes import X``)."""
    used = set()
    for _, tree in _sources():
        imports_codes = any(
            isinstance(n, ast.ImportFrom)
            and n.module == "arr"
            and any(a.name == "codes" for a in n.names)
            for n in ast.walk(tree)
        )
        for node in ast.walk(tree):
            if (
                imports_codes
                and isinstance(node, ast.Attribute)
                and ast.unparse(node.value) == "codes"
            ):
                used.add(node.attr)
            elif isinstance(node, ast.ImportFrom) and node.module == "arr.codes":
                used.update(alias.name for alias in node.names)
    return used


def test_no_module_spells_a_code_itself() -> None:
    assert codes_spelled_outside() == []


def test_every_code_the_package_names_is_in_codes() -> None:
    assert codes_used() - set(vars(codes)) == set()


def test_every_code_in_codes_is_emitted_somewhere() -> None:
    """A code nobody emits is a promise the traces do not keep."""
    unused = {
        name
        for name, value in vars(codes).items()
        if name.isupper() and isinstance(value, str) and name not in codes_used()
    }
    assert unused == set()


def test_the_finder_finds_a_spelled_code() -> None:
    source = (
        'raise LLMError("llm_timeout", "x")\n'
        'X = "index_stale"\n'
        'if failure.code == "llm_deadline":\n    pass\n'
        'Degradation(stage="s", code="planner_fallback", detail="")\n'
        'raise LLMError(codes.LLM_TIMEOUT, "named: fine")\n'
    )
    found = codes_spelled_outside([(Path("m.py"), ast.parse(source))])
    assert sorted(f.split(" ", 1)[1] for f in found) == sorted(
        ["llm_timeout", "X = 'index_stale'", "code == 'llm_deadline'", "planner_fallback"]
    )
