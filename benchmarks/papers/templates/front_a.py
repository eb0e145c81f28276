"""Front pages in the classes of IEEE, ACM, Elsevier, APS (REVTeX) and the AAS, written as
their own sample files write them (the class's author macros, its venue and copyright lines),
each with variants of byline and year line chosen by ``Paper.style`` and ``Paper.printed``."""

from __future__ import annotations

from benchmarks.papers.templates.names import BODY, CITIES, INSTITUTIONS
from benchmarks.papers.templates.paper import Paper, email, inputs, metadata, orcid, printed, tex

ADJCOL = "\\IEEEpubidadjcol"
CORREF = "\\corref{cor1}"


def _inst(n: int) -> str:
    return INSTITUTIONS[n % len(INSTITUTIONS)]


def _city(n: int) -> str:
    return CITIES[n % len(CITIES)]


def _body(paper: Paper) -> str:
    return f"\\section{{Introduction}}\n{BODY}\n"


def ieeetran(paper: Paper) -> str:
    meta = metadata(paper, "IEEE", "Michael Shell", "Bare Demo of IEEEtran.cls for Conferences")
    if paper.style % 2 == 0:  # a conference: author blocks side by side
        mode = "conference"
        blocks = "\n\\and\n".join(
            f"\\IEEEauthorblockN{{{p.name}}}\n\\IEEEauthorblockA{{\\textit{{{_inst(n)}}}\\\\"
            f"{_city(n)}\\\\{email(p)}}}" for n, p in enumerate(paper.people)
        )  # fmt: skip
        head = ""
        pubid = (
            f"\\IEEEpubid{{\\makebox[\\columnwidth]{{978-1-7281-{paper.number:04d}-0/"
            f"{paper.year % 100:02d}/\\$31.00~\\copyright~{paper.year} IEEE\\hfill}}"
            "\\hspace{\\columnsep}\\makebox[\\columnwidth]{ }}"
        )
    else:  # a journal: one line of names, the dates in a footnote
        mode = "journal"
        names = [p.name for p in paper.people]
        line = names[0] if len(names) == 1 else ", ".join(names[:-1]) + ", and " + names[-1]
        received = f"Manuscript received {paper.date}." if paper.printed else ""
        blocks = f"{line}\\thanks{{{paper.people[0].name} is with {_inst(0)}. {received}}}"
        issue = f"Vol. 14, No. 8, {paper.date.split()[0]} {paper.year}" if paper.printed else ""
        head = f"\\markboth{{IEEE Transactions on Knowledge and Data Engineering, {issue}}}{{}}\n"
        pubid = ""
    return (
        f"\\documentclass[{mode}]{{IEEEtran}}\n{inputs(paper)}{meta}\\IEEEoverridecommandlockouts\n"
        f"\\begin{{document}}\n\\title{{{tex(paper.title)}}}\n\\author{{{blocks}}}\n{head}"
        f"\\maketitle\n{pubid if paper.printed else ''}\n"
        f"\\begin{{abstract}}\n{paper.abstract}\n\\end{{abstract}}\n"
        f"\\begin{{IEEEkeywords}}\nretrieval, scheduling\n\\end{{IEEEkeywords}}\n"
        f"{ADJCOL if paper.printed and mode == 'conference' else ''}\n"
        f"{_body(paper)}\\end{{document}}\n"
    )


def acmart(paper: Paper) -> str:
    meta = metadata(paper, "ACM", "Ben Trovato", "The Name of the Title Is Hopefully Short")
    people = "\n".join(
        f"\\author{{{p.name}}}\n" + (f"\\orcid{{{orcid(n)}}}\n" if paper.style % 2 else "")
        + f"\\affiliation{{\\institution{{{_inst(n)}}}\\city{{{_city(n).split(',')[0]}}}"
        f"\\country{{{_city(n).split(', ')[-1]}}}}}\n\\email{{{email(p)}}}"
        for n, p in enumerate(paper.people)
    )  # fmt: skip
    if paper.printed:
        venue = (
            f"\\copyrightyear{{{paper.year}}}\n\\acmYear{{{paper.year}}}\n"
            "\\setcopyright{acmlicensed}\n"
            f"\\acmConference[SIGIR '{paper.year % 100:02d}]{{Proceedings of the ACM SIGIR "
            f"Conference}}{{{paper.date}}}{{Lisbon, Portugal}}\n"
            f"\\acmDOI{{10.1145/{3000000 + paper.number}.{3100000 + paper.number}}}\n"
            "\\acmISBN{978-1-4503-0000-0/18/06}\n"
        )
        options = "sigconf"
    else:
        venue, options = "", "sigconf,nonacm"
    return (
        f"\\documentclass[{options}]{{acmart}}\n{venue}{meta}\\begin{{document}}\n"
        f"\\title{{{tex(paper.title)}}}\n{people}\n"
        f"\\begin{{abstract}}\n{paper.abstract}\n\\end{{abstract}}\n\\maketitle\n"
        f"{_body(paper)}\\end{{document}}\n"
    )


def elsarticle(paper: Paper) -> str:
    meta = metadata(paper, "Elsevier", "Elsevier Ltd", "This is a specimen title")
    people = "\n".join(
        f"\\author[inst{n % 2 + 1}]{{{printed(p, paper)}{CORREF if n == 0 else ''}}}\n"
        f"\\ead{{{email(p)}}}" for n, p in enumerate(paper.people)
    )  # fmt: skip
    today = paper.date if paper.printed else ""
    options = "preprint,12pt" if paper.style % 2 == 0 else "final,5p,times,twocolumn"
    return (
        f"\\documentclass[{options}]{{elsarticle}}\n{inputs(paper)}{meta}"
        f"\\journal{{Journal of Computational Physics}}\n"
        f"\\begin{{document}}\n\\renewcommand{{\\today}}{{{today}}}\n\\begin{{frontmatter}}\n"
        f"\\title{{{tex(paper.title)}}}\n{people}\n\\cortext[cor1]{{Corresponding author}}\n"
        f"\\address[inst1]{{{_inst(0)}, {_city(0)}}}\n\\address[inst2]{{{_inst(1)}, "
        f"{_city(1)}}}\n\\begin{{abstract}}\n{paper.abstract}\n\\end{{abstract}}\n"
        f"\\begin{{keyword}}\nretrieval \\sep scheduling\n\\end{{keyword}}\n"
        f"\\end{{frontmatter}}\n{_body(paper)}\\end{{document}}\n"
    )


def revtex(paper: Paper) -> str:
    meta = metadata(paper, "American Physical Society", "Author Name", "Manuscript Title")
    options = "aps,prd,twocolumn" + (",superscriptaddress" if paper.style % 2 else "")
    people = "\n".join(
        f"\\author{{{p.name}}}\n" + (f"\\email{{{email(p)}}}\n" if n == 0 else "")
        + f"\\affiliation{{{_inst(n % 2)}, {_city(n % 2)}}}" for n, p in enumerate(paper.people)
    )  # fmt: skip
    date = f"\\date{{{paper.date}}}" if paper.printed else "\\date{}"
    return (
        f"\\documentclass[{options}]{{revtex4-2}}\n{inputs(paper)}{meta}\\begin{{document}}\n"
        f"\\title{{{tex(paper.title)}}}\n{people}\n{date}\n"
        f"\\begin{{abstract}}\n{paper.abstract}\n\\end{{abstract}}\n\\maketitle\n"
        f"{_body(paper)}\\end{{document}}\n"
    )


def aastex(paper: Paper) -> str:
    meta = metadata(paper, "AAS", "AAS Journals", "An Example Article using AASTeX v6.3.1")
    people = "\n".join(
        f"\\author[{orcid(n)}]{{{p.name}}}" if paper.style % 2 else f"\\author{{{p.name}}}"
        for n, p in enumerate(paper.people)
    )
    people = "\n".join(
        line + f"\n\\affiliation{{{_inst(n)}}}" for n, line in enumerate(people.splitlines())
    )
    today = paper.date if paper.printed else ""
    dates = (
        f"\\received{{{paper.date_uk}}}\n\\accepted{{{paper.date_uk}}}\n\\submitjournal{{ApJ}}\n"
        if paper.printed and paper.style >= 2 else ""
    )  # fmt: skip
    return (
        f"\\documentclass[twocolumn]{{aastex631}}\n{inputs(paper)}{meta}"
        f"\\begin{{document}}\n\\renewcommand{{\\today}}{{{today}}}\n{dates}"
        f"\\title{{{tex(paper.title)}}}\n{people}\n"
        f"\\begin{{abstract}}\n{paper.abstract}\n\\end{{abstract}}\n\\keywords{{galaxies}}\n"
        f"{_body(paper)}\\end{{document}}\n"
    )
