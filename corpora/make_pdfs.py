"""Regenerate the sample corpus's PDF documents from their text sources.

The sources live in corpora/pdf-sources/ (outside the corpus folder, so they are not indexed twice);
each pdf-sources/<sub>/<name>.txt becomes acme/<sub>/<name>.pdf. Core fonts only (latin-1), so the
sources are plain ASCII English. Output is deterministic (fixed creation date).

    .venv/bin/python corpora/make_pdfs.py
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from fpdf import FPDF

HERE = Path(__file__).resolve().parent
SOURCES = HERE / "pdf-sources"
CORPUS = HERE / "acme"
FIXED_DATE = dt.datetime(2024, 11, 1, 9, 0, 0, tzinfo=dt.UTC)


def render(src: Path, dst: Path) -> None:
    text = src.read_text(encoding="utf-8")
    text.encode("latin-1")  # core fonts: fail loudly on anything else
    lines = text.split("\n")
    pdf = FPDF(format="A4")
    pdf.set_creation_date(FIXED_DATE)
    pdf.set_title(lines[0].strip())
    pdf.set_author("Kestrel Instruments Ltd")
    pdf.set_auto_page_break(auto=True, margin=18)
    pdf.set_margins(20, 18, 20)
    pdf.add_page()
    title, body = lines[0].strip(), lines[1:]
    pdf.set_font("Helvetica", "B", 14)
    pdf.multi_cell(0, 8, title, new_x="LMARGIN", new_y="NEXT")
    pdf.ln(2)
    for line in body:
        if not line.strip():
            pdf.ln(3)
            continue
        is_heading = line.isupper() or line.startswith(("Section ", "SCHEDULE", "Appendix", "PARTICULARS", "OPERATIVE"))
        pdf.set_font("Helvetica", "B" if is_heading else "", 11 if is_heading else 10)
        pdf.multi_cell(0, 5, line, new_x="LMARGIN", new_y="NEXT")
    dst.parent.mkdir(parents=True, exist_ok=True)
    pdf.output(str(dst))


def main() -> None:
    for src in sorted(SOURCES.rglob("*.txt")):
        dst = CORPUS / src.relative_to(SOURCES).with_suffix(".pdf")
        render(src, dst)
        print(f"{src.relative_to(HERE)} -> {dst.relative_to(HERE)}")


if __name__ == "__main__":
    main()
