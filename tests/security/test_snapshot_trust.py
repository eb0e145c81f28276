"""Nothing trusted for where it lies (issue 53): the vector channel's read snapshot is bound to
the folder it was written for; one copied in from another workspace, a file of it made a link
to a file outside every root, offsets claiming more than the file holds: none is served (the
search reads Chroma and answers as Chroma does), nothing large is allocated, and a plain
``arr index`` (a build) writes it anew."""

from __future__ import annotations

import io
import os
import shutil
from pathlib import Path

import numpy as np

from arr.vector_store.snapshot import open_snapshot, read_record
from tests.conftest import SCOPE_A
from tests.integration.test_vector_snapshot import answers, folder, from_chroma
from tests.integration.test_vector_tool import make_tool, workspace


def built(tmp_path: Path, name: str):  # type: ignore[no-untyped-def]
    tool = make_tool(workspace(tmp_path / name, {"a": SCOPE_A}))
    tool.build(SCOPE_A)
    return tool


def served(tool) -> bool:  # type: ignore[no-untyped-def]
    record = read_record(folder(tool))
    found = record is not None and open_snapshot(folder(tool), record["version"])
    if found:
        found.close()
    return bool(found)


def test_another_workspaces_snapshot_copied_in_is_not_served_and_index_repairs(
    tmp_path: Path,
) -> None:
    mine, theirs = built(tmp_path, "mine"), built(tmp_path, "theirs")
    (Path(theirs.workspace.root) / "a" / "notes" / "warmup.md").write_text(
        "Their private notes on the warmup.\n"
    )
    theirs.build(SCOPE_A)
    shutil.rmtree(folder(mine))
    shutil.copytree(folder(theirs), folder(mine))
    record = read_record(folder(mine))
    assert record is not None and not served(mine)  # same shape, another place: refused
    reader = make_tool(mine.workspace)
    assert answers(reader) == answers(from_chroma(mine))  # Chroma's own answers, not theirs
    mine.build(SCOPE_A)  # arr index, nothing changed in the tree
    assert served(mine)


def test_a_snapshot_file_linked_outside_is_never_read(tmp_path: Path) -> None:
    tool = built(tmp_path, "ws")
    outside = tmp_path / "outside.txt"
    outside.write_text("TOP SECRET text from outside every root\n" * 50)
    documents = folder(tool) / "documents.bin"
    documents.unlink()
    os.symlink(outside, documents)
    assert not served(tool)
    reader = make_tool(tool.workspace)
    assert all("TOP SECRET" not in text for query in answers(reader) for _, _, text in query)
    tool.build(SCOPE_A)
    assert served(tool) and not (folder(tool) / "documents.bin").is_symlink()


def test_offsets_beyond_the_file_allocate_nothing_and_are_not_served(tmp_path: Path) -> None:
    tool = built(tmp_path, "ws")
    index = folder(tool) / "documents.idx.npy"
    ends = np.load(index)
    ends[1:] = ends[1:] + 3_000_000_000  # a 3 GB passage claimed
    np.save(index, ends)
    assert not served(tool)
    reader = make_tool(tool.workspace)
    assert answers(reader) == answers(from_chroma(tool))
    tool.build(SCOPE_A)
    assert served(tool)


def test_a_linked_snapshot_folder_is_not_served(tmp_path: Path) -> None:
    tool = built(tmp_path, "ws")
    elsewhere = tmp_path / "elsewhere"
    shutil.move(str(folder(tool)), elsewhere)
    os.symlink(elsewhere, folder(tool))
    assert not served(tool)


def test_an_offsets_header_claiming_millions_of_rows_allocates_nothing(tmp_path: Path) -> None:
    """The ``.idx.npy`` header is read and checked against the file before ``np.load`` runs:
    a header claiming 300 million offsets (2.4 GB) over a file of a few hundred bytes is a
    damaged snapshot (not served; Chroma answers), never a MemoryError, and ``arr index``
    writes it anew."""
    import resource

    tool = built(tmp_path, "ws")
    index = folder(tool) / "documents.idx.npy"
    ends = np.load(index)
    header = io.BytesIO()  # the same offsets under a header that claims 300 million of them
    np.lib.format.write_array_header_1_0(
        header, {"descr": "<i8", "fortran_order": False, "shape": (300_000_000,)}
    )
    damaged = header.getvalue() + ends.astype("<i8").tobytes()
    index.write_bytes(damaged)
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (2_000_000_000 + _resident(), hard))
    try:
        assert not served(tool)
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
    reader = make_tool(tool.workspace)
    assert answers(reader) == answers(from_chroma(tool))
    tool.build(SCOPE_A)
    assert served(tool)


def _resident() -> int:
    """This process's address space now (bytes): the limit above is set over it."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")


def test_a_vectors_header_flipped_is_read_around_and_written_anew(tmp_path: Path) -> None:
    """A flipped ``vectors.npy`` header reaches numpy's header parser, which raised tokenize's
    TokenError (not a ValueError): the channel was down and arr index FAILED. Now the snapshot
    is damaged like any other: not served, Chroma answers, the next build writes it anew."""
    tool = built(tmp_path, "ws")
    vectors = folder(tool) / "vectors.npy"
    raw = bytearray(vectors.read_bytes())
    raw[10:60] = bytes(b ^ 0xFF for b in raw[10:60])
    vectors.write_bytes(bytes(raw))
    assert not served(tool)
    reader = make_tool(tool.workspace)
    assert answers(reader) == answers(from_chroma(tool))
    tool.build(SCOPE_A)
    assert served(tool)
