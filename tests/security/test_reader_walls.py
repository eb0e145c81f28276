"""Readers inside the walls: no secret or payload leaves through what a reader emits (page text,
metadata titles, headings, notebook outputs, notes), whatever wrap the typesetter put in it.

Every case is a real file (reportlab PDFs, nbformat notebooks) read by the guarded worker and
searched by the real bm25 and grep channels and the Router; each was shown whole on the code
before the walls (issue 41: the metadata title beside every item, a token broken over a line
or page end, MIME-wrapped base64 in a notebook, a quoted hex value after ``client_secret``).
"""

from __future__ import annotations

import json
import re
import secrets
from pathlib import Path

import pytest

from arr.models import ToolCall
from arr.readers.walls import credential_in, joined, strip_line
from arr.tools.bm25 import BM25Tool
from arr.tools.grep import GrepTool
from arr.workspace.workspace import Workspace
from tests.conftest import SCOPE_A, file_workspace, lexical_router
from tests.readers_fixtures import PNG_B64, pdf_bytes, write

GHP = "ghp_" + "a1B2c3D4e5F6g7H8i9J0" * 2  # 40 characters after the prefix
AWS_ID = "AKIAIOSFODNN7EXAMPLE"
# base64 runs of any length >= 24 that mix cases and digits: what no output may hold
B64_RUN = re.compile(r"[A-Za-z0-9+/]{24,}={0,2}")


def _is_payload_run(text: str) -> bool:
    return any(
        re.search("[A-Z]", m) and re.search("[a-z]", m) and re.search("[0-9]", m)
        for m in B64_RUN.findall(text)
    )


def workspace(tmp_path: Path) -> Workspace:
    return file_workspace(tmp_path, {"a": SCOPE_A}, {"notes.md": "an unrelated note\n"})


def everything_shown(ws: Workspace, queries: list[str]) -> str:
    """Every byte bm25 and grep return for the queries (snippets, full texts, titles), and
    every index file: what could leave."""
    bm25 = BM25Tool("bm25", ws)
    bm25.build(SCOPE_A)
    grep = GrepTool("grep", ws)
    shown = []
    for query in queries:
        for item in bm25.retrieve(ToolCall(tool="bm25", query=query), SCOPE_A):
            shown.append(item.model_dump_json() + item.full_text())
        for item in grep.retrieve(ToolCall(tool="grep", query=query), SCOPE_A).evidence:
            shown.append(item.model_dump_json())
    for path in ws.index_dir.rglob("*"):
        if path.is_file():
            shown.append(path.read_bytes().decode("utf-8", "replace"))
    return "\n".join(shown)


@pytest.mark.parametrize(
    ("name", "pages", "title"),
    [
        ("title.pdf", [["A paper about attention heads"]], f"Notes {GHP}"),
        ("title-aws.pdf", [["A paper about attention heads"]], f"key {AWS_ID} here"),
        ("line.pdf", [["A paper about attention heads", GHP[:20], GHP[20:] + " end"]], None),
        ("page.pdf", [["A paper about attention heads", "id " + AWS_ID[:9]], [AWS_ID[9:]]], None),
        ("space.pdf", [["A paper about attention heads", f"{GHP[:22]} {GHP[22:]}"]], None),
    ],
)
def test_a_secret_in_a_papers_metadata_or_wrapped_by_typesetting_never_leaves(
    tmp_path: Path, name: str, pages: list[list[str]], title: str | None
) -> None:
    ws = workspace(tmp_path)
    write(ws.root / "a" / name, pdf_bytes(pages, title=title))
    shown = everything_shown(ws, ["attention heads", "ghp", "AKIA", "key here"])
    for piece in (GHP[4:24], GHP[-16:], AWS_ID[4:12], AWS_ID[-8:]):
        assert piece not in shown, piece
    skipped = BM25Tool("bm25", ws).build(SCOPE_A)["skipped_files"]
    assert [name, "credential", "credential-like text"] in skipped


def test_the_walls_join_the_wraps_a_reader_may_show(tmp_path: Path) -> None:
    assert joined(f"x {GHP[:20]}\n   {GHP[20:]}") == f"x {GHP}"
    assert joined("two short\nwords stay apart") == "two shortwords stay apart"
    assert joined("a sentence with words") == "a sentence with words"  # short runs keep spaces
    from arr.readers.view import View

    prose = View(("ASIA PACIFIC CONFERENCE ON LEARNING 2019", "See Section 3."), (), False)
    assert credential_in(prose) is None  # all-caps prose is not an access key


def test_a_quoted_hex_value_after_a_secret_keyword_is_withheld_every_time(tmp_path: Path) -> None:
    """``"client_secret": "<64 hex>"``: a hex value that began with a letter passed as a
    lower-case name (about half of the random values)."""
    from arr.safety.rules import credential_kind

    values = [secrets.token_hex(32) for _ in range(200)]
    missed = [v for v in values if not credential_kind(f'{{"client_secret": "{v}"}}'.encode())]
    assert missed == []
    ws = workspace(tmp_path)
    for number, value in enumerate(values[:20]):
        write(ws.root / "a" / f"cfg{number}.json", f'{{"client_secret": "{value}"}}\n'.encode())
    found = GrepTool("grep", ws).retrieve(ToolCall(tool="grep", query="client_secret"), SCOPE_A)
    assert found.evidence == []
    # code that names a key stays searchable
    assert credential_kind(b"key = hidden_states_2d\nkey: input_ids\n") is None


def notebook(cells: list) -> bytes:  # type: ignore[type-arg]
    import nbformat
    from nbformat.v4 import new_notebook

    return nbformat.writes(new_notebook(cells=cells)).encode()


def test_payloads_in_a_notebook_never_leave_in_any_common_form(tmp_path: Path) -> None:
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_output

    long = PNG_B64 * 12
    mime = "\n".join(long[i : i + 76] for i in range(0, len(long), 76))
    cells = [
        new_markdown_cell("# Payload forms\n\nThe plotting helper draws the sweep."),
        new_code_cell(f"encoded = '''\n{mime}\n'''  # MIME, 76 columns"),
        new_code_cell(f'image = "{long}"  # plotting helper'),
        new_code_cell(
            "show(image)",
            outputs=[
                new_output("execute_result", data={"text/plain": f"b'{long}'"}, execution_count=1),
                new_output("stream", name="stdout", text=f"payload: {long}\n"),
            ],
        ),
        new_markdown_cell(f"![a](data:image/png;charset=utf-8;base64,{long}) plotting helper"),
        new_markdown_cell(f"![b](DATA:IMAGE/PNG;BASE64,{long}) plotting helper"),
        new_markdown_cell(f"![c](data:image/svg+xml%2C{long}) plotting helper"),
    ]
    ws = workspace(tmp_path)
    write(ws.root / "a" / "nb.ipynb", notebook(cells))
    shown = everything_shown(ws, ["plotting helper", "payload", "encoded MIME", "image show"])
    assert "plotting helper" in shown  # the text around each payload is still found
    assert not _is_payload_run(shown), B64_RUN.findall(shown)[:3]


def test_payload_rules_leave_identifiers_hashes_and_paths() -> None:
    for text in (
        "sha256 3f786850e387550fdab836ed7e6dc881de23001b3f786850e387550fdab836ed",
        "/usr/local/lib/python3.11/site-packages/torch/nn/modules/module.py",
        "averyveryverylongidentifiernamewithoutanyunderscoresatall",
        "model = AutoModelForSequenceClassification.from_pretrained(name)",
    ):
        assert strip_line(text)[0] == text


def test_a_search_shows_no_secret_through_the_router(tmp_path: Path) -> None:
    """The Router's result (what CLI text, --json and MCP print) for a query aimed at the
    metadata title: nothing of the token, the good paper beside it still answers."""
    ws = workspace(tmp_path)
    write(ws.root / "a" / "leak.pdf", pdf_bytes([["Gradient noise scale"]], title=f"x {GHP}"))
    write(ws.root / "a" / "good.pdf", pdf_bytes([["Gradient noise scale and batch size"]]))
    router = lexical_router(ws)
    result = router.search("gradient noise scale", SCOPE_A)
    dumped = json.loads(result.model_dump_json())
    assert [e["location"]["path"] for e in dumped["evidence"]] == ["good.pdf"]
    assert GHP[4:20] not in result.model_dump_json()


def _installed_notebooks() -> list[Path]:
    import sysconfig

    return sorted(Path(sysconfig.get_paths()["purelib"]).rglob("*.ipynb"))[:20]


@pytest.mark.skipif(not _installed_notebooks(), reason="no notebook inside installed packages")
def test_notebooks_shipped_in_installed_packages_show_no_payload(tmp_path: Path) -> None:
    """Files nobody here made (chromadb ships one with its plots as base64 PNGs)."""
    from arr.readers import Readers

    readers = Readers(tmp_path / "cache")
    for path in _installed_notebooks():
        view = readers.view(path.name, path.read_bytes())
        shown = "\n".join([*view.lines, *(u.title or "" for u in view.units)])
        assert view.units and not _is_payload_run(shown), path
    readers.close()


def test_one_huge_output_line_is_cut_by_characters_in_the_worker(tmp_path: Path) -> None:
    """A cell that printed one 30 MB line: the view keeps its head, counted, and the cut is
    made inside the worker (the parent receives bounded text)."""
    from nbformat.v4 import new_code_cell, new_output

    from arr.readers import Readers
    from arr.readers.walls import MAX_LINE_CHARS

    huge = "progress " * (30_000_000 // 9)
    cells = [
        new_code_cell(
            "train()  # the long run",
            outputs=[new_output("stream", name="stdout", text=huge + "\n")],
        )
    ]
    readers = Readers()
    try:
        reply = readers.guard.read(".ipynb", notebook(cells))  # the worker's own reply
        assert max(len(line) for line in reply.lines) <= MAX_LINE_CHARS + len(" [cut]")
        assert reply.counters["line_chars_cut"] == 1
        view = readers.view("nb.ipynb", notebook(cells))
        assert "the long run" in "\n".join(view.lines)
    finally:
        readers.close()


def test_a_credential_at_the_head_of_a_huge_line_is_still_withheld() -> None:
    from arr.readers.view import Unit, View
    from arr.readers.walls import walled

    line = f"token {GHP} " + "x" * 50_000_000
    view = View((line,), (Unit(1, 1, "cell=1"),), False)
    assert isinstance(walled(view), str)  # the kind of credential, not a view


def test_a_view_stops_at_its_character_cap_and_keeps_its_line_numbers() -> None:
    from arr.readers.view import Unit, View
    from arr.readers.walls import MAX_LINE_CHARS, MAX_VIEW_CHARS, capped

    count = MAX_VIEW_CHARS // MAX_LINE_CHARS + 10
    view = View(tuple("y" * (MAX_LINE_CHARS - 1) for _ in range(count)), (Unit(1, count),), True)
    kept = capped(view)
    assert len(kept.lines) == count and kept.counters["view_chars_cut"] >= 9
    assert sum(len(line) for line in kept.lines) <= MAX_VIEW_CHARS
