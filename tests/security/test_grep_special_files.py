"""Hard links, FIFOs and sockets are skipped without blocking; swapped files are not read."""

from __future__ import annotations

import os
import socket
import time
from pathlib import Path

import pytest

from arr.tools.base import ChannelError
from arr.tools.grep import GrepTool
from arr.tools.grep.engine import Engine
from tests.conftest import SCOPE_A
from tests.grep_fixtures import MARK, grep_workspace, returned_text, run
from tests.machine_speed import grace_s

SECRET = "hardlinked_outside_byte"


def test_hard_link_to_outside_file_is_skipped(tmp_path: Path) -> None:
    ws = grep_workspace(tmp_path)
    outside = tmp_path / "outside.md"
    outside.write_text(f"{MARK} {SECRET}\n")
    os.link(outside, ws.root / "root" / "hard.md")
    (ws.root / "root" / "ok.md").write_text(f"{MARK} fine\n")
    tool = GrepTool("grep", ws)
    answer = run(tool)
    assert [e.location.path for e in answer.evidence] == ["ok.md"]
    assert SECRET not in returned_text(answer)
    # the walk found it and told the engine to skip it: ripgrep never reported (nor opened)
    # it, so the verifier had nothing to refuse; the trace counts it once, from the walk
    assert "skipped_hardlink" not in answer.counters
    assert tool.skip_counters(SCOPE_A)["skipped_hardlink"] == 1


def test_fifo_and_socket_do_not_block(tmp_path: Path) -> None:
    ws = grep_workspace(tmp_path)
    root = ws.root / "root"
    os.mkfifo(root / "pipe.md")
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(root / "sock.md"))
    (root / "ok.md").write_text(f"{MARK}\n")
    tool = GrepTool("grep", ws, deadline_ms=3000)
    started = time.monotonic()
    answer = run(tool)
    assert answer.cut != "deadline"  # the FIFO and the socket were never waited on
    assert time.monotonic() - started < grace_s(2.5, at_most=30)
    assert [e.location.path for e in answer.evidence] == ["ok.md"]
    with pytest.raises(ChannelError) as info:
        run(tool, path="pipe.md")
    assert info.value.code == "path_not_regular"
    server.close()


def test_file_swapped_for_a_link_during_the_scan_is_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = grep_workspace(tmp_path)
    root = ws.root / "root"
    victim = root / "notes.md"
    victim.write_text(f"{MARK} harmless\n")
    outside = tmp_path / "secret.md"
    outside.write_text(f"{MARK} swapped_secret_byte\n")
    tool = GrepTool("grep", ws)
    engine = Engine.run

    def engine_then_swap(*args, **kwargs):
        found = engine(*args, **kwargs)
        victim.unlink()
        os.symlink(outside, victim)  # between the engine's read and ours
        return found

    monkeypatch.setattr(Engine, "run", engine_then_swap)
    answer = run(tool)
    assert answer.evidence == [] and answer.counters["skipped_link"] == 1
    assert "swapped_secret_byte" not in returned_text(answer)


def test_content_changed_during_the_scan_is_not_returned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = grep_workspace(tmp_path)
    victim = ws.root / "root" / "notes.md"
    victim.write_text(f"{MARK} before\n")
    tool = GrepTool("grep", ws)
    engine = Engine.run

    def engine_then_edit(*args, **kwargs):
        found = engine(*args, **kwargs)
        victim.write_text("private_after_edit\n")
        return found

    monkeypatch.setattr(Engine, "run", engine_then_edit)
    answer = run(tool)
    assert answer.evidence == [] and answer.counters["skipped_changed_during_scan"] == 1


def test_sub_paths_naming_secrets_or_hard_links_are_refused(tmp_path: Path) -> None:
    ws = grep_workspace(tmp_path)
    root = ws.root / "root"
    (root / ".env").write_text(f"{MARK} TOKEN=abc\n")
    (root / "conf").mkdir()
    (root / "conf" / "id_rsa").write_text(f"{MARK} key\n")
    for folder in (".ssh", ".arr", "conf/.git"):  # withheld folders named as the target
        (root / folder).mkdir()
        (root / folder / "notes.md").write_text(f"{MARK} inside\n")
    outside = tmp_path / "outside.md"
    outside.write_text(f"{MARK} {SECRET}\n")
    os.link(outside, root / "linked.md")
    (root / "ok.md").write_text(f"{MARK}\n")
    tool = GrepTool("grep", ws)
    for sub_path, code in (
        (".env", "path_sensitive"),
        ("conf/id_rsa", "path_sensitive"),
        (".ssh", "path_sensitive"),
        (".arr", "path_sensitive"),
        ("./.ARR/", "path_sensitive"),
        ("conf/.git", "path_sensitive"),
        ("linked.md", "path_hardlink"),
    ):
        with pytest.raises(ChannelError) as info:
            run(tool, path=sub_path)
        assert info.value.code == code, sub_path
    assert [e.location.path for e in run(tool, path=".").evidence] == ["ok.md"]
    assert [e.location.path for e in run(tool, path="./ok.md").evidence] == ["ok.md"]


def test_hard_links_with_glob_characters_in_their_names_are_skipped_by_the_engine(
    tmp_path: Path,
) -> None:
    ws = grep_workspace(tmp_path)
    outside = tmp_path / "outside.md"
    outside.write_text(f"{MARK} {SECRET}\n")
    root = ws.root / "root"
    (root / "sub dir").mkdir()
    for name in ("we[ir]d *name!.md", "sub dir/{x},?.md"):
        os.link(outside, root / name)
    (root / "ok.md").write_text(f"{MARK} fine\n")
    tool = GrepTool("grep", ws)
    answer = run(tool)
    assert [e.location.path for e in answer.evidence] == ["ok.md"]
    assert "skipped_hardlink" not in answer.counters  # ripgrep never reported them
    assert tool.skip_counters(SCOPE_A)["skipped_hardlink"] == 2
