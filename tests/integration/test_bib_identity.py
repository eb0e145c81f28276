"""A PDF named by the workspace's own bibliography (issue 52): the ``.bib`` entry whose ``file``
field names the PDF (Zotero/Better BibTeX, JabRef, Mendeley), or whose title is the PDF's,
gives the title, authors, year and DOI shown with its pages, says so in ``location.identity``,
and an edited ``.bib`` is seen by the next search (nothing is stored in an index)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from arr.readers.bib_records import file_paths, records
from tests.conftest import SCOPE_A, lexical_router
from tests.integration.test_readers import root, workspace
from tests.readers_fixtures import headed_pdf_bytes, write

BODY = [f"Line {n} on logical clocks and the ordering of events in a system." for n in range(30)]
# the title page names no author and no year: the PDF alone gives no citation
PAPER = [("Time, Clocks, and the Ordering of Events", BODY)]
BIB = """@article{lamport78,
  author = {Lamport, Leslie},
  title = {Time, Clocks, and the Ordering of Events in a Distributed System},
  year = {1978},
  doi = {10.1145/359545.359563},
  file = {:papers/clocks.pdf:PDF}
}
"""


def test_file_fields_as_reference_managers_write_them() -> None:
    assert file_paths(":papers/a.pdf:PDF") == ("papers/a.pdf",)  # JabRef
    assert file_paths("/home/me/Zotero/storage/AB12/A - 2020 - T.pdf;/x/y.html") == (
        "/home/me/Zotero/storage/AB12/A - 2020 - T.pdf",
    )  # Zotero with Better BibTeX: the PDF, not the snapshot
    assert file_paths("Full Text:C\\:/Users/me/a.pdf:application/pdf") == ("C:/Users/me/a.pdf",)
    (found,) = records("@misc{x, author = {Diego Ongaro and John Ousterhout and others},"
                       " title = {In Search of {Raft}}, year = 2014}")  # fmt: skip
    assert (
        found.surnames == ("Ongaro", "Ousterhout")
        and found.more
        and found.title == ("In Search of Raft")
    )


def test_a_bib_entry_names_its_pdf_and_an_edit_is_seen_by_the_next_search(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    write(root(ws) / "papers" / "clocks.pdf", headed_pdf_bytes(PAPER))
    write(root(ws) / "refs.bib", BIB.encode())
    router = lexical_router(ws)
    pages = [
        e for e in router.search("logical clocks ordering events", SCOPE_A).evidence
        if (e.location.path or "").endswith(".pdf")
    ]  # fmt: skip
    assert pages
    where = pages[0].location
    assert where.citation == "Lamport 1978, p. 1"
    assert where.title == "Time, Clocks, and the Ordering of Events in a Distributed System"
    assert where.identity is not None
    assert "authors: bib" in where.identity and "bib: refs.bib#lamport78" in where.identity
    assert "doi: 10.1145/359545.359563" in where.identity
    bib = root(ws) / "refs.bib"
    bib.write_text(BIB.replace("1978", "1979"))
    os.utime(bib, ns=(bib.stat().st_atime_ns, bib.stat().st_mtime_ns + 10**9))
    again = router.search("logical clocks ordering events", SCOPE_A).evidence
    assert any(e.location.citation == "Lamport 1979, p. 1" for e in again)


def test_without_a_record_the_pdf_says_what_is_unknown(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    write(root(ws) / "papers" / "clocks.pdf", headed_pdf_bytes(PAPER))
    router = lexical_router(ws)
    pages = [
        e for e in router.search("logical clocks ordering events", SCOPE_A).evidence
        if (e.location.path or "").endswith(".pdf")
    ]  # fmt: skip
    assert pages and pages[0].location.citation is None  # no author, no year: no citation
    assert pages[0].location.identity == "title: metadata; authors: unknown; year: unknown" or (
        pages[0].location.identity == "title: layout; authors: unknown; year: unknown"
    )


def test_a_title_equal_to_the_pdfs_names_it_and_a_bib_with_a_secret_is_not_used(
    tmp_path: Path,
) -> None:
    ws = workspace(tmp_path)
    write(root(ws) / "papers" / "clocks.pdf", headed_pdf_bytes(PAPER))
    by_title = BIB.replace("file = {:papers/clocks.pdf:PDF}", "note = {read}").replace(
        "in a Distributed System", ""
    )
    write(root(ws) / "refs.bib", by_title.encode())
    router = lexical_router(ws)
    found = router.search("logical clocks ordering events", SCOPE_A).evidence
    assert any(e.location.citation == "Lamport 1978, p. 1" for e in found)
    secret = by_title.replace("note = {read}", "note = {AKIAQ7XZ3B9KJ2LMN4PR}")
    bib = root(ws) / "refs.bib"
    bib.write_text(secret)
    os.utime(bib, ns=(bib.stat().st_atime_ns, bib.stat().st_mtime_ns + 10**9))
    found = router.search("logical clocks ordering events", SCOPE_A).evidence
    assert not any(e.location.citation == "Lamport 1978, p. 1" for e in found)


def zotero_database(
    path: Path,
    key: str,
    name: str,
    date: str | None = "1978-07-00 July 1978",
    trashed: bool = False,
) -> None:
    """A Zotero data folder's database as Zotero 5+ shapes it (the tables ARR reads): one
    journal article by Leslie Lamport (and its translator), dated ``date``, with a stored PDF
    attachment; ``trashed``: the article is in Zotero's trash."""
    import sqlite3

    connection = sqlite3.connect(path)
    connection.executescript(
        f"""
        CREATE TABLE items (itemID INTEGER PRIMARY KEY, itemTypeID INT, key TEXT);
        CREATE TABLE itemAttachments (itemID INTEGER PRIMARY KEY, parentItemID INT,
            linkMode INT, contentType TEXT, path TEXT);
        CREATE TABLE fields (fieldID INTEGER PRIMARY KEY, fieldName TEXT);
        CREATE TABLE itemDataValues (valueID INTEGER PRIMARY KEY, value);
        CREATE TABLE itemData (itemID INT, fieldID INT, valueID INT);
        CREATE TABLE creators (creatorID INTEGER PRIMARY KEY, firstName TEXT, lastName TEXT,
            fieldMode INT);
        CREATE TABLE creatorTypes (creatorTypeID INTEGER PRIMARY KEY, creatorType TEXT);
        CREATE TABLE itemCreators (itemID INT, creatorID INT, creatorTypeID INT, orderIndex INT);
        CREATE TABLE deletedItems (itemID INTEGER PRIMARY KEY,
            dateDeleted DEFAULT CURRENT_TIMESTAMP);
        INSERT INTO items VALUES (1, 22, 'PARENT01'), (2, 3, '{key}');
        INSERT INTO itemAttachments VALUES (2, 1, 0, 'application/pdf', 'storage:{name}');
        INSERT INTO fields VALUES (1, 'title'), (2, 'date'), (3, 'DOI');
        INSERT INTO itemDataValues VALUES
            (1, 'Time, Clocks, and the Ordering of Events in a Distributed System'),
            (2, '{date}'), (3, '10.1145/359545.359563');
        INSERT INTO itemData VALUES (1, 1, 1), (1, 3, 3);
        INSERT INTO creators VALUES (1, 'Leslie', 'Lamport', 0), (2, 'Anne', 'Traduction', 0);
        INSERT INTO creatorTypes VALUES (1, 'author'), (2, 'contributor'), (3, 'editor'),
            (4, 'translator');
        INSERT INTO itemCreators VALUES (1, 2, 4, 0), (1, 1, 1, 1);
        """
    )
    if date is not None:
        connection.execute("INSERT INTO itemData VALUES (1, 2, 2)")
    if trashed:
        connection.execute("INSERT INTO deletedItems (itemID) VALUES (1)")
    connection.commit()
    connection.close()


def pdf_pages(router: object, query: str = "logical clocks ordering events") -> list:
    found = router.search(query, SCOPE_A).evidence  # type: ignore[attr-defined]
    return [e for e in found if (e.location.path or "").endswith(".pdf")]


def test_a_zotero_data_folder_names_its_stored_pdfs(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    folder = root(ws) / "Zotero"
    write(folder / "storage" / "AB12CD34" / "Lamport - 1978 - Time.pdf", headed_pdf_bytes(PAPER))
    zotero_database(folder / "zotero.sqlite", "AB12CD34", "Lamport - 1978 - Time.pdf")
    router = lexical_router(ws)
    pages = pdf_pages(router)
    # the author, not the translator Zotero lists first; every field named as Zotero's
    assert pages and pages[0].location.citation == "Lamport 1978, p. 1"
    assert pages[0].location.identity == (
        "title: zotero; authors: zotero; year: zotero; doi: 10.1145/359545.359563; "
        "zotero: Zotero/zotero.sqlite#AB12CD34"
    )
    # a database of another shape (or damaged) is no evidence, and breaks nothing
    (folder / "zotero.sqlite").write_bytes(b"SQLite format 3\x00" + b"\x00" * 200)
    again = router.search("logical clocks ordering events", SCOPE_A).evidence
    assert again and all(e.location.citation != "Lamport 1978, p. 1" for e in again)


# page 1 names its author and a (wrong) year of its own: the PDF alone cites it "Lamport 1977"
DATED = [("Time, Clocks, and the Ordering of Events", ["Leslie Lamport", "July 1977", *BODY])]


def test_the_pdf_alone_cites_its_own_guess(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    write(root(ws) / "papers" / "clocks.pdf", headed_pdf_bytes(DATED))
    pages = pdf_pages(lexical_router(ws))
    assert pages and pages[0].location.citation == "Lamport 1977, p. 1"
    assert "year: layout" in (pages[0].location.identity or "")


@pytest.mark.parametrize(
    ("date", "trashed", "citation", "identity"),
    [
        pytest.param(None, False, None, "authors: zotero; year: unknown", id="no-date-no-year"),
        pytest.param("1978-07-00 July 1978", True, "Lamport 1977, p. 1", "year: layout",
                     id="trashed-item-not-used"),
    ],
)  # fmt: skip
def test_a_zotero_item_gives_only_what_it_holds_and_the_trash_is_no_evidence(
    tmp_path: Path, date: str | None, trashed: bool, citation: str | None, identity: str
) -> None:
    ws = workspace(tmp_path)
    folder = root(ws) / "Zotero"
    write(folder / "storage" / "AB12CD34" / "clocks.pdf", headed_pdf_bytes(DATED))
    zotero_database(folder / "zotero.sqlite", "AB12CD34", "clocks.pdf", date, trashed)
    pages = pdf_pages(lexical_router(ws))
    assert pages and pages[0].location.citation == citation
    assert identity in (pages[0].location.identity or "")


@pytest.mark.parametrize(
    ("dated", "citation", "identity"),
    [
        pytest.param("", None, "authors: bib; year: unknown", id="no-year-no-citation"),
        pytest.param("date = {1978-07},", "Lamport 1978, p. 1", "authors: bib; year: bib",
                     id="biblatex-date"),
    ],
)  # fmt: skip
def test_a_bib_entry_without_a_year_does_not_lend_its_name_to_the_pdfs_guess(
    tmp_path: Path, dated: str, citation: str | None, identity: str
) -> None:
    """Better BibLaTeX writes ``date = {1978-07}`` and no ``year``; before, such an entry gave
    no year and the PDF's own citation (``Lamport 1977``) was shown beside ``authors: bib``."""
    ws = workspace(tmp_path)
    write(root(ws) / "papers" / "clocks.pdf", headed_pdf_bytes(DATED))
    write(root(ws) / "refs.bib", BIB.replace("year = {1978},", dated).encode())
    pages = pdf_pages(lexical_router(ws))
    assert pages and pages[0].location.citation == citation
    assert identity in (pages[0].location.identity or "")


def test_between_walks_only_the_known_bibs_are_stated_and_a_new_one_is_found_later(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The search path does not walk the tree for bibliographies each time (a walk of 12,000
    files cost 117 ms): the known ``.bib`` files are stat-ed, the tree walked again after
    ``WALK_EVERY_S``, when a new ``.bib`` is found."""
    from arr.workspace import bib_identity

    ws = workspace(tmp_path)
    write(root(ws) / "papers" / "clocks.pdf", headed_pdf_bytes(PAPER))
    router = lexical_router(ws)
    monkeypatch.setattr(bib_identity, "WALK_EVERY_S", 3600.0)
    query = "logical clocks ordering events"

    def pdf_citations() -> list[str | None]:
        found = router.search(query, SCOPE_A).evidence
        return [e.location.citation for e in found if (e.location.path or "").endswith(".pdf")]

    assert pdf_citations() and all(c is None for c in pdf_citations())
    write(root(ws) / "refs.bib", BIB.encode())
    assert all(c is None for c in pdf_citations())  # not walked for: not known yet
    monkeypatch.setattr(bib_identity, "WALK_EVERY_S", 0.0)
    assert "Lamport 1978, p. 1" in pdf_citations()


def test_a_bibliography_that_fails_mid_read_is_a_named_degradation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from arr.workspace import bib_identity

    ws = workspace(tmp_path)
    write(root(ws) / "papers" / "clocks.pdf", headed_pdf_bytes(PAPER))
    write(root(ws) / "refs.bib", BIB.encode())

    def vanished(*args: object) -> None:
        raise FileNotFoundError("refs.bib vanished while it was read")

    monkeypatch.setattr(bib_identity, "build_lookup", vanished)
    result = lexical_router(ws).search("logical clocks ordering events", SCOPE_A)
    assert [d.code for d in result.degradations] == ["bibliography_unreadable"]
    pages = [e for e in result.evidence if (e.location.path or "").endswith(".pdf")]
    assert pages and all(e.location.citation is None for e in pages)  # as the reader named them


def test_a_broken_ordering_rule_leaves_the_reranked_order_with_a_degradation(
    tmp_path: Path,
) -> None:
    from arr.ordering.known_items import KnownItemOrdering

    class Raises:
        name = "raises"

        def order(self, query, ranked, traces, channels):  # type: ignore[no-untyped-def]
            raise RuntimeError("a rule's bug")

    class Drops:
        name = "drops"

        def order(self, query, ranked, traces, channels):  # type: ignore[no-untyped-def]
            return ranked[1:]

    ws = workspace(tmp_path)
    write(root(ws) / "papers" / "clocks.pdf", headed_pdf_bytes(PAPER))
    plain = lexical_router(ws, ordering=KnownItemOrdering([]))
    expected = [e.id for e in plain.search("logical clocks ordering events", SCOPE_A).evidence]
    for rule in (Raises(), Drops()):
        router = lexical_router(ws, ordering=KnownItemOrdering([rule]))
        result = router.search("logical clocks ordering events", SCOPE_A)
        assert [d.code for d in result.degradations] == ["ordering_failed"]
        assert [e.id for e in result.evidence] == expected
