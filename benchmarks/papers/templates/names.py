"""People, titles and sentences for the generated front pages, drawn by a seeded generator.

Names come from many languages as papers print them in Latin script (given name first):
diacritics (``Jürgen Müller``, ``Łukasz Wróbel``, ``Ayşe Yılmaz``), particles kept with the
surname (``van den Berg``, ``de la Tour``, ``von der Heide``), hyphenated given names and
surnames (``Hans-Peter``, ``García-Fernández``), apostrophes (``O'Connor``), capitalised
particles (``De Santis``), middle initials, and East Asian names in Latin script
(``Xiaoming Wang``, ``Seung-Hoon Lee``). Each person's gold family name is known by
construction; the LaTeX is written with ``inputenc`` so the letters reach the PDF as the class's
fonts set them.
"""

from __future__ import annotations

import random
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Person:
    given: str
    family: str

    @property
    def name(self) -> str:
        return f"{self.given} {self.family}"


# (given, family): the family as a reference list would sort it, particles included
PEOPLE: tuple[tuple[str, str], ...] = (
    ("John", "Smith"), ("Emily R.", "Carter"), ("Jürgen", "Müller"), ("Hans-Peter", "Schäfer"),
    ("Ulrike", "von der Heide"), ("Pieter", "van den Berg"), ("Joost", "de Vries"),
    ("François", "Lefèvre"), ("Jean-Luc", "Dupont"), ("Hélène", "de la Tour"),
    ("José", "García-Fernández"), ("María José", "Martín-Gómez"), ("João", "Gonçalves"),
    ("Ana Luísa", "dos Santos"), ("Łukasz", "Wróbel"), ("Małgorzata", "Kowalska"),
    ("Tomáš", "Dvořák"), ("Jiří", "Novák"), ("Gábor", "Balázs"), ("Zsófia", "Szőke"),
    ("Ayşe", "Yılmaz"), ("Mehmet", "Öztürk"), ("Søren", "Højgaard"), ("Åsa", "Lindström"),
    ("Siobhán", "O'Connor"), ("Conor", "McNamara"), ("Luca", "De Santis"),
    ("Giulia", "Bianchi"), ("Omar", "Al-Farsi"), ("Xiaoming", "Wang"), ("Li-Wei", "Chen"),
    ("Seung-Hoon", "Lee"), ("Ji-eun", "Park"), ("Takeshi", "Yamamoto"), ("Yuki", "Tanaka"),
    ("Priya", "Raghunathan"), ("A. K.", "Sharma"), ("Dmitry", "Ivanov"),
    ("Ekaterina", "Smirnova"), ("Nikolaos", "Papadopoulos"), ("Minh", "Nguyen"),
    ("Kwame", "Mensah"), ("Chidi", "Okonkwo"), ("Sofía", "Hernández"), ("Mateus", "Araújo"),
    ("Ingrid", "Bergström"), ("Aleksander", "Nowak"), ("Wei", "Zhang"), ("Hiroshi", "Sato"),
    ("Rachel", "Goldberg"), ("Thomas J.", "Anderson"), ("Laura", "Ferrari"),
)  # fmt: skip

INSTITUTIONS = (
    "Department of Computer Science, University of Toronto", "ETH Zürich",
    "Institute of Physics, Charles University", "Max Planck Institute for Informatics",
    "School of Engineering, Tsinghua University", "KAIST", "Université Paris-Saclay",
    "Universidad Politécnica de Madrid", "Delft University of Technology",
    "Department of Astronomy, University of Cape Town", "Google Research",
    "National Institute of Informatics", "Jagiellonian University", "IBM Research",
    "Faculty of Mathematics, University of Warsaw", "Indian Institute of Science",
)  # fmt: skip
CITIES = (
    "Toronto, Canada",
    "Zürich, Switzerland",
    "Prague, Czech Republic",
    "Beijing, China",
    "Daejeon, Korea",
    "Madrid, Spain",
    "Delft, The Netherlands",
    "Bengaluru, India",
)

_ADJ = (
    "Scalable",
    "Robust",
    "Sparse",
    "Adaptive",
    "Bayesian",
    "Efficient",
    "Distributed",
    "Provably Correct",
    "Low-Rank",
    "Self-Supervised",
    "Stochastic",
    "Interpretable",
)
_NOUN = ("Inference", "Estimation", "Clustering", "Scheduling", "Retrieval", "Spectroscopy",
         "Photometry", "Optimization", "Verification", "Compression", "Tracking")  # fmt: skip
_DOMAIN = ("Graph Streams", "Exoplanet Transits", "Wireless Sensor Networks", "Protein Folding",
           "Quantum Many-Body Systems", "Legal Documents", "Galaxy Clusters", "Edge Devices",
           "Relational Databases", "Turbulent Flows", "Power Grids", "Code Review")  # fmt: skip
_SUBTITLE = ("A Case Study", "Theory and Practice", "Lessons Learned", "An Empirical Study",
             "Bounds and Algorithms")  # fmt: skip


# surnames East Asian papers print first, in capitals (``WANG Xiaoming``), in some journals
EAST_ASIAN = frozenset({"Wang", "Chen", "Lee", "Park", "Yamamoto", "Tanaka", "Zhang", "Sato"})


def title(rng: random.Random) -> str:
    """A paper title: plain, with a subtitle after a colon, long enough for two lines, or with
    a year of its own in it (which is not the paper's)."""
    base = f"{rng.choice(_ADJ)} {rng.choice(_NOUN)} for {rng.choice(_DOMAIN)}"
    kind = rng.random()
    if kind < 0.25:
        return f"{base}: {rng.choice(_SUBTITLE)}"
    if kind < 0.45:
        return f"{base} with {rng.choice(_ADJ)} {rng.choice(_NOUN)} under Limited Supervision"
    if kind < 0.55:
        return f"{base} after the {rng.randint(1950, 2011)} Survey"
    return base


def people(rng: random.Random, count: int) -> list[Person]:
    return [Person(*pair) for pair in rng.sample(PEOPLE, count)]


def cited_sentence(rng: random.Random, year: int) -> str:
    """A sentence citing earlier work with its year (never the paper's own year)."""
    other = Person(*rng.choice(PEOPLE)).family
    cited = rng.choice([y for y in range(1970, year) if y != year] or [1970])
    return rng.choice(
        [
            f"As shown by {other} ({cited}), the problem is hard in general.",
            f"Following {other} et al. ({cited}), we relax the constraints.",
            f"Earlier work ({other}, {cited}) studied the stationary case only.",
            f"The survey of {cited} left the online setting open.",
            # a venue and its year, cited: not the paper's venue line
            f"Results shown at the {cited} Workshop on Streams were preliminary.",
            f"The task comes from the Proceedings of the Conference on Data Mining {cited}.",
        ]
    )


def abstract(rng: random.Random, year: int) -> str:
    return (
        "We study the problem under realistic assumptions and give an algorithm whose cost "
        "grows linearly with the input. "
        + cited_sentence(rng, year)
        + " Experiments on three public data sets confirm the analysis, and the code is "
        "released for others to build on."
    )


BODY = (
    "Many systems face this question in practice. The approach we take is simple: we split the "
    "input, solve each part and join the answers, which keeps memory bounded. Section 2 sets out "
    "the model, Section 3 the method, and Section 4 the experiments."
)
