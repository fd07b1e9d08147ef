"""File -> text for .txt, .md, .html, .pdf and .docx, with a skip reason for anything that cannot be used.

The text returned here is what every character offset in the project refers to, so it is kept
exactly: line endings are not touched (``\\r\\n`` stays), only a leading BOM is removed. Text that is
not UTF-8 is decoded with charset-normalizer (cp1252, EUC-KR/cp949, Shift-JIS, ...), not dropped.
"""

from __future__ import annotations

import codecs
import io
import logging
import re
from dataclasses import dataclass
from html.parser import HTMLParser

from wikigen.search.facts.title import TITLE_CHARS, document_title, first_line

from wikigen.core.errors import ExtractError

__all__ = [
    "DEFAULT_MAX_BYTES",
    "SUFFIXES",
    "TEXT_SUFFIXES",
    "ExtractError",
    "Extracted",
    "decode_text",
    "docx_to_text",
    "extract_bytes",
    "html_to_text",
    "pdf_to_text",
    "title_from_text",
    "unsupported_reason",
]

log = logging.getLogger(__name__)

TEXT_SUFFIXES = frozenset({".txt", ".md", ".markdown"})
HTML_SUFFIXES = frozenset({".html", ".htm"})
PDF_SUFFIXES = frozenset({".pdf"})
DOCX_SUFFIXES = frozenset({".docx"})
SUFFIXES = TEXT_SUFFIXES | HTML_SUFFIXES | PDF_SUFFIXES | DOCX_SUFFIXES
# Formats we do not read, with how to turn them into one we do.
_CONVERT = "convert it to .docx first, e.g. `libreoffice --headless --convert-to docx FILE`"
_HINTS = {
    ".doc": f"legacy Word .doc is not supported: {_CONVERT}",
    ".rtf": f"RTF is not supported: {_CONVERT}",
    ".odt": f"OpenDocument text is not supported: {_CONVERT}",
    ".docm": "macro-enabled Word files are not read: save it as .docx (macros removed)",
}
DEFAULT_MAX_BYTES = 20 * 1024 * 1024  # a file larger than this is skipped and reported (`--max-bytes` changes it)
# A .docx is a zip: a few hundred KB can unpack to gigabytes (a zip bomb), and python-docx holds every part
# in memory, parsing the XML ones (about 9 MB of memory per MB of XML, measured). A Word file unpacks to
# at most this much; its parts' sizes are read from the zip's directory before anything is unpacked
# (zipfile never unpacks more than a part's stated size, so a directory that lies makes the file unreadable).
MAX_UNPACKED_BYTES = 32 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class Extracted:
    text: str
    title: str
    encoding: str  # "utf-8", the legacy encoding detected, "pdf" or "docx"


# --- plain text ----------------------------------------------------------------------------------


def decode_text(data: bytes) -> tuple[str, str]:
    """(text, encoding). Raises ExtractError for binary or undecodable bytes."""
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8) :]
        try:
            return data.decode("utf-8"), "utf-8-sig"
        except UnicodeDecodeError:
            raise ExtractError("undecodable: a UTF-8 byte order mark but invalid UTF-8") from None
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        try:
            return data.decode("utf-16"), "utf-16"
        except UnicodeDecodeError:
            raise ExtractError("undecodable: a UTF-16 byte order mark but invalid UTF-16") from None
    if b"\x00" in data:
        raise ExtractError("binary file (contains NUL bytes)")
    if _looks_binary(data):
        raise ExtractError("binary file (control characters)")
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        return _decode_legacy(data)


# charset-normalizer often ranks a Baltic or Central European code page first for Western text
# (the bytes of "naïve" are valid in all of them). Among its candidates that are about as clean as
# the best one, prefer these common Windows code pages, in this order.
_PREFERRED_SINGLE_BYTE = ("cp1252", "cp1250")
_CHAOS_TOLERANCE = (
    0.1  # "about as clean": within this much of the best candidate's chaos (charset-normalizer's measure)
)


def _decode_legacy(data: bytes) -> tuple[str, str]:
    from charset_normalizer import from_bytes

    results = list(from_bytes(data))
    if not results:
        raise ExtractError("undecodable: not UTF-8 and no legacy encoding fits")
    best = results[0]
    encoding = best.encoding
    if not _is_multibyte(encoding):
        for pref in _PREFERRED_SINGLE_BYTE:
            if any(pref in m.could_be_from_charset and m.chaos <= best.chaos + _CHAOS_TOLERANCE for m in results):
                encoding = pref
                break
            try:
                if data.decode(pref) == str(best):  # the same text under a more common name
                    encoding = pref
                    break
            except UnicodeDecodeError:
                pass
    try:
        return data.decode(encoding), encoding
    except (UnicodeDecodeError, LookupError):
        raise ExtractError(f"undecodable: detected {encoding} but it does not decode") from None


def _is_multibyte(encoding: str) -> bool:
    e = encoding.lower().replace("-", "_")
    return e.startswith(("cp949", "euc", "cp932", "shift_jis", "gb", "big5", "iso2022", "utf", "hz", "johab", "cp950"))


# C0 controls other than \t \n \v \f \r, and DEL. In UTF-8 and in the legacy encodings handled here
# these byte values only ever stand for those controls, so the check runs on the bytes (fast).
_CONTROL_BYTES = bytes(range(0x09)) + bytes(range(0x0E, 0x20)) + b"\x7f"


def _looks_binary(data: bytes) -> bool:
    sample = data[:65536]
    return len(sample) - len(sample.translate(None, _CONTROL_BYTES)) > len(sample) * 0.05


# --- HTML ----------------------------------------------------------------------------------------

_SKIP_TAGS = frozenset({"script", "style", "noscript", "template", "svg", "head", "iframe", "object"})
_BLOCK_TAGS = frozenset(
    {
        "p",
        "div",
        "section",
        "article",
        "header",
        "footer",
        "main",
        "nav",
        "aside",
        "blockquote",
        "pre",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "ul",
        "ol",
        "dl",
        "table",
        "form",
        "fieldset",
        "figure",
        "figcaption",
        "hr",
        "address",
        "details",
        "summary",
        "body",
        "html",
    }
)
_LINE_TAGS = frozenset({"br", "li", "dt", "dd", "tr", "option"})
_VOID_TAGS = frozenset(
    {"br", "hr", "img", "input", "meta", "link", "area", "base", "col", "embed", "source", "track", "wbr", "param"}
)


class _HTMLText(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.title_parts: list[str] = []
        self.skip_depth = 0
        self.in_title = False
        self.pre_depth = 0

    def _break(self, s: str) -> None:
        if self.parts and self.parts[-1] in ("\n", "\n\n"):
            if s == "\n\n":
                self.parts[-1] = "\n\n"
            return
        self.parts.append(s)

    def handle_starttag(self, tag, attrs):
        if tag == "title":
            self.in_title = True
            return
        if tag in _SKIP_TAGS and tag not in _VOID_TAGS:
            self.skip_depth += 1
            return
        if tag == "pre":
            self.pre_depth += 1
        if tag in _BLOCK_TAGS:
            self._break("\n\n")
        elif tag in _LINE_TAGS:
            self._break("\n")
        if tag == "li":
            self.parts.append("- ")

    def handle_startendtag(self, tag, attrs):
        if tag in _BLOCK_TAGS:
            self._break("\n\n")
        elif tag in _LINE_TAGS:
            self._break("\n")

    def handle_endtag(self, tag):
        if tag == "title":
            self.in_title = False
            return
        if tag in _SKIP_TAGS:
            if self.skip_depth:
                self.skip_depth -= 1
            return
        if tag == "pre" and self.pre_depth:
            self.pre_depth -= 1
        if tag in _BLOCK_TAGS:
            self._break("\n\n")
        elif tag in ("td", "th"):
            self.parts.append(" ")
        elif tag in _LINE_TAGS:
            self._break("\n")

    def handle_data(self, data):
        if self.in_title:
            self.title_parts.append(data)
            return
        if self.skip_depth:
            return
        if not self.pre_depth:
            data = re.sub(r"\s+", " ", data)
            if self.parts and self.parts[-1].endswith(("\n", " ")):
                data = data.lstrip(" ")
        if data:
            self.parts.append(data)


def html_to_text(html: str) -> tuple[str, str]:
    """(visible text, <title>). Scripts, styles and tags are dropped; blocks become paragraphs."""
    p = _HTMLText()
    try:
        p.feed(html)
        p.close()
    except Exception as e:  # html.parser is lenient; anything left is a file we cannot use
        raise ExtractError(f"unparsable HTML: {e}") from None
    text = "".join(p.parts)
    text = re.sub(r"[ \t]+\n", "\n", text)
    text = re.sub(r"\n{3,}", "\n\n", text).strip()
    title = " ".join("".join(p.title_parts).split())
    return text, title


# --- PDF -----------------------------------------------------------------------------------------


def pdf_to_text(data: bytes) -> tuple[str, str]:
    """(text of every page, metadata title). Pages are separated by a blank line."""
    try:
        from pypdf import PdfReader

        logging.getLogger("pypdf").setLevel(logging.ERROR)
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            try:
                if not reader.decrypt(""):
                    raise ExtractError("encrypted PDF")
            except ExtractError:
                raise
            except Exception:
                raise ExtractError("encrypted PDF") from None
        pages = []
        for page in reader.pages:
            pages.append((page.extract_text() or "").strip("\n"))
        title = ""
        try:
            meta = reader.metadata
            if meta is not None and meta.title:
                title = " ".join(str(meta.title).split())
        except Exception:
            title = ""
    except ExtractError:
        raise
    except Exception as e:
        raise ExtractError(f"unreadable PDF: {type(e).__name__}: {e}"[:200]) from None
    text = "\n\n".join(p for p in pages if p.strip())
    return text, title


# --- Word (.docx) ------------------------------------------------------------------------------


def docx_to_text(data: bytes) -> tuple[str, str]:
    """(text of the body, core-properties title) of a .docx file, with python-docx.

    Paragraphs and tables come in reading order (the body's block items). Paragraphs are separated
    by a blank line; a table is one line per row with its cells joined by " | " (each cell once,
    merged cells included; a nested table's rows follow its cell's text). Headers, footers,
    footnotes and comments are not part of the text.
    """
    _check_unpacked_size(data)
    try:
        import docx
        from docx.table import Table

        document = docx.Document(io.BytesIO(data))
        blocks: list[str] = []
        for item in document.iter_inner_content():
            text = _docx_table(item) if isinstance(item, Table) else item.text
            if text.strip():
                blocks.append(text)
        title = " ".join((document.core_properties.title or "").split())
    except Exception as e:  # a damaged or encrypted package, or not a Word file at all
        raise ExtractError(f"unreadable Word file: {type(e).__name__}: {e}"[:200]) from None
    return "\n\n".join(blocks), title


def _check_unpacked_size(data: bytes, limit: int = MAX_UNPACKED_BYTES) -> None:
    """ExtractError when the zip's parts unpack to more than `limit` bytes (or it is not a zip at all)."""
    import zipfile

    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            unpacked = sum(i.file_size for i in z.infolist())
    except (zipfile.BadZipFile, OSError, ValueError) as e:
        raise ExtractError(f"unreadable Word file: {type(e).__name__}: {e}"[:200]) from None
    if unpacked > limit:
        raise ExtractError(
            f"unpacks to {unpacked / 2**20:,.0f} MB from {len(data) / 2**20:,.1f} MB, over the "
            f"{limit // 2**20} MB a Word file may unpack to (a zip bomb?); not read"
        )


def _docx_table(table) -> str:
    from docx.table import Table, _Cell

    rows = []
    for tr in table._tbl.tr_lst:  # the XML's own cells: a merged cell appears once, not per grid column
        cells = []
        for tc in tr.tc_lst:
            parts = []
            for item in _Cell(tc, table).iter_inner_content():
                text = _docx_table(item) if isinstance(item, Table) else item.text
                if text.strip():
                    parts.append(text)
            cells.append("\n".join(parts).strip())
        if any(cells):
            rows.append(" | ".join(cells))
    return "\n".join(rows)


def unsupported_reason(suffix: str) -> str:
    """The skip reason for a file type that is not read, with how to convert it where we know how."""
    suffix = suffix.lower()
    return _HINTS.get(suffix) or f"unsupported file type {suffix or '(no extension)'}"


# --- title and dispatch --------------------------------------------------------------------------


def title_from_text(text: str, limit: int = TITLE_CHARS) -> str:
    """The title of a document's text: `wikigen.search.facts.title.document_title` (the one home of that rule)."""
    return document_title(text, limit=limit)


def extract_bytes(data: bytes, suffix: str) -> Extracted:
    """Extract the text of a file's bytes; suffix (".txt", ".pdf", ...) picks the format.

    Raises ExtractError with the reason when the file cannot be used.
    """
    suffix = suffix.lower()
    if suffix not in SUFFIXES:
        raise ExtractError(unsupported_reason(suffix))
    if not data:
        raise ExtractError("empty file")
    if suffix in PDF_SUFFIXES:
        text, title = pdf_to_text(data)
        encoding = "pdf"
    elif suffix in DOCX_SUFFIXES:
        text, title = docx_to_text(data)
        encoding = "docx"
    else:
        text, encoding = decode_text(data)
        title = ""
        if suffix in HTML_SUFFIXES:
            text, title = html_to_text(text)
    if not text.strip():
        raise ExtractError(
            "no extractable text (a scanned PDF?)" if suffix in PDF_SUFFIXES else "no text (empty or whitespace only)"
        )
    if not title:
        title = title_from_text(text)
    elif len(title) > TITLE_CHARS:
        title = first_line(title, TITLE_CHARS)
    return Extracted(text=text, title=title, encoding=encoding)
