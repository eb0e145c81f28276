"""Front pages in the classes of the RAS (MNRAS), JMLR/PMLR, Springer's LNCS, the AMS (amsart,
which sets bylines in capitals) and the plain ``article`` with ``authblk`` (an arXiv preprint's
numbered affiliations), as their sample files write them."""

from __future__ import annotations

from benchmarks.papers.templates.front_a import _body, _city, _inst
from benchmarks.papers.templates.paper import (
    Paper,
    email,
    inputs,
    metadata,
    orcid,
    printed,
    superscripts,
    tex,
)


def mnras(paper: Paper) -> str:
    meta = metadata(paper, "Royal Astronomical Society", "Keith T. Smith",
                    "MNRAS LaTeX template and style guide")  # fmt: skip
    short = paper.people[0].given[0] + ". " + paper.people[0].family
    names = superscripts(paper)
    addresses = "\\\\\n".join(f"$^{{{n}}}${_inst(n)}, {_city(n)}" for n in (1, 2, 3))
    pubyear = str(paper.year) if paper.printed else ""
    return (
        f"\\documentclass[fleqn,usenatbib]{{mnras}}\n{inputs(paper)}{meta}"
        f"\\title[Short title]{{{tex(paper.title)}}}\n"
        f"\\author[{short} et al.]{{{names}\\\\\n{addresses}}}\n"
        "\\date{Accepted XXX. Received YYY; in original form ZZZ}\n"
        f"\\pubyear{{{pubyear}}}\n\\begin{{document}}\n"
        f"\\renewcommand{{\\today}}{{{paper.date_uk if paper.printed else ''}}}\n"
        "\\label{firstpage}\n\\pagerange{\\pageref{firstpage}--\\pageref{lastpage}}\n"
        f"\\maketitle\n\\begin{{abstract}}\n{paper.abstract}\n\\end{{abstract}}\n"
        f"\\begin{{keywords}}\nmethods: numerical\n\\end{{keywords}}\n"
        f"{_body(paper)}\\label{{lastpage}}\n\\end{{document}}\n"
    )


def jmlr(paper: Paper) -> str:
    meta = metadata(paper, "Microtome Publishing", "Author Name", "Title of the Paper")
    people = "\\AND\n".join(
        f"\\Name{{{p.name}}} \\Email{{{email(p)}}}\\\\\n\\addr {_inst(n)}"
        for n, p in enumerate(paper.people)
    )
    venue = (
        f"\\jmlrvolume{{{40 + paper.number}}}\n\\jmlryear{{{paper.year}}}\n"
        f"\\jmlrworkshop{{Proceedings of the Conference on Learning Theory {paper.year}}}\n"
        if paper.printed
        else "\\jmlrvolume{}\n\\jmlryear{}\n\\jmlrworkshop{}\n"
    )
    return (
        f"\\documentclass[pmlr]{{jmlr}}\n{inputs(paper)}{meta}{venue}"
        f"\\title{{{tex(paper.title)}}}\n\\author{{{people}}}\n\\begin{{document}}\n"
        f"\\maketitle\n\\begin{{abstract}}\n{paper.abstract}\n\\end{{abstract}}\n"
        f"\\begin{{keywords}}\nlearning theory\n\\end{{keywords}}\n"
        f"{_body(paper)}\\end{{document}}\n"
    )


def llncs(paper: Paper) -> str:
    meta = metadata(paper, "Springer", "Lecture Notes in Computer Science", "Contribution Title")
    people = " \\and\n".join(
        f"{p.name}\\inst{{{n % 2 + 1}}}" + (f"\\orcidID{{{orcid(n)}}}" if paper.style % 2 else "")
        for n, p in enumerate(paper.people)
    )  # fmt: skip
    short = paper.people[0].given[0] + ". " + paper.people[0].family
    institutes = " \\and\n".join(
        f"{_inst(n)}, {_city(n)}\\\\\\email{{{email(paper.people[min(n, len(paper.people) - 1)])}}}"
        for n in (0, 1)
    )  # fmt: skip
    copyright_line = (
        "\\let\\thefootnote\\relax\\footnotetext{\\copyright\\ Springer Nature Switzerland AG "
        f"{paper.year}\\\\ A. Editor (Ed.): ECIR {paper.year}, LNCS {11000 + paper.number}, "
        f"pp. 1--12, {paper.year}.}}\n"
        if paper.printed
        else ""
    )
    return (
        f"\\documentclass[runningheads]{{llncs}}\n{inputs(paper)}{meta}\\begin{{document}}\n"
        f"\\title{{{tex(paper.title)}}}\n\\author{{{people}}}\n"
        f"\\authorrunning{{{short} et al.}}\n\\institute{{{institutes}}}\n\\maketitle\n"
        f"{copyright_line}\\begin{{abstract}}\n{paper.abstract}\n"
        f"\\keywords{{retrieval \\and scheduling}}\n\\end{{abstract}}\n"
        f"{_body(paper)}\\end{{document}}\n"
    )


def amsart(paper: Paper) -> str:
    meta = metadata(paper, "American Mathematical Society", "Author One", "Sample Paper")
    people = "\n".join(
        f"\\author{{{p.name}}}\n\\address{{{_inst(n)}, {_city(n)}}}\n\\email{{{email(p)}}}"
        for n, p in enumerate(paper.people)
    )
    date = f"\\date{{{paper.date}}}" if paper.printed else "\\date{}"
    return (
        f"\\documentclass{{amsart}}\n{inputs(paper)}{meta}\\begin{{document}}\n"
        f"\\title{{{tex(paper.title)}}}\n{people}\n{date}\n"
        "\\subjclass[2020]{Primary 68Q25}\n"
        f"\\begin{{abstract}}\n{paper.abstract}\n\\end{{abstract}}\n\\maketitle\n"
        f"{_body(paper)}\\end{{document}}\n"
    )


def authblk(paper: Paper) -> str:
    meta = metadata(paper, "arXiv", "Author", "Title")
    people = "\n".join(
        f"\\author[{n % 2 + 1}{',3' if n == 2 else ''}]{{{printed(p, paper)}}}"
        for n, p in enumerate(paper.people)
    )
    affiliations = "\n".join(f"\\affil[{n}]{{{_inst(n)}, {_city(n)}}}" for n in (1, 2, 3))
    stamp = arxiv_stamp(paper) if paper.printed and paper.style == 1 else ""
    date = (
        "\\date{}" if stamp
        else f"\\date{{{paper.date}}}" if paper.printed and paper.style < 2
        else f"\\date{{Preprint. Under review at the Conference on Neural Systems {paper.year}.}}"
        if paper.printed else "\\date{}"
    )  # fmt: skip
    return (
        f"\\documentclass[11pt]{{article}}\n{inputs(paper)}\\usepackage{{authblk}}\n"
        f"\\usepackage{{eso-pic,graphicx,xcolor}}\n{meta}"
        f"\\title{{{tex(paper.title)}}}\n{people}\n{affiliations}\n{date}\n"
        f"\\begin{{document}}\n{stamp}\\maketitle\n\\begin{{abstract}}\n{paper.abstract}\n"
        f"\\end{{abstract}}\n{_body(paper)}\\end{{document}}\n"
    )


def arxiv_stamp(paper: Paper) -> str:
    """arXiv's stamp up the left margin (``arXiv:1503.01234v2 [cs.LG] 5 Mar 2015``), the scheme
    of its year: ``cs/0703123`` before April 2007, four digits after the dot to 2014, five
    since; the paper's own year, printed nowhere else on its page."""
    yymm = f"{paper.year % 100:02d}{paper.month:02d}"
    if (paper.year, paper.month) < (2007, 4):
        ident = f"cs/{yymm}{paper.number:03d}"
    else:
        ident = f"{yymm}.{paper.number:0{4 if paper.year < 2015 else 5}d}"
    when = f"{paper.day} {paper.date.split()[0][:3]} {paper.year}"
    text = f"arXiv:{ident}v1  [cs.LG]  {when}"
    return (
        "\\AddToShipoutPictureBG*{\\AtPageLowerLeft{\\hspace*{1cm}\\raisebox{6cm}{"
        f"\\rotatebox{{90}}{{\\color{{gray}}\\sffamily\\LARGE {text}}}}}}}}}\n"
    )
