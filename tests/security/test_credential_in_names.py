"""Names are text (issue 62): a file or folder named with a credential is never read and never
shown (paths, skip lists); a secret-file name rule judges whole names, so a research folder
whose name merely ends like one (``comp_sci_fundamentals_and_history``) is searched by every
channel; a skip reason never quotes the file."""

from __future__ import annotations

from pathlib import Path

import pytest

from arr.readers.notebook import NotebookReader
from arr.readers.view import Unreadable
from arr.safety.rules import is_sensitive_name, shown_name
from arr.tools.grep import GrepTool
from arr.workspace.sources import SkipLog, walk_files
from tests.grep_fixtures import MARK, grep_workspace, returned_text, run

TOKEN = "ghp_" + "Xq7vR2nK9wP4xT1mB3cYa8LdE5fG6hJ0kM2n"


@pytest.mark.parametrize(
    "path",
    [
        pytest.param(f"notes_{TOKEN}.md", id="file-name"),
        pytest.param(f"{TOKEN}/notes.md", id="folder-name"),
        pytest.param("runs/api_key=a7f9Kq2LmN4pR6sT8vU0wY2aC4eG/log.txt", id="keyword-folder"),
        pytest.param(f"x/notes_{TOKEN[:10]}\u200b{TOKEN[10:]}.md", id="split-by-zwsp"),
    ],
)
def test_a_name_holding_a_credential_is_withheld_and_never_shown(path: str) -> None:
    assert is_sensitive_name(path)
    assert "[REDACTED]" in shown_name(path) and TOKEN[8:24] not in shown_name(path)


@pytest.mark.parametrize(
    "path",
    [
        "comp_sci_fundamentals_and_history/notes.md",
        "war_history/timeline.md",
        "answer_key/week1.md",
        "src/modeling_flash_attention_utils.py",
        "data/2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881.csv",
    ],
)
def test_research_names_are_not_sensitive(path: str) -> None:
    assert not is_sensitive_name(path)
    assert shown_name(path) == path


def test_hidden_histories_still_are() -> None:
    assert all(is_sensitive_name(n) for n in (".bash_history", "a/.julia_history", ".Rhistory"))


def test_the_walk_skips_a_credential_folder_and_lists_it_redacted(tmp_path: Path) -> None:
    (tmp_path / TOKEN).mkdir()
    (tmp_path / TOKEN / "notes.md").write_text("plain\n")
    (tmp_path / f"run_{TOKEN}.log").write_text("plain\n")
    (tmp_path / "comp_sci_fundamentals_and_history").mkdir()
    (tmp_path / "comp_sci_fundamentals_and_history" / "notes.md").write_text("plain\n")
    skipped = SkipLog()
    found = [relative for relative, _, _ in walk_files(tmp_path, 1_000_000, skipped)]
    assert found == ["comp_sci_fundamentals_and_history/notes.md"]
    assert skipped["sensitive_name"] == 2
    listed = repr(skipped.files)
    assert TOKEN[8:24] not in listed and listed.count("[REDACTED]") == 2


def test_grep_searches_a_folder_whose_name_ends_in_history(tmp_path: Path) -> None:
    ws = grep_workspace(tmp_path)
    folder = ws.root / "root" / "comp_sci_fundamentals_and_history"
    folder.mkdir()
    (folder / "turing.md").write_text(f"{MARK} the halting problem\n")
    (ws.root / "root" / TOKEN).mkdir()
    (ws.root / "root" / TOKEN / "notes.md").write_text(f"{MARK} hidden\n")
    answer = run(GrepTool("grep", ws))
    paths = [e.location.path for e in answer.evidence]
    assert paths == ["comp_sci_fundamentals_and_history/turing.md"]
    assert TOKEN[8:24] not in returned_text(answer)


def test_a_broken_notebooks_skip_reason_never_quotes_it() -> None:
    with pytest.raises(Unreadable) as refused:
        NotebookReader().read(f"{TOKEN} is not JSON".encode())
    assert TOKEN[:12] not in str(refused.value) and "not JSON" in str(refused.value)


def test_a_memory_id_holding_a_credential_is_refused_and_never_shown(tmp_path: Path) -> None:
    from arr.errors import MemoryStoreError
    from arr.memory.shown import shown_memory
    from arr.memory.store import ResearchMemoryStore
    from tests.conftest import SCOPE_A

    store = ResearchMemoryStore(tmp_path / "m.sqlite3")
    with pytest.raises(MemoryStoreError) as refused:
        store.add_draft(f"notes-{TOKEN}", SCOPE_A, "Title", "body")
    assert refused.value.code == "credential" and TOKEN[8:24] not in str(refused.value)
    memory = store.add_draft("notes-1", SCOPE_A, "Title", "body")
    assert memory is not None
    old = memory.model_copy(update={"id": f"notes-{TOKEN}"})  # one stored before ids were judged
    assert TOKEN[8:24] not in repr(shown_memory(old).id)
