"""The CLI's door into a running server (arr.cli.door): only the user's own folder, only the
server's own config and environment, only its pinned scopes; anything else is declined and the
client searches itself."""

from __future__ import annotations

import os
import socket
import stat
import threading
from pathlib import Path
from typing import Any

import pytest

from arr.cli import door

pytestmark = pytest.mark.skipif(not hasattr(socket, "SO_PEERCRED"), reason="no SO_PEERCRED")

CONTAINER: dict[str, Any] = {
    "workspace": {"index_dir": "/nowhere/ws/.arr/index"},
    "fusion": {"_target_": "arr.fusion.wsum.WeightedSumFusion"},
    "scope": None,
    "top_k": None,
    "output": "json",
}


@pytest.fixture
def runtime(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    monkeypatch.delenv(door.OFF_ENV, raising=False)
    return tmp_path


def answered(container: dict[str, Any], texts: dict[str, str]) -> tuple[dict[str, Any], str]:
    return {"query": texts["query"]}, f"shown: {texts['query']}"


def test_the_door_lies_in_a_folder_of_the_users_alone(runtime: Path) -> None:
    path = door.door_path("/nowhere/ws/.arr/index")
    assert path is not None and path.parent == runtime / "arr"
    assert stat.S_IMODE(os.stat(path.parent).st_mode) == 0o700
    os.chmod(path.parent, 0o755)  # a folder others may enter: no door
    assert door.door_path("/nowhere/ws/.arr/index") is None


def test_a_search_makes_no_folder(runtime: Path) -> None:
    assert door.ask(CONTAINER, {"query": "q"}) is None
    assert not (runtime / "arr").exists()


def test_no_door_when_switched_off(runtime: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(door.OFF_ENV, "1")
    assert door.door_path("/nowhere/ws/.arr/index") is None


def test_per_call_keys_leave_the_router_as_it_is() -> None:
    per_call = {**CONTAINER, "scope": "papers", "top_k": 3, "output": "text", "verbose": True}
    assert door.router_part(per_call) == door.router_part(CONTAINER)
    other = {**CONTAINER, "fusion": {"_target_": "arr.fusion.rrf.RRFFusion"}}
    assert door.router_part(other) != door.router_part(CONTAINER)


def test_the_server_declines_what_it_would_answer_otherwise(
    runtime: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    served = door.Door(CONTAINER, answered, pinned=["papers"])
    request = {"container": {**CONTAINER, "scope": "papers"}, "texts": {"query": "q"}}
    mark = door.environment_mark()
    assert served.reply({**request, "environment": mark})["shown"] == "shown: q"
    other = {**CONTAINER, "scope": "papers", "fusion": {}}
    assert (
        "config" in served.reply({**request, "container": other, "environment": mark})["declined"]
    )
    unpinned = {**CONTAINER, "scope": "notes"}
    assert (
        "pinned"
        in served.reply({**request, "container": unpinned, "environment": mark})["declined"]
    )
    monkeypatch.setenv("ARR_SOMETHING", "else")
    assert (
        "environment"
        in served.reply({**request, "environment": door.environment_mark()})["declined"]
    )


def test_a_search_through_a_real_socket(runtime: Path) -> None:
    served = door.Door(CONTAINER, answered)
    assert served.open()
    try:
        assert served.path is not None and stat.S_IMODE(os.stat(served.path).st_mode) == 0o600
        answer = door.ask(CONTAINER, {"query": "variance"})
        assert answer is not None and answer["shown"] == "shown: variance"
        assert answer["pid"] == os.getpid()
        other = {**CONTAINER, "router": {"deadline_ms": 2000}}
        assert door.ask(other, {"query": "variance"}) is None  # declined: searched here
        assert door.ask(CONTAINER, {}) is None  # no query: the command's own error
        # a second server over the same workspace leaves the live door alone
        assert not door.Door(CONTAINER, answered).open()
    finally:
        served.close()
    assert not served.path.exists()
    assert door.ask(CONTAINER, {"query": "variance"}) is None  # no server: searched here


def test_a_stopped_servers_socket_is_replaced(runtime: Path) -> None:
    path = door.door_path("/nowhere/ws/.arr/index")
    assert path is not None
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(str(path))
    stale.close()  # the file stays, nothing listens: a killed server's
    assert door.ask(CONTAINER, {"query": "q"}) is None
    served = door.Door(CONTAINER, answered)
    assert served.open()
    try:
        assert door.ask(CONTAINER, {"query": "q"}) is not None
    finally:
        served.close()


def test_a_garbled_answer_is_searched_here(runtime: Path) -> None:
    path = door.door_path("/nowhere/ws/.arr/index")
    assert path is not None
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(path))
    listener.listen(1)

    def garble() -> None:
        connection, _ = listener.accept()
        with connection:
            connection.recv(1 << 20)
            connection.sendall(b"{not json")

    thread = threading.Thread(target=garble, daemon=True)
    thread.start()
    try:
        assert door.ask(CONTAINER, {"query": "q"}) is None
    finally:
        thread.join(5)
        listener.close()
