"""Text primitives every layer shares: newline normalisation and where a needle occurs in a text.

Offsets are Python str indices (code points), never UTF-8 bytes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# what opens a list item at a line's start: a bullet, a circled number ("①"), "-" or "*", "1." / "4.2" / "(a)" /
# "ii)" / "a." (the sentence rule ends a sentence before one; page furniture never joins across one)
LIST_MARKER = (
    r"[\u2460-\u2473\u2022\u00b7\u25aa\u25cf\u25e6]|[-*][ \t]"
    r"|\(?(?:[0-9]{1,3}(?:\.[0-9]{1,3})*|[a-zA-Z]|[ivxlcIVXLC]{1,5})[.)][ \t]|[0-9]{1,3}(?:\.[0-9]{1,3})+[ \t]"
    r"|\((?:[a-zA-Z]{1,4}|[0-9]{1,3})\)[ \t]"
)


@dataclass(frozen=True, order=True)
class Span:
    doc_id: str
    start: int
    end: int


def normalize_newlines(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _whitespace_pattern(needle: str) -> re.Pattern[str] | None:
    words = needle.split()
    if not words:
        return None
    return re.compile(r"\s+".join(re.escape(w) for w in words))


def find_spans(text: str, needle: str, *, tolerant_whitespace: bool = False, limit: int = 100) -> list[tuple[int, int]]:
    """Every (start, end) where needle occurs in text. Tolerant: any run of whitespace matches any other."""
    if not needle:
        return []
    out: list[tuple[int, int]] = []
    if not tolerant_whitespace:
        i = text.find(needle)
        while i != -1 and len(out) < limit:
            out.append((i, i + len(needle)))
            i = text.find(needle, i + 1)
        return out
    pat = _whitespace_pattern(needle)
    if pat is None:
        return []
    for m in pat.finditer(text):
        out.append((m.start(), m.end()))
        if len(out) >= limit:
            break
    return out


def trim_span(text: str, start: int, end: int) -> tuple[int, int]:
    """The span without leading or trailing whitespace (empty spans collapse to (start, start))."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def one_line(text: str, limit: int | None = None) -> str:
    """Whitespace runs folded to one space, trimmed; cut to `limit` characters with an ellipsis."""
    line = " ".join(text.split())
    if limit is not None and len(line) > limit:
        line = line[: max(0, limit - 1)].rstrip() + "\u2026"
    return line


_UNSPACED = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"  # kana and Han: written without spaces
_WORD_END = re.compile(rf"\s|(?<=[{_UNSPACED}])(?=[{_UNSPACED}])")  # where a word ends: a space, between two ideographs


def clip_words(text: str, limit: int, ellipsis: str = "...") -> str:
    """The text on one line within `limit` characters, cut at the end of a word (a space, or between two
    ideographs) with `ellipsis` added: never in the middle of a word; "" when not even its first word fits."""
    line = " ".join(text.split())
    if len(line) <= limit:
        return line
    room = limit - len(ellipsis)
    ends = [m.start() for m in _WORD_END.finditer(line, 0, room + 1)]
    cut = line[: ends[-1]].rstrip(" ,;:·-") if ends else ""
    return cut + ellipsis if cut else ""


def clip_source(
    text: str, limit: int | None, focus: tuple[int, int] | None = None, ellipsis: str = "\u2026"
) -> tuple[str, int, int]:
    """A quote of `text` on one line within `limit` characters, cut at word ends (a space, or between two
    ideographs) with `ellipsis` where text is left out, and the part of `text` it shows, (a, b): a span made
    from them holds exactly the text the line shows. Whole when it fits (or limit is None). With `focus`
    (offsets into text, such as where a value is stated) the window holds it: it opens at the start of the
    text when the focus fits there, else at a word before the focus (about the room left split on each side)."""
    line = " ".join(text.split())
    if limit is None or len(line) <= limit:
        return line, 0, len(text)
    words = [(m.start(), m.end()) for m in re.finditer(r"\S+", text)]
    if not words:
        return "", 0, 0
    room = max(1, limit - 2 * len(ellipsis))

    def window(first: int) -> tuple[int, int]:
        """Words from `first` on while their one-line length fits the room: (first, last) word indexes."""
        n, last = 0, first - 1
        for w in range(first, len(words)):
            n += (words[w][1] - words[w][0]) + (1 if w > first else 0)
            if n > room:
                break
            last = w
        return first, last

    first = 0
    if focus is not None:
        _, last = window(0)
        if last < 0 or words[last][1] < focus[1]:  # the focus does not fit the opening: centre it
            lead = max(0, (room - (focus[1] - focus[0])) // 2)
            first = next((w for w, (a, _) in enumerate(words) if a >= focus[0] - lead), len(words) - 1)
            first = min(first, next((w for w, (_, b) in enumerate(words) if b > focus[0]), first))
    first, last = window(first)
    if last < first:  # one word longer than the room: cut inside it
        a = words[first][0]
        b = a + room
        return (ellipsis if first else "") + text[a:b] + ellipsis, a, b
    a, b = words[first][0], words[last][1]
    shown = " ".join(text[a:b].split())
    return (ellipsis if first else "") + shown + (ellipsis if last < len(words) - 1 else ""), a, b


def fit_parts(parts: list[str], limit: int, sep: str) -> str:
    """The parts joined by `sep`, each part whole or left out: in order, every part that still fits within `limit`
    characters (a long one is left out and a shorter one after it may take its place)."""
    kept: list[str] = []
    for part in (" ".join(p.split()) for p in parts):
        if part and len(sep.join([*kept, part])) <= limit:
            kept.append(part)
    return sep.join(kept)


KO_PARTICLES = sorted(  # Korean particles and endings that attach to a word, longest first
    [
        "은",
        "는",
        "이",
        "가",
        "을",
        "를",
        "의",
        "에",
        "에서",
        "에게",
        "에는",
        "에도",
        "으로",
        "로",
        "와",
        "과",
        "도",
        "만",
        "까지",
        "부터",
        "으로서",
        "로서",
        "으로써",
        "로써",
        "이나",
        "나",
        "이며",
        "며",
        "이고",
        "고",
        "이다",
        "하여",
        "하는",
        "한다",
        "하고",
        "된다",
        "되는",
        "하며",
        "에의",
        "과의",
        "와의",
        "으로부터",
        "로부터",
        "이란",
        "란",
    ],
    key=len,
    reverse=True,
)


def without_particle(word: str) -> str:
    """A Korean word without the particle or ending attached to it ("계약서의" -> "계약서"), at least two
    syllables left; the word as it is otherwise."""
    for p in KO_PARTICLES:
        if word.endswith(p) and len(word) - len(p) >= 2:
            return word[: -len(p)]
    return word


def one_edit_apart(a: str, b: str) -> bool:
    """Whether two different words are one edit apart: a character added, dropped or changed, or two side by side
    swapped ("kriomic" and "kiromic")."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y]
        return len(diff) == 1 or (
            len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]]
        )
    short, long = (a, b) if len(a) < len(b) else (b, a)
    i = 0
    while i < len(short) and short[i] == long[i]:
        i += 1
    return short[i:] == long[i + 1 :]


def one_edit_spellings(word: str) -> set[str]:
    """Every spelling one edit away from a lower-case word (`one_edit_apart`), with the letters a-z and its own."""
    letters = sorted(set("abcdefghijklmnopqrstuvwxyz") | set(word))
    cuts = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    out = {a + b[1:] for a, b in cuts if b}
    out |= {a + b[1] + b[0] + b[2:] for a, b in cuts if len(b) > 1}
    out |= {a + c + b[1:] for a, b in cuts if b for c in letters}
    out |= {a + c + b for a, b in cuts for c in letters}
    out.discard(word)
    return out


# an acronym's plural ("NDAs", "MSAs", "SLAs"): the English stemmer keeps "ndas" whole (a vowel before the s)
ACRONYM_PLURAL = re.compile(r"(?<![\w&])([A-Z][A-Z0-9&]*[A-Z0-9])s(?![\w&])")


def acronyms_singular(text: str) -> str:
    """The text with each acronym's plural written as the acronym ("Which NDAs ..." -> "Which NDA ..."), so
    that it is read as the word the documents and titles write."""
    return ACRONYM_PLURAL.sub(r"\1", text)
