"""Bibliographies read by maintained libraries (issue 61): every field of the development set
``tests/data/bibdev`` (30 records written in six styles by ``benchmarks/papers/bibdev.py``, gold
by construction) read right, LaTeX decoded, BibTeX's name rules, BibLaTeX's ``date``,
``@string``, ``crossref``; the hand-written reader it replaced read 17% of its entries whole."""

from __future__ import annotations

import time

import pytest

from arr.readers.bib_records import Person, decoded, doi_of, people, records, split_names
from arr.readers.bibtex import BibtexReader
from benchmarks.papers.bibdev import FIELDS, STYLES, baseline, load, score, shipped
from tests.machine_speed import grace_s


@pytest.fixture(scope="module")
def devset() -> tuple[dict[str, str], list[dict]]:
    return load()


@pytest.mark.parametrize("style", STYLES)
def test_every_field_of_the_development_set_is_read_right(
    devset: tuple[dict[str, str], list[dict]], style: str
) -> None:
    texts, gold = devset
    counts = score(shipped, {style: texts[style]}, [g for g in gold if g["style"] == style])
    assert {f: counts[style][f] for f in (*FIELDS, "entry")} == dict.fromkeys(
        (*FIELDS, "entry"), 30
    )


def test_the_hand_written_reader_it_replaced_reads_less(
    devset: tuple[dict[str, str], list[dict]],
) -> None:
    texts, gold = devset
    counts = score(baseline, texts, gold)
    whole = sum(c["entry"] for c in counts.values())
    assert whole < len(gold) / 4  # 31 of 180 when it was replaced


@pytest.mark.parametrize(
    ("latex", "text"),
    [
        (r"Slapni{\v c}ar", "Slapničar"),
        (r"Sent{\"u}rk", "Sentürk"),
        (r"Mart\'{\i}n-Garc\'{\i}a", "Martín-García"),
        (r"\c{c}", "ç"),
        (r"Kn{\o}rr", "Knørr"),
        (r"Gro{\ss}e", "Große"),
        (r"{The {\LaTeX} Project}", "The LaTeX Project"),
        (r"{BERT}: A -- B \& C", "BERT: A – B & C"),
        (r"On $\alpha$-Divergence", "On α-Divergence"),
        ("No markup at all", "No markup at all"),
        ("{" * 900 + "x" + "}" * 900, "x"),  # too deep for pylatexenc: markup dropped
    ],
    ids=lambda v: v[:20] if isinstance(v, str) else None,
)
def test_latex_is_decoded_to_unicode(latex: str, text: str) -> None:
    assert decoded(latex) == text


def test_names_follow_bibtex_rules() -> None:
    found, more = people(
        r"{van Genabith}, Josef and Guido van Rossum and {Association for Computational "
        r"Linguistics} and Ko\c{c}, Ay\c{s}e and \c{S}ahin, Mehmet and \'I\~{n}igo Fern\'andez"
        " and others"
    )
    assert found == (
        Person("Josef", "van Genabith"),
        Person("Guido", "van Rossum"),
        Person("", "Association for Computational Linguistics"),
        Person("Ayşe", "Koç"),
        Person("Mehmet", "Şahin"),  # bibtexparser's own split drops the \c after "and"
        Person("Íñigo", "Fernández"),  # "\~" outside braces is a space to BibTeX's rules
    )
    assert more
    assert split_names("{Simon and Schuster} and B") == ["{Simon and Schuster}", "B"]


def test_years_dois_strings_and_crossrefs() -> None:
    text = """@string{acl = {{Association for Computational Linguistics}}}
@inproceedings{a, author = acl, title = {T}, crossref = {procs}, doi = {https://doi.org/10.1/X}}
@article{b, author = {A, B}, title = {U}, date = {2016-12-05}, urldate = {2020-01-01}}
@online{c, author = {C, D}, title = {V}, urldate = {2020-01-01}}
@proceedings{procs, title = {Proceedings}, year = 2005}
"""
    by_key = {r.key: r for r in records(text)}
    assert by_key["a"].people == (Person("", "Association for Computational Linguistics"),)
    assert (by_key["a"].year, by_key["a"].doi) == (2005, "10.1/X")
    assert by_key["b"].year == 2016
    assert by_key["c"].year is None  # an access date is not the work's year
    assert doi_of("doi:10.1145/359545.359563") == "10.1145/359545.359563"


def test_the_reader_labels_entries_with_decoded_names() -> None:
    raw = rb"""% a comment
@article{s16, author = {Slapni{\v c}ar, Ivan and Barlow, Jesse}, title = {Arrowhead {M}atrices},
  date = {2016-12}}
@article{broken, title = {no closing brace
"""
    view = BibtexReader().read(raw)
    units = {u.anchor: u for u in view.units}
    assert units["s16"].title == "Arrowhead Matrices"
    assert units["s16"].citation == "Slapničar & Barlow 2016"
    assert "[Slapničar 2016] Arrowhead Matrices" in view.notes.values()
    assert units["broken"].title is None  # an entry left open is a unit, not a record


@pytest.mark.parametrize(
    "raw",
    [
        pytest.param("@a{k,}\n" * 60_000, id="many-tiny-entries"),
        pytest.param("@a{k, author = {" + "a and " * 100_000 + "}}", id="many-ands"),
        pytest.param("@a{k, author = {" + " " * 500_000 + "and b}}", id="spaces-before-and"),
        pytest.param("@a{k, title = {" + "\\~{" * 100_000 + "}}", id="unclosed-accents"),
        pytest.param("@string{" * 100_000, id="unclosed-strings"),
    ],
)
def test_records_are_read_in_bounded_time_from_hostile_text(raw: str) -> None:
    started = time.monotonic()
    records(raw)
    assert time.monotonic() - started < grace_s(3.0, at_most=30)  # quadratic: minutes
