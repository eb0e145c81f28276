"""Real files for the readers' tests: PDFs made by reportlab (pages of text, an image-only
"scan", an encrypted copy by pypdf) and notebooks written by nbformat with real outputs."""

from __future__ import annotations

import base64
import io
from pathlib import Path

# a 1x1 PNG: what a plot output carries, as base64, in a real notebook
PNG_B64 = base64.b64encode(
    bytes.fromhex(
        "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
        "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082"
    )
).decode()


def pdf_bytes(pages: list[list[str]], title: str | None = None) -> bytes:
    """A PDF with one page per entry, each line of text drawn in reading order."""
    from reportlab.pdfgen import canvas

    out = io.BytesIO()
    pdf = canvas.Canvas(out)
    if title:
        pdf.setTitle(title)
    for lines in pages:
        y = 800
        for line in lines:
            pdf.drawString(72, y, line)
            y -= 14
        pdf.drawString(300, 40, str(pdf.getPageNumber()))  # the page number at the foot
        pdf.showPage()
    pdf.save()
    return out.getvalue()


def headed_pdf_bytes(
    pages: list[tuple[str | None, list[str]]],
    author: str | None = None,
    outline: list[tuple[int, str]] | None = None,
) -> bytes:
    """A PDF whose pages open with a heading in large type (or none) over lines of body text;
    ``outline``: top-level bookmarks, (page index, title), as a volume's table of contents."""
    from reportlab.pdfgen import canvas

    out = io.BytesIO()
    pdf = canvas.Canvas(out)
    if author is not None:
        pdf.setAuthor(author)
    marks: dict[int, list[str]] = {}
    for index, title in outline or []:
        marks.setdefault(index, []).append(title)
    for index, (heading, lines) in enumerate(pages):
        for k, title in enumerate(marks.get(index, [])):
            pdf.bookmarkPage(f"p{index}.{k}")  # one key a bookmark: reportlab names by key
            pdf.addOutlineEntry(title, f"p{index}.{k}", level=0)
        y = 790
        if heading:
            pdf.setFont("Helvetica-Bold", 20)
            pdf.drawString(72, y, heading)
            y -= 30
        pdf.setFont("Helvetica", 10)
        for line in lines:
            pdf.drawString(72, y, line)
            y -= 13
        pdf.showPage()
    pdf.save()
    return out.getvalue()


Run = tuple[float, str]  # (type size in points, text)


def sized_pdf_bytes(
    pages: list[list[Run | list[Run]] | None],
    pagesize: tuple[float, float] | None = None,
    foot: list[str] | None = None,
) -> bytes:
    """Pages of lines, each in its own type size, or set in runs of several sizes (the LaTeX
    logo's smaller ``A``); None: a scanned page (a picture, no text layer); ``foot``: a page
    number printed at each page's foot."""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    width, height = pagesize or A4
    out = io.BytesIO()
    pdf = canvas.Canvas(out, pagesize=(width, height))
    for number, lines in enumerate(pages):
        if lines is None:
            pdf.setFillGray(0.4)
            pdf.rect(40, 40, width - 80, height - 80, fill=1)  # what a scanner leaves
            pdf.setFillGray(0)
        y = height - 40
        for line in lines or []:
            runs = line if isinstance(line, list) else [line]
            y -= max(points for points, _ in runs) * 1.5  # a line's leading follows its type
            text = pdf.beginText(60, y)
            for points, piece in runs:
                text.setFont("Helvetica", points)
                text.textOut(piece)
            pdf.drawText(text)
        if foot:
            pdf.setFont("Helvetica", 9)
            pdf.drawString(width / 2, 30, foot[number])
        pdf.showPage()
    pdf.save()
    return out.getvalue()


def scan_pdf_bytes() -> bytes:
    """A page with a drawing and no text layer (what a scanner produces)."""
    from reportlab.pdfgen import canvas

    out = io.BytesIO()
    pdf = canvas.Canvas(out)
    pdf.rect(100, 100, 300, 500, fill=1)
    pdf.showPage()
    pdf.save()
    return out.getvalue()


def encrypted(raw: bytes, password: str = "s3cret-pw") -> bytes:
    import pypdf

    reader = pypdf.PdfReader(io.BytesIO(raw))
    writer = pypdf.PdfWriter()
    for page in reader.pages:
        writer.add_page(page)
    writer.encrypt(password)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def notebook_bytes() -> bytes:
    """A notebook with markdown, code, a stream output, a plot (PNG + HTML) and an error."""
    import nbformat
    from nbformat.v4 import (
        new_code_cell,
        new_markdown_cell,
        new_notebook,
        new_output,
    )

    cells = [
        new_markdown_cell("# Learning-rate sweep\n\nWe sweep the warmup length."),
        new_code_cell(
            "losses = train(warmup_steps=500)\nprint(losses[-1])",
            outputs=[new_output("stream", name="stdout", text="final loss 0.4213\n")],
        ),
        new_code_cell(
            "plot(losses)",
            outputs=[
                new_output(
                    "display_data",
                    data={
                        "image/png": PNG_B64 * 40,
                        "text/html": "<div class='plotly'>chart</div>",
                        "text/plain": "<Figure size 640x480 with 1 Axes>",
                    },
                )
            ],
        ),
        new_markdown_cell("## Failure\n\n![inline](data:image/png;base64," + PNG_B64 * 10 + ")"),
        new_code_cell(
            "evaluate(model)",
            outputs=[
                new_output(
                    "error",
                    ename="ZeroDivisionError",
                    evalue="division by zero in calibrate_temperature",
                    traceback=[
                        "\x1b[0;31m---------------------------------------------------------\x1b[0m",
                        "\x1b[0;31mZeroDivisionError\x1b[0m: "
                        "division by zero in calibrate_temperature",
                    ],
                )
            ],
        ),
    ]
    return nbformat.writes(new_notebook(cells=cells)).encode()


def write(path: Path, data: bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def raw_text_pdf_bytes(text: bytes) -> bytes:
    """A one-page PDF showing ``text`` as it is, byte for byte, in Helvetica without a
    ToUnicode map: bytes no font maps to a letter come back as control characters, as from a
    PDF whose font encoding is broken."""
    escaped = text.replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)")
    content = b"BT /F1 12 Tf 72 720 Td (" + escaped + b") Tj ET"
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out, offsets = b"%PDF-1.4\n", []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    table = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        table,
    )
    return out
