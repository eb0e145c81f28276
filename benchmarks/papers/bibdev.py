"""A development set of bibliographies with their gold known by construction (``make bench-bib``
writes it to ``tests/data/bibdev/`` and measures the readers on it).

Each gold record (title, authors as given name and family name, ``and others``, year, DOI, the
PDF it names) is written as the tools researchers use write it, one ``.bib`` file per style:

- ``bibtex``: classic BibTeX by hand: ``Family, Given``, accents in LaTeX in every spelling
  (``{\\"u}``, ``\\"{u}``, ``\\"u``, ``\\'{\\i}``, ``{\\v c}``, ``\\c{c}``, ``{\\o}``, ``{\\ss}``),
  ``year = 2016``, month macros (``month = dec``), ``@string`` journals, ``%`` comments;
- ``biblatex``: BibLaTeX with Unicode, ``date = {2016-12}`` and no ``year``, ``journaltitle``;
- ``betterbibtex``: Zotero's Better BibTeX: accents braced (``{\\"u}``), protected capitals
  (``{BERT}``), ``file = {/home/me/Zotero/storage/KEY/x.pdf}``, ``year`` and ``month``;
- ``betterbiblatex``: Better BibLaTeX: Unicode, ``date = {2016-12-05}``, no ``year``, Zotero files;
- ``jabref``: JabRef: ``@Article``, ``Given Family`` names (particles lower case),
  ``file = {:papers/x.pdf:PDF}``, ``@Comment{jabref-meta: ...}``;
- ``crossref``: ``@inproceedings`` whose year lives in the ``@proceedings`` they cross-reference.

Corporate authors are braced (``{Association for Computational Linguistics}``), particles kept
with the family name (``{van Genabith}``, ``van der Maaten``), ``and others`` marks more authors.
The gold is the record itself: what a reader of the file must give back, accents decoded.

Then each reader of ``.bib`` text (the hand-written one ARR shipped before,
``benchmarks/papers/bib_baseline.py``, and the shipped :mod:`arr.readers.bib_records`) is scored
field by field against it.
"""

from __future__ import annotations

import json
import random
import sys
import unicodedata
from collections import Counter
from collections.abc import Callable
from pathlib import Path

FOLDER = Path(__file__).resolve().parents[2] / "tests" / "data" / "bibdev"
STYLES = ("bibtex", "biblatex", "betterbibtex", "betterbiblatex", "jabref", "crossref")
FIELDS = ("title", "families", "givens", "more", "year", "doi", "files")

# (given, family); a family alone is a body (braced whole)
Name = tuple[str, str]
# fmt: off
GOLD: list[dict] = [
    {"key": "wagner07", "title": "A Comparative Evaluation of Deep and Shallow Approaches to the "
     "Automatic Detection of Common Grammatical Errors",
     "authors": [("Joachim", "Wagner"), ("Jennifer", "Foster"), ("Josef", "van Genabith")],
     "year": 2007, "month": 6, "doi": None},
    {"key": "acl05", "title": "Proceedings of the 43rd Annual Meeting of the Association for "
     "Computational Linguistics", "authors": [("", "Association for Computational Linguistics")],
     "year": 2005, "month": 6, "doi": None},
    {"key": "slapnicar16", "title": "Accurate Eigenvalue Decomposition of Arrowhead Matrices",
     "authors": [("Ivan", "Slapničar"), ("Nevena", "Jakovčević Stor"), ("Jesse", "Barlow")],
     "year": 2016, "month": 12, "doi": "10.1016/j.laa.2016.08.012"},
    {"key": "senturk14", "title": "Linking Scores and Audio Recordings in Makam Music of Turkey",
     "authors": [("Sertan", "Şentürk"), ("Andre", "Holzapfel"), ("Xavier", "Serra")],
     "year": 2014, "month": 3, "doi": "10.1080/09298215.2013.864681"},
    {"key": "martin18", "title": "Efficient Sampling with Ordered Random Fields",
     "authors": [("José", "Martín-García"), ("Íñigo", "Fernández"), ("Ana", "López")],
     "year": 2018, "month": None, "doi": None},
    {"key": "muller19", "title": "Über die Güte von Schätzern",
     "authors": [("Klaus-Robert", "Müller"), ("Jörg", "Große"), ("Hans", "Weiß")],
     "year": 2019, "month": 1, "doi": None},
    {"key": "dvorak21", "title": "Graph Drawing on the Torus",
     "authors": [("Zdeněk", "Dvořák"), ("Jiří", "Fiala"), ("Petr", "Kolman")],
     "year": 2021, "month": 9, "doi": "10.4230/LIPIcs.2021.44"},
    {"key": "ostergaard12", "title": "Mixing Times of Random Walks",
     "authors": [("Ole", "Østergaard"), ("Søren", "Knørr"), ("Åsa", "Ångström")],
     "year": 2012, "month": 2, "doi": None},
    {"key": "kaiser17", "title": "One Model To Learn Them All",
     "authors": [("Łukasz", "Kaiser"), ("Aidan N.", "Gomez"), ("Noam", "Shazeer")],
     "more": True, "year": 2017, "month": 6, "doi": None},
    {"key": "vaswani17", "title": "Attention Is All You Need",
     "authors": [("Ashish", "Vaswani"), ("Noam", "Shazeer"), ("Niki", "Parmar")],
     "more": True, "year": 2017, "month": 12, "doi": None},
    {"key": "devlin19", "title": "BERT: Pre-training of Deep Bidirectional Transformers for "
     "Language Understanding",
     "authors": [("Jacob", "Devlin"), ("Ming-Wei", "Chang"), ("Kenton", "Lee"),
                 ("Kristina", "Toutanova")],
     "year": 2019, "month": 6, "doi": "10.18653/v1/N19-1423"},
    {"key": "maaten08", "title": "Visualizing Data using t-SNE",
     "authors": [("Laurens", "van der Maaten"), ("Geoffrey", "Hinton")],
     "year": 2008, "month": 11, "doi": None},
    {"key": "luxburg07", "title": "A Tutorial on Spectral Clustering",
     "authors": [("Ulrike", "von Luxburg")], "year": 2007, "month": 12,
     "doi": "10.1007/s11222-007-9033-z"},
    {"key": "rijke15", "title": "Click Models for Web Search",
     "authors": [("Aleksandr", "Chuklin"), ("Ilya", "Markov"), ("Maarten", "de Rijke")],
     "year": 2015, "month": 7, "doi": "10.2200/S00654ED1V01Y201507ICR043"},
    {"key": "garcia67", "title": "Cien años de soledad",
     "authors": [("Gabriel", "García Márquez")], "year": 1967, "month": None, "doi": None},
    {"key": "erdos59", "title": "On Random Graphs I",
     "authors": [("Paul", "Erdős"), ("Alfréd", "Rényi")], "year": 1959, "month": None,
     "doi": None},
    {"key": "koc20", "title": "Çok Dilli Sözcük Gömmeleri",
     "authors": [("Ayşe", "Koç"), ("Mehmet", "Şahin")], "year": 2020, "month": 5, "doi": None},
    {"key": "oneil96", "title": "The Log-Structured Merge-Tree (LSM-Tree)",
     "authors": [("Patrick", "O'Neil"), ("Edward", "Cheng"), ("Dieter", "Gawlick"),
                 ("Elizabeth", "O'Neil")],
     "year": 1996, "month": 6, "doi": "10.1007/s002360050048"},
    {"key": "mckay14", "title": "Practical Graph Isomorphism, II",
     "authors": [("Brendan D.", "McKay"), ("Adolfo", "Piperno")], "year": 2014, "month": 1,
     "doi": "10.1016/j.jsc.2013.09.003"},
    {"key": "wang22", "title": "Self-Consistency Improves Chain of Thought Reasoning",
     "authors": [("Xuezhi", "Wang"), ("Jason", "Wei"), ("Dale", "Schuurmans")], "more": True,
     "year": 2022, "month": 3, "doi": None},
    {"key": "zhang-cjk20", "title": "中文分词的统计方法",
     "authors": [("伟", "张"), ("芳", "李")], "year": 2020, "month": None, "doi": None,
     "unicode_only": True},
    {"key": "latexnews07", "title": "LaTeX News, Issue 18",
     "authors": [("", "The LaTeX Project")], "year": 2007, "month": 12, "doi": None},
    {"key": "nguyen19", "title": "Phân tích cú pháp tiếng Việt",
     "authors": [("Văn", "Nguyễn"), ("Thị", "Trần")], "year": 2019, "month": None,
     "doi": None},
    {"key": "helene11", "title": "Apprentissage à grande échelle: une étude",
     "authors": [("Hélène", "Paugam-Moisy"), ("Jérôme", "Lefèvre")], "year": 2011,
     "month": 10, "doi": None},
    {"key": "goyal17", "title": "Accurate, Large Minibatch SGD: Training ImageNet in 1 Hour",
     "authors": [("Priya", "Goyal"), ("Piotr", "Dollár"), ("Ross", "Girshick")], "more": True,
     "year": 2017, "month": 6, "doi": None},
    {"key": "lamport78", "title": "Time, Clocks, and the Ordering of Events in a Distributed "
     "System", "authors": [("Leslie", "Lamport")], "year": 1978, "month": 7,
     "doi": "10.1145/359545.359563"},
    {"key": "ongaro14", "title": "In Search of an Understandable Consensus Algorithm",
     "authors": [("Diego", "Ongaro"), ("John", "Ousterhout")], "year": 2014, "month": 6,
     "doi": None},
    {"key": "barba18", "title": "Aerodynamic Characteristics of a Gliding Snake's Cross-Section",
     "authors": [("Lorena A.", "Barba"), ("Gilbert F.", "Forsyth")], "year": 2018, "month": 4,
     "doi": "10.21105/jose.00024"},
    {"key": "wasowski13", "title": "Variability Modelling in the Real: A Perspective",
     "authors": [("Andrzej", "Wąsowski"), ("Krzysztof", "Czarnecki")], "year": 2013,
     "month": None, "doi": None},
    {"key": "sahin09", "title": "Romanian Diacritics Restoration",
     "authors": [("Ștefan", "Trăușan-Matu"), ("Ioana", "Ionescu")], "year": 2009, "month": None,
     "doi": None},
]
# fmt: on
for _row in GOLD:
    _row.setdefault("more", False)

# a non-ASCII letter as BibTeX writers spell it in LaTeX, every spelling seen in real files
_ACCENTS = {"\u0308": '"', "\u0301": "'", "\u0300": "`", "\u0302": "^", "\u0303": "~",
            "\u030c": "v", "\u0327": "c", "\u030b": "H", "\u0306": "u", "\u0328": "k",
            "\u030a": "r", "\u0307": ".", "\u0304": "="}  # fmt: skip
_SPECIAL = {"ø": ["{\\o}", "\\o{}"], "Ø": ["{\\O}", "\\O{}"], "ß": ["{\\ss}", "\\ss{}"],
            "ł": ["{\\l}", "\\l{}"], "Ł": ["{\\L}", "\\L{}"], "å": ["{\\aa}", "\\aa{}"],
            "Å": ["{\\AA}", "\\AA{}"], "æ": ["{\\ae}"], "ı": ["{\\i}"]}  # fmt: skip


def latex_letter(char: str, rng: random.Random, braced: bool) -> str:
    """One letter in LaTeX: ``ü`` -> ``{\\"u}`` / ``\\"{u}`` / ``\\"u``; ``í`` -> ``\\'{\\i}``."""
    if char in _SPECIAL:
        return rng.choice(_SPECIAL[char][:1] if braced else _SPECIAL[char])
    parts = unicodedata.normalize("NFD", char)
    if len(parts) != 2 or parts[1] not in _ACCENTS:
        return char
    base, mark = parts[0], _ACCENTS[parts[1]]
    if base == "i" and mark in "'`^\"":
        base = "\\i"
    command = f"\\{mark}"
    letter_command = mark.isalpha()  # \v, \c, \H need a space or braces before their letter
    if braced:
        return "{" + command + (" " if letter_command or base.startswith("\\") else "") + base + "}"
    choices = [f"{command}{{{base}}}", "{" + command + (" " if letter_command else "") + base + "}"]
    if not letter_command and not base.startswith("\\"):
        choices.append(command + base)
    return rng.choice(choices)


def latex(text: str, rng: random.Random, braced: bool = False) -> str:
    """Unicode as LaTeX (letters outside ASCII; ``&``, ``%`` escaped); CJK stays as it is."""
    out = []
    for char in unicodedata.normalize("NFC", text):
        if char in "&%#_":
            out.append("\\" + char)
        elif ord(char) < 128 or ord(char) >= 0x2E80:
            out.append(char)
        else:
            out.append(latex_letter(char, rng, braced))
    return "".join(out)


def title_markup(
    title: str, rng: random.Random, encode: bool, protect: bool, braced: bool = False
) -> str:
    """A title as a bibliography writes it: protected capitals (``{BERT}``), ``LaTeX`` as
    ``{\\LaTeX}``, accents in LaTeX where ``encode`` (braced inside a quoted value)."""
    words = []
    for word in title.split(" "):
        text = latex(word, rng, braced=protect or braced) if encode else word
        if word.startswith("LaTeX"):
            text = "{\\LaTeX}" + text[len("LaTeX") :]
        elif protect and sum(c.isupper() for c in word) >= 2:
            text = "{" + text + "}"
        words.append(text)
    return " ".join(words)


def name_text(name: Name, style: str, rng: random.Random, encode: bool) -> str:
    given, family = name
    enc = (lambda s: latex(s, rng, braced=style == "betterbibtex")) if encode else (lambda s: s)
    if not given:  # a body: braced whole, so no parser splits it
        fam = enc(family).replace("LaTeX", "{\\LaTeX}") if encode else family
        return "{" + fam + "}"
    words = family.split()
    particle = len(words) > 1 and words[0][0].islower()
    if style == "jabref" and (particle or len(words) == 1):
        return f"{enc(given)} {enc(family)}"  # a lower-case particle is read as von
    if len(words) > 1 and not particle or style == "betterbibtex" and particle:
        return f"{{{enc(family)}}}, {enc(given)}"  # a family of two words, braced
    return f"{enc(family)}, {enc(given)}"


def authors_text(row: dict, style: str, rng: random.Random, encode: bool) -> str:
    names = [name_text(tuple(n), style, rng, encode) for n in row["authors"]]
    return " and ".join(names + (["others"] if row["more"] else []))


MONTHS = "jan feb mar apr may jun jul aug sep oct nov dec".split()  # noqa: SIM905


def pdf_of(row: dict, style: str) -> str | None:
    if style in ("betterbibtex", "betterbiblatex"):
        return f"/home/me/Zotero/storage/{row['key'][:8].upper():X<8}/{row['key']}.pdf"
    if style == "jabref":
        return f"papers/{row['key']}.pdf"
    return None


def entry(row: dict, style: str, rng: random.Random) -> str:
    unicode_style = style in ("biblatex", "betterbiblatex") or row.get("unicode_only")
    encode = not unicode_style
    kind = "inproceedings" if style == "crossref" else "article"
    head = f"@{kind.capitalize() if style == 'jabref' else kind}{{{row['key']},"
    fields = [("author", "{" + authors_text(row, style, rng, encode) + "}")]
    quoted = style == "bibtex" and rng.random() < 0.5  # ``title = "..."`` as often as braces
    title = title_markup(row["title"], rng, not unicode_style, style.startswith("better"), quoted)
    fields.append(("title", f'"{title}"' if quoted else "{" + title + "}"))
    if style in ("biblatex", "betterbiblatex"):
        month = f"-{row['month']:02d}" if row["month"] else ""
        day = "-05" if style == "betterbiblatex" and month else ""
        fields += [("journaltitle", "{Journal of Examples}"),
                   ("date", "{" + f"{row['year']}{month}{day}" + "}")]  # fmt: skip
    elif style == "crossref":
        fields += [("crossref", "{proc" + str(row["year"]) + "}")]
    else:
        journal = "jex" if style == "bibtex" else "{Journal of Examples}"
        year = str(row["year"]) if style == "bibtex" else "{" + str(row["year"]) + "}"
        fields += [("journal", journal), ("year", year)]
        if row["month"]:
            fields.append(("month", MONTHS[row["month"] - 1]))
    if row["doi"]:
        doi = row["doi"] if style != "jabref" else f"https://doi.org/{row['doi']}"
        fields.append(("doi", "{" + doi + "}"))
    pdf = pdf_of(row, style)
    if pdf and style == "jabref":
        fields.append(("file", "{:" + pdf + ":PDF}"))
    elif pdf:
        fields.append(("file", "{" + pdf + "}"))
    width = max(len(k) for k, _ in fields)
    body = ",\n".join(f"  {k:<{width}} = {v}" for k, v in fields)
    return f"{head}\n{body}\n}}\n"


def bib_file(style: str, rows: list[dict]) -> str:
    rng = random.Random(f"bibdev-{style}")
    parts = []
    if style == "bibtex":
        parts += ["% A hand-kept bibliography: @string journals, month macros, comments.\n",
                  '@string{jex = "Journal of Examples"}\n']  # fmt: skip
    for row in rows:
        if style == "bibtex":
            parts.append(f"% {row['key']}: read on paper\n")
        parts.append(entry(row, style, rng))
    if style == "crossref":  # BibTeX wants the cross-referenced entries last
        for year in sorted({row["year"] for row in rows}):
            parts.append(
                f"@proceedings{{proc{year},\n  title = {{Proceedings of Examples {year}}},\n"
                f"  year = {{{year}}},\n  publisher = {{Example Press}}\n}}\n"
            )
    if style == "jabref":
        parts.append("@Comment{jabref-meta: databaseType:bibtex;}\n")
    return "\n".join(parts)


def gold_rows(style: str, rows: list[dict]) -> list[dict]:
    out = []
    for row in rows:
        pdf = pdf_of(row, style)
        out.append({
            "style": style, "key": row["key"], "title": row["title"],
            "families": [f for _, f in row["authors"]], "givens": [g for g, _ in row["authors"]],
            "more": row["more"], "year": row["year"], "doi": row["doi"],
            "files": [pdf] if pdf else [],
        })  # fmt: skip
    return out


def write(folder: Path = FOLDER) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    gold = []
    for style in STYLES:
        (folder / f"{style}.bib").write_text(bib_file(style, GOLD), "utf-8")
        gold += gold_rows(style, GOLD)
    lines = [json.dumps(row, ensure_ascii=False) for row in gold]
    (folder / "gold.jsonl").write_text("\n".join(lines) + "\n", "utf-8")


def load(folder: Path = FOLDER) -> tuple[dict[str, str], list[dict]]:
    """The dev set's ``.bib`` texts by style, and its gold rows."""
    texts = {style: (folder / f"{style}.bib").read_text("utf-8") for style in STYLES}
    gold = [json.loads(line) for line in (folder / "gold.jsonl").read_text("utf-8").splitlines()]
    return texts, gold


# a reader: .bib text -> {key: {field: value}} in the gold's shape
Reader = Callable[[str], dict[str, dict]]


def score(reader: Reader, texts: dict[str, str], gold: list[dict]) -> dict[str, Counter]:
    """Right fields per style (and ``entry``: every field right), against the gold."""
    out: dict[str, Counter] = {}
    read = {style: reader(text) for style, text in texts.items()}
    for row in gold:
        counts = out.setdefault(row["style"], Counter())
        got = read[row["style"]].get(row["key"], {})
        right = [f for f in FIELDS if got.get(f) == row[f]]
        counts.update(right)
        counts["entry"] += len(right) == len(FIELDS)
        counts["n"] += 1
    return out


def shipped(text: str) -> dict[str, dict]:
    from arr.readers.bib_records import records

    return {r.key: _shape(r) for r in records(text)}


def baseline(text: str) -> dict[str, dict]:
    from benchmarks.papers.bib_baseline import records

    return {r.key: _shape(r) for r in records(text)}


def _shape(record: object) -> dict:
    families = list(record.surnames)  # type: ignore[attr-defined]
    if hasattr(record, "people"):
        givens = [p.given for p in record.people]
    else:  # the baseline keeps "Given Family" strings: the given name is the rest
        givens = [
            person[: -len(fam)].strip() if person.endswith(fam) else person
            for person, fam in zip(record.authors, families, strict=False)  # type: ignore[attr-defined]
        ]
    return {
        "title": record.title, "families": families, "givens": givens,  # type: ignore[attr-defined]
        "more": record.more, "year": record.year, "doi": record.doi,  # type: ignore[attr-defined]
        "files": list(record.files),  # type: ignore[attr-defined]
    }  # fmt: skip


def report(results: dict[str, dict[str, Counter]]) -> str:
    lines = [f"{'reader':<10} {'style':<15} " + " ".join(f"{f:>8}" for f in (*FIELDS, "entry"))]
    for name, per_style in results.items():
        total: Counter = Counter()
        for style, counts in per_style.items():
            total.update(counts)
            cells = " ".join(f"{counts[f]:>4}/{counts['n']:<3}" for f in (*FIELDS, "entry"))
            lines.append(f"{name:<10} {style:<15} {cells}")
        cells = " ".join(f"{total[f] / total['n']:>8.0%}" for f in (*FIELDS, "entry"))
        lines.append(f"{name:<10} {'all':<15} {cells}")
    return "\n".join(lines)


def main() -> None:
    if "--write" in sys.argv:
        write()
    texts, gold = load()
    print(f"bibliography dev set: {len(gold)} entries in {len(texts)} styles ({FOLDER})")
    results = {"baseline": score(baseline, texts, gold), "shipped": score(shipped, texts, gold)}
    print(report(results))


if __name__ == "__main__":
    main()
