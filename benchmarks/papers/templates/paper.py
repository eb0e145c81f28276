"""One generated paper's plan: its title, people, year, what page 1 prints and what its PDF
metadata says, drawn by a seeded generator so the gold is known by construction.

The metadata is what real PDFs carry (read in the issue's held-out sets): ``/Author`` the
authors, the publisher or the template's own author (``Michael Shell``, ``Ben Trovato``),
``/Title`` the title or the template's placeholder, or nothing; ``/CreationDate`` years off the
paper's year (a file date is never the paper's year).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from benchmarks.papers.templates.names import EAST_ASIAN, Person, abstract, people, title

MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December")  # fmt: skip


@dataclass(frozen=True, slots=True)
class Paper:
    template: str
    number: int
    title: str
    people: tuple[Person, ...]
    year: int  # the year the paper was written (its abstract cites only earlier years)
    printed: bool  # page 1 prints the paper's year (a venue, copyright or date line)
    month: int
    day: int
    # authors | uploader (a co-author, not the first) | publisher | template | none
    meta_author: str
    meta_title: str  # title | placeholder | none
    created: int  # /CreationDate's year, years off the paper's
    abstract: str
    style: int  # a class's byline or venue variant (0..3)

    @property
    def key(self) -> str:
        return f"{self.template}/p{self.number:02d}"

    @property
    def date(self) -> str:
        """``March 3, 2014`` (the paper's printed date)."""
        return f"{MONTHS[self.month - 1]} {self.day}, {self.year}"

    @property
    def date_uk(self) -> str:
        return f"{self.day} {MONTHS[self.month - 1]} {self.year}"

    def gold(self) -> dict:
        """The row of ``gold.jsonl`` (papersdev's shape); ``year`` null where page 1 prints none."""
        return {
            "path": f"{self.key}.pdf",
            "template": self.template,
            "title": self.title,
            "year": self.year if self.printed else None,
            "authors": [{"given": p.given, "family": p.family} for p in self.people],
        }


def plan(template: str, number: int, seed: int) -> Paper:
    rng = random.Random(f"{seed}:{template}:{number}")
    year = rng.randint(1996, 2025)
    return Paper(
        template=template,
        number=number,
        title=title(rng),
        people=tuple(people(rng, rng.choice((1, 2, 2, 3, 3, 4, 5)))),
        year=year,
        printed=rng.random() < 0.75,
        month=rng.randint(1, 12),
        day=rng.randint(1, 28),
        meta_author=rng.choice(("authors", "uploader", "publisher", "template", "none")),
        meta_title=rng.choice(("title", "title", "placeholder", "none")),
        created=year + rng.choice((-9, -5, -3, 3, 4, 8)),
        abstract=abstract(rng, year),
        style=rng.randint(0, 3),
    )


def tex(text: str) -> str:
    """Text as LaTeX source (the few characters generated text can hold)."""
    return text.replace("&", r"\&").replace("%", r"\%").replace("_", r"\_")


def metadata(paper: Paper, publisher: str, template_author: str, placeholder: str) -> str:
    """The preamble lines that set the PDF's metadata (hyperref) and its creation date."""
    author = {
        "authors": ", ".join(p.name for p in paper.people),
        # the file's author is whoever made it: a co-author, rarely the first
        "uploader": paper.people[-1].name,
        "publisher": publisher,
        "template": template_author,
        "none": "",
    }[paper.meta_author]
    shown = {"title": paper.title, "placeholder": placeholder, "none": ""}[paper.meta_title]
    created = f"D:{paper.created}0{paper.month % 9 + 1}15120000Z"
    return (
        "\\usepackage{hyperref}\n"
        f"\\hypersetup{{pdfauthor={{{tex(author)}}},pdftitle={{{tex(shown)}}},"
        f"pdfcreationdate={{{created}}},pdfmoddate={{{created}}}}}\n"
    )


def superscripts(paper: Paper, sep: str = ", ", last: str = " and ") -> str:
    """``Name$^{1}$, Name$^{2}$ and Name$^{1,2}$``: bylines with affiliation numbers."""
    marks = [f"{p.name}$^{{{n % 2 + 1}{',3' if n == 2 else ''}}}$" for n, p in
             enumerate(paper.people)]  # fmt: skip
    if len(marks) == 1:
        return marks[0]
    return sep.join(marks[:-1]) + last + marks[-1]


def email(person: Person) -> str:
    local = "".join(c for c in person.family.lower() if c.isascii() and c.isalpha())
    return f"{local or 'author'}@example.org"


def orcid(number: int) -> str:
    return f"0000-000{number % 10}-{1000 + number * 37 % 9000:04d}-{2000 + number * 91 % 7000:04d}"


def inputs(paper: Paper) -> str:
    """The encoding lines: T1 (accented letters as glyphs of their own), or for style 3 none
    (OT1, LaTeX's default: an accent set over its letter, which PDFs give apart)."""
    if paper.style == 3:
        return "\\usepackage[utf8]{inputenc}\n"
    return "\\usepackage[utf8]{inputenc}\n\\usepackage[T1]{fontenc}\n"


def printed(person: Person, paper: Paper) -> str:
    """A name as the byline prints it: East Asian names surname first in capitals for style 2
    (``WANG Xiaoming``), else given name first."""
    if paper.style == 2 and person.family in EAST_ASIAN:
        return f"{person.family.upper()} {person.given}"
    return person.name
