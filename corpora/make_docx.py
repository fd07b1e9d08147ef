"""Regenerate the sample corpus's Word document: acme/policies/calibration-policy.docx.

A policy of the fictional Kestrel Instruments Ltd with two tables between its paragraphs, so the
corpus exercises .docx extraction (paragraphs and tables in reading order). The text is written here,
not copied from anywhere. Output is deterministic: fixed core-property dates and fixed timestamps
inside the zip package, so regenerating it gives the same bytes.

    .venv/bin/python corpora/make_docx.py
"""

from __future__ import annotations

import datetime as dt
import io
import zipfile
from pathlib import Path

import docx
from docx.shared import Pt

HERE = Path(__file__).resolve().parent
OUT = HERE / "acme" / "policies" / "calibration-policy.docx"
FIXED_DATE = dt.datetime(2024, 9, 2, 9, 0, 0, tzinfo=dt.UTC)
TITLE = "Test Equipment Calibration Policy (KI-POL-011)"

# (kind, content): "h" heading, "p" paragraph, "t" table (header row first)
CONTENT: list[tuple[str, object]] = [
    ("h", "KESTREL INSTRUMENTS LTD"),
    ("h", "TEST EQUIPMENT CALIBRATION POLICY (KI-POL-011)"),
    ("p", "Version 1.4 - effective 2 September 2024 - owner: Head of Quality (Hull)"),
    ("h", "1. Purpose"),
    (
        "p",
        "Every sensor Kestrel ships is tested against reference equipment at the Hull production site. "
        "If that equipment drifts, every sensor tested on it drifts with it. This policy sets how often "
        "test and reference equipment is calibrated, who may calibrate it, and what happens when an "
        "instrument is found out of tolerance.",
    ),
    ("h", "2. Scope"),
    (
        "p",
        "This policy covers all test, measurement and reference equipment used to test, adjust or "
        "certify Kestrel products, at the Hull production site, in the Leeds engineering laboratory and "
        "in field service kits. It does not cover office equipment or equipment owned by customers.",
    ),
    ("h", "3. Calibration intervals"),
    (
        "p",
        "Each instrument carries a calibration label with its asset number and the date its next "
        "calibration is due. The Quality team keeps the calibration register and issues a list of "
        "instruments falling due every month. The maximum intervals are:",
    ),
    (
        "t",
        [
            ["Equipment class", "Maximum interval", "Calibrated by", "Tolerance"],
            ["Reference gas analysers", "6 months", "UKAS-accredited laboratory", "\u00b11% of reading"],
            ["Flow test rigs", "12 months", "UKAS-accredited laboratory", "\u00b10.5% of full scale"],
            ["Temperature reference probes", "12 months", "Kestrel Quality (in house)", "\u00b10.1 \u00b0C"],
            [
                "Multimeters and loop calibrators",
                "24 months",
                "Kestrel Quality (in house)",
                "manufacturer's specification",
            ],
            ["Field service kits", "12 months", "Kestrel Quality (in house)", "as for each instrument above"],
        ],
    ),
    (
        "p",
        "An instrument that is past its due date must not be used. Anyone who finds an overdue instrument "
        "in use must take it out of service, attach a red QUARANTINE tag and tell the Quality team the "
        "same working day.",
    ),
    ("h", "4. Approved calibration providers"),
    (
        "p",
        "External calibration may only be placed with the providers below, each of which holds UKAS "
        "accreditation for the measurements listed. Procurement adds a provider only after the Quality "
        "team has checked its accreditation schedule.",
    ),
    (
        "t",
        [
            ["Provider", "Location", "Accredited for"],
            ["Humber Metrology Services Ltd", "Hull", "gas analysis, pressure"],
            ["Pennine Flow Laboratory", "Huddersfield", "liquid flow"],
            ["Aire Valley Calibration", "Bradford", "temperature, electrical"],
        ],
    ),
    ("h", "5. Out-of-tolerance results"),
    (
        "p",
        "When a calibration certificate shows that an instrument was outside its tolerance before "
        "adjustment, the Quality team opens a non-conformance report within two (2) working days and "
        "reviews every product batch tested on that instrument since its last good calibration. If a "
        "shipped batch may be affected, the Head of Quality decides within ten (10) working days whether "
        "customers must be told and whether the batch is recalled for retest.",
    ),
    ("h", "6. Records"),
    (
        "p",
        "Calibration certificates and non-conformance reports are kept for seven (7) years from the date "
        "of the certificate, in the quality management system. Paper certificates are scanned and the "
        "originals kept at the Hull site.",
    ),
    ("h", "7. Review"),
    (
        "p",
        "The Head of Quality reviews this policy every year and after any out-of-tolerance result that "
        "reached a customer.",
    ),
]


def render() -> bytes:
    d = docx.Document()
    d.styles["Normal"].font.name = "Calibri"
    d.styles["Normal"].font.size = Pt(10.5)
    props = d.core_properties
    props.title, props.author, props.last_modified_by = TITLE, "Kestrel Instruments Ltd", "Quality"
    props.created = props.modified = FIXED_DATE.replace(tzinfo=None)
    props.revision = 1
    header = d.sections[0].header.paragraphs[0]
    header.text = "KI-POL-011 - Kestrel Instruments Ltd - internal"  # headers are not extracted
    for kind, content in CONTENT:
        if kind == "h":
            d.add_heading(content, level=1 if content.isupper() else 2)
        elif kind == "p":
            d.add_paragraph(content)
        else:
            rows = content
            table = d.add_table(rows=len(rows), cols=len(rows[0]))
            table.style = "Table Grid"
            for r, row in enumerate(rows):
                for c, value in enumerate(row):
                    table.cell(r, c).text = value
    buf = io.BytesIO()
    d.save(buf)
    return _fixed_zip_times(buf.getvalue())


def _fixed_zip_times(data: bytes) -> bytes:
    """The same package with every member's timestamp fixed, so the output is byte-for-byte stable."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            fixed = zipfile.ZipInfo(info.filename, date_time=FIXED_DATE.timetuple()[:6])
            fixed.compress_type = zipfile.ZIP_DEFLATED
            dst.writestr(fixed, src.read(info.filename))
    return out.getvalue()


def main() -> None:
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_bytes(render())
    print(f"wrote {OUT.relative_to(HERE)}")


if __name__ == "__main__":
    main()
