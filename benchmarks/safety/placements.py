"""What the judges bench (:mod:`benchmarks.safety.judges`) judges: credential samples placed
where a researcher writes them, and ordinary research text that holds none.

Samples: gitleaks' own true positives (``shared/data/secrets-dev/gitleaks-samples.jsonl``, 578
samples of 220 rules, MIT; ``$ARR_SECRETS_SAMPLES`` to read another file). Each sample's
``line`` is placed whole (plain text, Markdown prose, a notebook cell as the ``.ipynb`` file
holds it, a JSON value, a ``.bib`` note, a LaTeX comment) and its ``secret`` is placed under
the rule's name (Python, R and shell assignments, YAML, a JSON field, a LaTeX macro, a ``.bib``
field), and once split by an invisible format character. Research text: made here,
deterministically (seeded), in the forms that look random but are not secrets: sequences,
hashes and content keys, public keys, identifiers of runs, papers and commits.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import uuid
from collections.abc import Callable
from pathlib import Path

SAMPLES = Path(__file__).resolve().parents[3] / "shared/data/secrets-dev/gitleaks-samples.jsonl"
# Characters that render as nothing (format characters, a variation selector, the combining
# grapheme joiner, the Hangul filler): a token split by one reads whole on screen.
SPLITTERS = ("\u200b", "\u200e", "\u200f", "\ufe0f", "\u034f", "\u3164", "\u2060")


def samples() -> list[dict[str, str]]:
    path = Path(os.environ.get("ARR_SECRETS_SAMPLES", SAMPLES))
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def detect_secrets_samples(folder: Path) -> list[dict[str, str]]:
    """detect-secrets' own positives: its scanner (every default plugin and filter) run over
    its ``test_data`` folder (``$ARR_DETECT_SECRETS_DATA``: the folder of its repository, not
    in its sdist, so not shipped here), one sample per line it flags: rule = the plugin's
    type, line = the line, secret = the value it names."""
    from detect_secrets.core.scan import scan_file
    from detect_secrets.settings import default_settings

    found: dict[tuple[str, int], dict[str, str]] = {}
    with default_settings():
        for path in sorted(p for p in folder.rglob("*") if p.is_file()):
            lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
            for secret in scan_file(str(path)):
                where = (str(path), secret.line_number)
                line = lines[secret.line_number - 1].strip()
                value = secret.secret_value or line
                found.setdefault(where, {"rule": secret.type, "line": line, "secret": value})
    return list(found.values())


def _name(rule: str) -> str:
    """The rule's id as a variable's name (gitleaks' ``-`` and ``.``, detect-secrets' spaces)."""
    return re.sub(r"\W", "_", rule)


def _notebook(line: str) -> str:
    cell = {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": 1}
    cell["source"] = line.splitlines(keepends=True)
    notebook = {"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    return json.dumps(notebook, indent=1)


def _notebook_output(line: str) -> str:
    """The line printed by a cell: a stream output, as the ``.ipynb`` file holds it."""
    cell = {"cell_type": "code", "metadata": {}, "execution_count": 1, "source": ["run()"]}
    cell["outputs"] = [
        {"name": "stdout", "output_type": "stream", "text": line.splitlines(keepends=True)}
    ]
    notebook = {"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    return json.dumps(notebook, indent=1)


def pdf_of(text: str) -> bytes:
    """A one-page PDF whose body is ``text`` in a paragraph of a paper's column (reportlab:
    lines wrapped at 80 points a side, long words split over lines, as a typesetter does)."""
    from io import BytesIO
    from xml.sax.saxutils import escape

    from reportlab.lib.pagesizes import A4
    from reportlab.lib.styles import getSampleStyleSheet
    from reportlab.platypus import Paragraph, SimpleDocTemplate

    out = BytesIO()
    style = getSampleStyleSheet()["BodyText"]
    paragraphs = [Paragraph("Methods", getSampleStyleSheet()["Heading2"])]
    body = "The runs below used these settings: " + escape(text) + " Then we trained."
    paragraphs.append(Paragraph(body.replace("\n", "<br/>"), style))
    SimpleDocTemplate(out, pagesize=A4, leftMargin=80, rightMargin=80).build(paragraphs)
    return out.getvalue()


def _split(secret: str, at: int) -> str:
    middle = len(secret) // 2
    return secret[:middle] + SPLITTERS[at % len(SPLITTERS)] + secret[middle:]


# context -> (file name, text) from (rule, line, secret, sample number)
Placement = Callable[[str, str, str, int], tuple[str, str]]
CONTEXTS: dict[str, Placement] = {
    "plain": lambda r, line, s, i: ("notes.txt", f"{line}\n"),
    "markdown": lambda r, line, s, i: (
        "README.md",
        f"# Setup\n\nThe runs below used these settings:\n\n{line}\n\nThen run `make all`.\n",
    ),
    "notebook": lambda r, line, s, i: ("analysis.ipynb", _notebook(line)),
    "json_value": lambda r, line, s, i: ("run.json", json.dumps({"note": line}) + "\n"),
    "bib_note": lambda r, line, s, i: (
        "refs.bib",
        "@misc{run2024,\n  title = {Pipeline settings},\n  note = {" + line + "}\n}\n",
    ),
    "latex_comment": lambda r, line, s, i: (
        "paper.tex",
        "\\section{Methods}\n"
        + "".join(f"% {part}\n" for part in line.splitlines())
        + "We train for 10 epochs.\n",
    ),
    "python": lambda r, line, s, i: ("train.py", f'{_name(r).upper()} = "{s}"\n'),
    "r_script": lambda r, line, s, i: ("analysis.R", f'{_name(r)} <- "{s}"\n'),
    "shell": lambda r, line, s, i: ("run.sh", f"export {_name(r).upper()}={s}\n"),
    "yaml": lambda r, line, s, i: ("config.yaml", f"{_name(r)}: {s}\n"),
    "json_field": lambda r, line, s, i: ("config.json", json.dumps({_name(r): s}) + "\n"),
    "latex_macro": lambda r, line, s, i: ("paper.tex", f"\\newcommand{{\\{_name(r)}}}{{{s}}}\n"),
    "bib_field": lambda r, line, s, i: ("refs.bib", f"@misc{{x,\n  {_name(r)} = {{{s}}}\n}}\n"),
    "format_char": lambda r, line, s, i: ("notes.txt", line.replace(s, _split(s, i)) + "\n"),
    "notebook_output": lambda r, line, s, i: ("analysis.ipynb", _notebook_output(line)),
    "pdf_text": lambda r, line, s, i: ("paper.pdf", line),  # typeset by placed()
}


def placed(sample: dict[str, str], number: int) -> dict[str, tuple[str, bytes]]:
    """The sample in every context: context -> (file name, content); a ``.pdf`` typeset."""
    rule, line, secret = sample["rule"], sample["line"], sample["secret"]
    out = {}
    for name, place in CONTEXTS.items():
        file_name, text = place(rule, line, secret, number)
        out[name] = (file_name, pdf_of(text) if file_name.endswith(".pdf") else text.encode())
    return out


def _fasta(rng: random.Random, alphabet: str, records: int, length: int) -> str:
    out = []
    for number in range(records):
        out.append(f">seq{number} sample={number % 7} len={length}")
        sequence = "".join(rng.choice(alphabet) for _ in range(length))
        out += [sequence[i : i + 60] for i in range(0, length, 60)]
    return "\n".join(out) + "\n"


def _hex(rng: random.Random, digits: int) -> str:
    return "".join(rng.choice("0123456789abcdef") for _ in range(digits))


def _base36(rng: random.Random, length: int) -> str:
    return "".join(rng.choice("0123456789abcdefghijklmnopqrstuvwxyz") for _ in range(length))


def _lines(template: str, values: list, count: int | None = None) -> str:
    """One line per value (``{i}`` its number, ``{v}`` the value)."""
    return "".join(template.format(i=i, v=v) for i, v in enumerate(values[:count]))


def research_files() -> list[tuple[str, str, str]]:
    """(what, file name, text) of ordinary research files: none may be withheld."""
    rng = random.Random(62)
    sha256 = [hashlib.sha256(str(i).encode()).hexdigest() for i in range(200)]
    md5 = [hashlib.md5(str(i).encode()).hexdigest() for i in range(200)]  # noqa: S324
    uuids = [str(uuid.UUID(int=rng.getrandbits(128), version=4)) for _ in range(200)]
    shas = [_hex(rng, 40) for _ in range(200)]
    runs = [_base36(rng, 8) for _ in range(200)]
    pairs = [f"{d}\n  md5: {m}" for d, m in zip(sha256, md5, strict=True)]
    experiments = [{"key": f"exp-{run}-{i}", "seed": i} for i, run in enumerate(runs[:50])]
    arxiv = [f"{2300 + i % 12:04}.{rng.randrange(10**5):05}v{1 + i % 3}" for i in range(100)]
    return [
        ("FASTA DNA", "reads.fasta", _fasta(rng, "ACGT", 60, 6000)),
        ("FASTA protein", "proteins.faa", _fasta(rng, "ACDEFGHIKLMNPQRSTVWY", 60, 3000)),
        ("FASTQ reads", "reads.fastq", _fastq(rng)),
        ("sha256sums", "SHA256SUMS", _lines("{v}  data/part-{i:04}.csv\n", sha256)),
        ("md5 checksums", "checksums.md5", _lines("{v}  raw/{i}.tif\n", md5)),
        ("cache_key = <hex>", "cache.py", _lines('cache_key = "{v}"\n', sha256, 50)),
        ("YAML key: <hash>", "dvc.lock", _lines("- path: data/{i}.csv\n  key: {v}\n", pairs, 50)),
        (
            'public_key = "04..."',
            "keys.py",
            _lines('public_key = "04{v}"\n', [_hex(rng, 128) for _ in range(20)]),
        ),
        ("UUIDs", "samples.csv", "sample_id,subject\n" + _lines("{v},{i}\n", uuids)),
        ('"key": "exp-..."', "runs.json", json.dumps(experiments, indent=1)),
        ("DOIs", "dois.txt", _lines("https://doi.org/10.{i}/j.cell.2024.{v}\n", shas, 100)),
        ("git SHAs", "git.log", _lines("commit {v}\nAuthor: A <a@x.org>\n\n  step {i}\n\n", shas)),
        ("wandb run ids", "wandb.txt", _lines("run_id = {v}\nhttps://wandb.ai/l/runs/{v}\n", runs)),
        ("mlflow run ids", "mlflow.yaml", _lines("run_id: {v}\nexperiment_id: {i}\n", md5, 100)),
        ("arXiv ids", "papers.md", _lines("- arXiv:{v}\n", arxiv)),
        ("git SHA pins", "env.yml", _lines("  - git+https://github.com/lab/t{i}@{v}\n", shas, 50)),
        ("ORCID ids", "authors.yaml", _lines("- author: A{i}\n  orcid: {v}\n", _orcids(rng))),
        ("DOIs in .bib", "refs.bib", _bib(shas)),
        ("conda lock sha256", "conda-lock.yml", _lines("    sha256: {v}\n    md5: x\n", sha256)),
        ("image digests", "compose.yaml", _lines("  image: lab/t{i}@sha256:{v}\n", sha256, 50)),
        ("npm integrity", "package-lock.json", _integrity(rng)),
        ("notebook of hashes", "hashes.ipynb", _hash_notebook(sha256, uuids)),
        ("K8s ConfigMap", "configmap.yaml", _configmap(rng)),
        ("password prose", "methods.md", _PROSE),
    ]  # fmt: skip


def _orcids(rng: random.Random) -> list[str]:
    """ORCID iDs with their check character (ISO 7064 11,2: an ``X`` one time in 11)."""
    out = []
    for _ in range(100):
        digits = [rng.randrange(10) for _ in range(15)]
        total = 0
        for d in digits:
            total = (total + d) * 2
        check = (12 - total % 11) % 11
        body = "".join(map(str, digits)) + ("X" if check == 10 else str(check))
        out.append("-".join(body[i : i + 4] for i in range(0, 16, 4)))
    return out


def _bib(shas: list[str]) -> str:
    return "".join(
        f"@article{{k{i},\n  author = {{Doe, Jane and Roe, R.}},\n  doi = {{10.1101/{v[:12]}}},\n"
        f"  url = {{https://doi.org/10.1101/{v[:12]}}},\n  year = {{2024}}\n}}\n"
        for i, v in enumerate(shas[:50])
    )


def _integrity(rng: random.Random) -> str:
    import base64

    packages = {
        f"node_modules/p{i}": {
            "version": f"1.{i}.0",
            "integrity": "sha512-" + base64.b64encode(rng.randbytes(64)).decode(),
        }
        for i in range(50)
    }
    return json.dumps({"name": "site", "lockfileVersion": 3, "packages": packages}, indent=2)


def _hash_notebook(sha256: list[str], uuids: list[str]) -> str:
    lines = [f"{u}  {d}\n" for u, d in zip(uuids[:40], sha256[:40], strict=True)]
    cell = {"cell_type": "code", "metadata": {}, "execution_count": 3, "source": ["digests()"]}
    cell["outputs"] = [{"name": "stdout", "output_type": "stream", "text": lines}]
    return json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


def _configmap(rng: random.Random) -> str:
    """A ConfigMap (not a Secret): its data are settings, shown."""
    rows = "".join(f"  run_{i}: {_base36(rng, 12)}\n" for i in range(20))
    return f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: params\ndata:\n{rows}"


_PROSE = (
    "# Access\n\nParticipants chose a password of at least 12 characters; the password\n"
    "policy (password: required) was enforced by the portal. Authentication used ORCID\n"
    "login: https://orcid.org/signin. See the auth: section of the protocol.\n"
)


def _fastq(rng: random.Random) -> str:
    out = []
    quality = "!#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJ"
    for number in range(500):
        out += [f"@read{number}", "".join(rng.choice("ACGTN") for _ in range(150)), "+"]
        out.append("".join(rng.choice(quality) for _ in range(150)))
    return "\n".join(out) + "\n"


# Paths a name rule judges: a credential in a name must be withheld; research names must not.
RESEARCH_PATHS = (
    "comp_sci_fundamentals_and_history/notes.md",
    "lectures/bash_history_of_unix.md",
    "data/monkey_key_events.csv",
    "src/keyboard_history/plot.py",
)
