"""A document's title from its content: the one place that decides what a document is called.

    document_title(text)                 -> "MASTER SERVICES AGREEMENT"
    document_title(text, given="LOGO")   -> the given title only when it reads as a title

The opening lines are scored by generic statistics, no vocabulary: a title is short, its words are
mostly capitalised, it is not a bracketed placeholder ("[LOGO]"), an exhibit or schedule marker with
its number, an address or phone line, a date, or a line repeated through the document (a page header);
nor a legend ("[***] = ..."), a statement in capitals ("... HAS BEEN OMITTED"), the label of a dated field
line ("Effective Dates: ..."); a run cut before its object ("ADDENDUM TO") is a title only when nothing
better is near. It is helped by naming what the document calls itself ("this Agreement", "this Policy",
"본 계약": the noun that most often follows "this"), and ends there when the words after it are a party's
name introduced as one ("AGENCY AGREEMENT Mutual Insurance Corporation of America, a Michigan ...").
Flattened text (a whole page on one line) is read as runs of capitalised words, a quoted term not among
them. When nothing reads as a title, the first line with a letter is the title.
"""

from __future__ import annotations

import re
from collections import Counter

from wikigen.search.facts.dates import find_dates
from wikigen.search.facts.parties import introduced_at

__all__ = ["TITLE_CHARS", "document_title", "first_line", "self_noun"]

TITLE_CHARS = 120  # a title longer than this is a sentence or a run-on line, not a title
_HEAD = 3000  # the opening the title is looked for in
_SMALL = frozenset(
    [
        "a",
        "an",
        "and",
        "as",
        "at",
        "by",
        "de",
        "for",
        "from",
        "in",
        "of",
        "on",
        "or",
        "the",
        "to",
        "with",
        "vs",
        "v.",
        "&",
        "-",
        "–",
        "—",
        ":",
        "/",
    ]
)
_MARKER = re.compile(
    r"^\W*(?:exhibit|schedule|annex|appendix|attachment|page|table|item|no\.?|number)"
    r"\s*[\w.()-]{0,10}\W*$",
    re.I,
)
_MARKER_PREFIX = re.compile(r"^\W*(?:exhibit|schedule|annex|appendix|attachment)\s+[\w.()-]{1,10}\s*[:.-]?\s+", re.I)
_PLACEHOLDER = re.compile(r"^\s*[\[<{(][^\]>})]{0,40}[\]>})]\s*$")
_CONTACT = re.compile(
    r"@|https?:|www\.|\b(?:tel|fax|phone|telephone|e-?mail)\b|\(\d{3}\)\s*\d{3}|\d{3}[-. ]\d{3}[-. ]\d{4}"
    r"|\+\d{1,3}[\s-]\d",
    re.I,
)
_TOK = r"[A-Z0-9][A-Z0-9&'’.,/()-]*(?![a-z])"
_RUN = re.compile(
    rf"(?<![\w'’])(?!THIS\b|WHEREAS\b)[A-Z][A-Z0-9&'’.,/()-]*(?![a-z])(?:[ ](?!THIS\b|WHEREAS\b)(?:{_TOK}|of|and|for|to|the|&|-|–|—))+"
)
_THIS = re.compile(
    r"\b(?:this|This|THIS)\s+([A-Z][a-zA-Z]{2,})\b|본\s*([가-힣]{1,6}?)(?=[은는이가을를의에과와도로]|\s|$)"
)
_NUMBERED = re.compile(
    r"^\W*(?:(?:article|section|sec\.|clause|part|chapter)\s*[\dIVXLC]+\b|\d+(?:\.\d+)*[.)]?\s|제\s*\d+\s*[조장절항])",
    re.I,
)
_LEGAL_END = re.compile(r"(?:\b(?:plc|ltd|inc|llc|llp|corp|corporation|limited|gmbh|ag|sa|co)\.?|주식회사|㈜)$", re.I)
_WORD = re.compile(r"[^\W_]+(?:['’.-][^\W_]+)*")
# a legend explains a mark ("[***] = Confidential treatment requested", "[*]: omitted"), or says what one
# thing equals
_LEGEND = re.compile(r"^[\[{<(][^\]}>)]{0,10}[\]}>)]\s*[=:]|\s=\s")
_EMPTY_MARK = re.compile(r"\s*[\[{<]\s*[\]}>]$")  # a redaction mark left at a title's end ("{***}" once * is gone)
# a statement, not a name: an auxiliary verb ("... HAS BEEN OMITTED", "INFORMATION IS MARKED BY")
_FINITE = re.compile(r"\b(?:is|are|was|were|be|been|being|has|have|had)\b", re.I)
# a fragment: a run cut before its object ("ADDENDUM TO", "CERTAIN INFORMATION CONTAINED IN"), or after its
# head ("OF REGULATION S-K, CERTAIN ..."), or inside a bracket ("LAWS) AGENTS' CERTIFICATE", "Bancorp (Nasdaq")
_DANGLING = re.compile(
    r"\b(?:to|of|in|into|by|with|at|on|for|from|the|a|an|and|or)$|^(?:to|of|in|into|by|with|at|on|for|from|and|or)\b",
    re.I,
)


def first_line(text: str, limit: int = TITLE_CHARS) -> str:
    """The first line with a letter or digit, without markdown heading marks, trimmed to about `limit` chars."""
    for m in re.finditer(r"[^\r\n]+", text):
        line = " ".join(m.group().strip().lstrip("#").split())
        if any(ch.isalnum() for ch in line):
            return _trim(line, limit)
    return ""


def _trim(line: str, limit: int) -> str:
    if len(line) > limit:
        cut = line.rfind(" ", 0, limit)
        line = line[: cut if cut > limit // 2 else limit].rstrip() + "…"
    return line


def self_noun(text: str) -> str:
    """The noun the document most often calls itself by after "this" ("agreement", "policy", "계약"), or ""."""
    counts: Counter = Counter()
    for m in _THIS.finditer(text, 0, min(len(text), 40000)):
        word = (m.group(1) or m.group(2) or "").casefold()
        if word:
            counts[word] += 1
    if not counts:
        return ""
    word, n = counts.most_common(1)[0]
    return word if n >= 2 else ""


def _clean(line: str) -> str:
    line = " ".join(line.replace("*", " ").replace("_", " ").split()).strip(" #>-–—:|")
    line = re.sub(r"^(?:THIS|This)\s+(?=\S+\s+\S)", "", _MARKER_PREFIX.sub("", line)).strip()
    line = _EMPTY_MARK.sub("", line)
    half = line.split()
    if len(half) >= 2 and len(half) % 2 == 0 and half[: len(half) // 2] == half[len(half) // 2 :]:
        line = " ".join(half[: len(half) // 2])  # "SERVICES AGREEMENT SERVICES AGREEMENT": a title and its echo
    return re.sub(r"(?:\s+(?:and|of|for|to|the|&|-|–|—))+$", "", line)


def _rejected(line: str, repeated: Counter) -> bool:
    if not line or not re.search(r"[^\W\d_]{2}", line) or _PLACEHOLDER.match(line) or _MARKER.match(line):
        return True
    if _CONTACT.search(line) or _NUMBERED.match(line) or re.search(r"\s[>»]\s", line):
        return True
    if _LEGEND.search(line) or (len(line.split()) >= 3 and line.upper() == line and _FINITE.search(line)):
        return True  # a legend, or a stamp stated in capitals ("... HAS BEEN OMITTED"): a statement, not a name
    dates = sum(d.end - d.start for d in find_dates(line))
    digits = sum(c.isdigit() for c in line)
    return dates > 0.5 * len(line) or digits > 0.25 * len(line)


def _field_line(line: str) -> bool:
    """A "Label: value" line whose value holds a date ("Effective Dates: September 1, 2006", "Source: ACME INC.,
    10-K, 1/12/2018"): its label is a field's name, not a title."""
    label, sep, rest = line.partition(": ")
    return bool(sep) and len(label.split()) <= 3 and bool(find_dates(rest))


def _score(line: str, index: int, noun: str, repeats: int = 0) -> float:
    words = _WORD.findall(line)
    if not 1 <= len(words) <= 14 or len(line) > TITLE_CHARS:
        return -1.0
    content = [w for w in words if w.lower() not in _SMALL]
    if not content:
        return -1.0
    hangul = any("\uac00" <= c <= "\ud7a3" for c in line)
    caps = sum(w[0].isupper() or w[0].isdigit() for w in content) / len(content)
    if not hangul and (not (words[0][0].isupper() or words[0][0].isdigit()) or (caps < 0.7 and len(words) > 10)):
        return -1.0
    if line.rstrip().endswith((".", ";", ",")) and not line.rstrip().endswith(("Inc.", "Ltd.", "Co.")):
        return -1.0
    score = 1.0 - 0.08 * index - 0.15 * max(0, len(content) - 7)
    if not hangul and caps < 0.7:
        score -= 0.5  # sentence case: a title only when nothing better is near
    if index == 0:
        score += 0.5
    if _LEGAL_END.search(line):
        score -= 1.5  # a company's name alone: a letterhead
    if noun and noun in line.casefold():
        score += 2.0
    if line.upper() == line and not hangul:
        score += 0.3
    if len(content) == 1:
        score -= 0.5
    if re.search(r"(?<![\w-])(?!(?:19|20)\d\d\b)\d{3,}(?![\w-])", line):
        score -= 1.0  # a street number, postcode or share count: an address or cover line
    if _DANGLING.search(line) or line.count("(") != line.count(")"):
        score -= 1.0  # a run cut before its object: a title only when nothing better is near
    if repeats >= 3 and not (noun and noun in line.casefold()):
        score -= 1.5  # a page header, unless it names what the document calls itself (a running title)
    return score


def _named_runs(head: str, noun: str) -> list[str]:
    """In flattened text, the runs of capitalised words that end in what the document calls itself
    ("Amendment #3 to the Manufacturing Agreement" inside a long first line)."""
    if not noun or not noun.isascii():
        return []
    word = r"(?!This\b|THIS\b)[A-Z][\w&'’.-]*"
    rx = re.compile(rf"(?<![\w'’]){word}(?:[ ](?:(?:of|and|to|the|for|on|in)[ ])*(?:{word}|[#\d][\w.-]*)){{1,9}}")
    out = []
    for m in rx.finditer(head):
        for part in re.split(r"(?<=[^\W\d_]{4}\.)\s+", m.group()):  # a sentence's end ("DISCLOSED.") ends a run
            if re.search(rf"\b(?i:{re.escape(noun)})\b", part):
                out.append(_clean(part))
    return out[:5]


def _candidates(head: str) -> list[str]:
    """The opening's lines, and in a long (flattened) line its runs of capitalised words."""
    out = []
    for raw in head.splitlines():
        if re.match(r"^\s*-{3,}.*-{3,}\s*$", raw):
            continue  # an armour line ("-----BEGIN ...-----") or a rule
        line = _clean(raw)
        if not line:
            continue
        if len(line) <= TITLE_CHARS and not re.search(r"\S {2,}\S", raw.strip()):
            out.append(line)
            continue
        for seg in re.split(r" {2,}|\t", raw.strip()):  # layout gaps: a flattened page's lines
            seg = _clean(seg)
            if seg and len(seg) <= TITLE_CHARS:
                out.append(seg)
                continue
            for m in _RUN.finditer(seg):
                if m.start() and seg[m.start() - 1] in "\"“‘'":
                    continue  # a quoted term ('(THE "CONFIDENTIAL INFORMATION")'), not a title
                out.extend(_clean(part) for part in re.split(r"(?<=[A-Z]{4}\.)\s+", m.group()))
    more: list[str] = []
    for c in out:  # "X AGREEMENT BY AND BETWEEN A AND B, dated ...": the title is what comes before
        cut = re.split(r"\s+(?:by\s+and\s+)?between\b|,?\s+dated\b|\s+among\b", c, maxsplit=1, flags=re.I)[0]
        more += [cut, c] if cut and cut != c else [c]
        head_ = c.split(": ", 1)[0]  # "Runbook: Deploy" keeps its whole line first; "Name: key = ..." its name
        if head_ != c and not _field_line(c):  # "Effective Dates: September 1, 2006": no title in the label
            more.append(head_)
    return [c for c in more if c]


def _before_party(head: str, line: str, noun: str) -> str:
    """The line up to what the document calls itself, when the words after that are a party's name that the
    text introduces as one ("AGENCY AGREEMENT Mutual Insurance Corporation of America, a Michigan
    corporation"): a title does not run on into the first party's name."""
    if not noun:
        return line
    at = [m.end() for m in re.finditer(rf"\b{re.escape(noun)}\b", line, re.I)]
    if not at or at[-1] == len(line) or not re.match(r"\s+\w", line[at[-1] :]):
        return line
    m = re.search(r"\W+".join(re.escape(w) for w in line.split()), head)
    if not m or not introduced_at(head, m.end()):
        return line
    return line[: at[-1]]


def document_title(text: str, given: str = "", limit: int = TITLE_CHARS) -> str:
    """The document's title: `given` (a file's metadata title) when it reads as a title and is not merely
    the text's first line, else the best title-like line of the opening, else its first line with a letter."""
    head = text[:_HEAD]
    lines = [_clean(x).casefold() for x in text.splitlines() if x.strip()]
    repeated = Counter(lines)
    noun = self_noun(text)
    derived = first_line(text, limit)
    given = "" if not given or given == derived or given.rstrip("…") in derived else _clean(given)
    if given and not _rejected(given, repeated) and _score(given, 0, noun) > 0:  # a file's own title
        return _trim(given, limit)
    best, best_score = "", 0.0
    cands = _candidates(head)[:40]
    cands += [r for r in _named_runs(head, noun) if r not in cands]
    cands = [_before_party(head, c, noun) for c in cands]
    for i, line in enumerate(cands):
        if _rejected(line, repeated):
            continue
        s = _score(line, i, noun, repeated[line.casefold()])
        if s > best_score:
            best, best_score = line, s
    return _trim(best, limit) if best else first_line(text, limit)
