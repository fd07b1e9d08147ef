"""Secrets never enter a page, the log or an answer, and no surface shows one: one detector for the whole product.

    find_secrets(text) -> [Secret(kind, start, end)]     character offsets into text
    redact(text) -> text with each secret replaced by "[secret kept out: KIND]"
    keep_out(doc_id, text, start, end) -> Excerpt         text[start:end] fit to show, with its verbatim spans
    describe(secrets, where) -> "AWS Access Key at chars 120-140 of contracts/x" (never the secret itself)

Detection: the maintained detector detect-secrets (its plugins for cloud and API keys, tokens, private
keys, `password: ...`-style keyword assignments, basic-auth URLs, quoted high-entropy strings), plus what
it does not cover: unquoted random-looking tokens (an AWS secret access key, '/' and '+' and all), whole
private-key blocks, credentials in a URL, keyword assignments it has no word for (`admin_pass: ...`,
`redis_auth = ...`, `pw: ...`, `password is: ...`), a password after its word with no colon (`password
hunter2`: a value with a letter and a digit or a symbol), Google API keys (`AIza` and 35 characters), and
payment card numbers (a card network's prefix and length, and the Luhn check), alone, grouped by spaces,
dashes or '_', or in a file name (`card-4111111111111111.txt`). An unquoted value ends at its first space, so
a redaction keeps the rest of its sentence (`password: [secret kept out: ...] for the read replica.`).

Ordinary text is not a secret, and the rules say why (bench/secrets_bench.py measures both sides):
* a URL's host, folders and file name are names (an EDGAR page header `sec.gov/Archives/edgar/data/
  1428336/000110465921033359/...`); only a value in its query (`?token=...`) or a password before its
  `@` can be a secret;
* a path's folders and file names are names (`Contracts/Supply/2021/AmendmentNo3`), but a base64 key that
  holds '/' is one run: its pieces do not read as words and numbers (`wJalrXUtnFEMI/K7MDENG/...`);
* a run of hex digits alone is a digest (a file's sha256, a commit, an MD5 in a file name): a hex secret
  is caught where a keyword assigns it (`secret_key = "..."`) or by its vendor's prefix;
* an identifier of words and numbers joined by '-', '_' or '.' (an accession number 0001104659-21-033359,
  a slug, a reference LN-2021-0004587-A) is not random-looking, and a public IP address is no secret;
* a long number is a card number only with a card network's prefix and length: account, invoice,
  contract and reference numbers are not.

`keep_out` is the one place a surface's text is made safe to show: every reader of corpus text (search
hits, source views, answers' context, MCP, the agents' tool results) goes through it, via
`CorpusIndex.excerpt`, `CorpusIndex.search` or ask's context assembly. A kept-out piece keeps quotes
verifiable: its `runs` are the verbatim parts around each mark, so the document's text at each of its
spans is in the shown text.

Also used by the store (a page with a secret is refused, naming the kind and span), by the offline agent
(a quote that would hold one is left out and reported), by the progress log (secrets are redacted), by
the corpus scan (a file whose name holds a secret is skipped) and by `check`.
"""

from __future__ import annotations

import math
import re
import threading
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

_PLUGINS: list | None = None
_LOCK = threading.Lock()
# a public IP is no secret; a hex run alone is a digest (a quoted hex secret is caught by its keyword)
_SKIP_PLUGINS = {"IPPublicDetector", "HexHighEntropyString"}
_EXACT_PLUGINS = {"KeywordDetector", "BasicAuthDetector"}  # report the secret itself, not a prefix of it
_CANDIDATE = re.compile(r"[=:]|\d|-----|[A-Za-z0-9+/_\-]{16,}|(?i:pass|pwd)")
_TOKEN = re.compile(r"[A-Za-z0-9+/_\-][A-Za-z0-9+/_.\-]{18,}[A-Za-z0-9+/_\-]={0,2}")
_HEX = re.compile(r"(?:0x)?(?:[0-9a-f]+|[0-9A-F]+)")
# a card number alone, or in a name (card-4111111111111111.txt, statement_4111_1111_1111_1111.pdf), not a part of a
# longer number written with dashes (an order number 112-3456789-1234567)
_CARD = re.compile(
    r"(?<!\d)(?<!\d-)(?:\d{13,19}|\d{4}([ _-])\d{4}\1\d{4}\1\d{4}(?:\1\d{3})?|\d{4}([ _-])\d{6}\2\d{4,5})"
    r"(?!\d|-\d)"
)
_URL = re.compile(r"(?:[A-Za-z][A-Za-z0-9+.-]*://|www\.|[\w-]+(?:\.[\w-]+)+/)", re.A)
_URL_PASSWORD = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s/:@]+:([^\s/@]+)@")
# a keyword assignment detect-secrets has no word for: the key ends with a credential word
_ASSIGNED = re.compile(
    r"(?i)(?<![\w.-])[\w.-]*?(?:^|[_.-]|\b)(?:pass|passwd|password|passphrase|pwd|pw|secret|token|auth|"
    r"(?:api|access|secret|private)[_-]?key|credentials?)[\"']?"
    r"(?:\s*(?:is\s*)?[:=]\s*|(?<=pass|word|rase)\s+is\s+)"
    r"(?P<value>\"[^\"\s]{4,}\"|'[^'\s]{4,}'|[^\s\"',;]{4,})"
)
# a password written after its word with no colon (`password hunter2`): only a value with a letter and a digit
# or a symbol, since prose follows the word with words (`password reset requests`, `password and/or key`)
_SPACED = re.compile(
    r"(?i)(?<![\w.-])(?:[\w-]*[_-])?(?:passwd|password|passphrase|pwd)\s+"
    r"(?P<value>[A-Za-z0-9][^\s\"',;]{3,})"
)
_SPACED_VALUE = re.compile(r"(?=.*[A-Za-z])(?=.*[0-9!#$%&*+=?@^~]).{6,}")
# a Google API key: its prefix and length (detect-secrets has no plugin for it)
_GOOGLE = re.compile(r"(?<![\w-])AIza[0-9A-Za-z_\-]{35}(?![\w-])")
_PLACEHOLDER = re.compile(r"^(?:<.*>|\$\{.*\}|\{\{.*\}\}|\*+|x+|\.+|null|none|true|false|changeme)$", re.I)
_KEY_BLOCK = re.compile(
    r"-----BEGIN[A-Z ]*PRIVATE KEY(?: BLOCK)?-----.*?(?:-----END[A-Z ]*PRIVATE KEY(?: BLOCK)?-----|\Z)", re.S
)
_GENERIC = {"High Entropy String", "Base64 High Entropy String", "Hex High Entropy String"}
MARK = "[secret kept out"
B64_LIMIT = 4.3
KEY_LENGTH, KEY_LIMIT = 40, 4.0
WORD_LENGTH = 3.5  # the mean length of the words and numbers of a name; a random key's is about 2


@dataclass(frozen=True)
class Secret:
    kind: str
    start: int
    end: int


def mark(kind: str) -> str:
    """What a secret of this kind is replaced by in every text shown."""
    return f"{MARK}: {kind}]"


def _plugins() -> list:
    global _PLUGINS
    with _LOCK:
        if _PLUGINS is None:
            from detect_secrets.settings import default_settings, get_plugins

            with default_settings():
                _PLUGINS = [p for p in get_plugins() if type(p).__name__ not in _SKIP_PLUGINS]
                get_plugins.cache_clear()
        return _PLUGINS


def _entropy(s: str) -> float:
    n = len(s)
    return -sum(c / n * math.log2(c / n) for c in Counter(s).values())


def _luhn(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def _card_network(d: str) -> bool:
    """Whether the digits have the prefix and length of a payment card network (Visa, Mastercard, American
    Express, Discover, JCB, Diners Club, UnionPay)."""
    n, p2, p3, p4 = len(d), int(d[:2]), int(d[:3]), int(d[:4])
    if d[0] == "4":
        return n in (13, 16, 19)
    if 51 <= p2 <= 55 or 2221 <= p4 <= 2720:
        return n == 16
    if p2 in (34, 37):
        return n == 15
    if p4 == 6011 or 644 <= p3 <= 649 or p2 == 65 or 3528 <= p4 <= 3589 or p2 == 62:
        return 16 <= n <= 19
    if 300 <= p3 <= 305 or p2 in (36, 38, 39):
        return 14 <= n <= 19
    return False


def _expand(line: str, i: int, j: int) -> tuple[int, int]:
    """Grow a match to the whole non-space run it sits in (a token reported by its prefix, e.g. 'ghp'), without
    the sentence's closing punctuation."""
    while i > 0 and not line[i - 1].isspace() and line[i - 1] not in "\"'=:":
        i -= 1
    while j < len(line) and not line[j].isspace() and line[j] not in "\"',;":
        j += 1
    while j > i + 1 and line[j - 1] in ".)":
        j -= 1
    return i, j


_NAMED_VALUE = re.compile(r"[A-Za-z_]\w*[=:](?=\S{8})")
_VALUE_END = re.compile(r"\s|;(?=\w+=)")


def _first_word(value: str) -> str:
    """An unquoted value up to its first space (or the next `;name=` of a connection string), without the
    sentence's punctuation after it: in `password: hunter2 for the read replica.` the value is `hunter2`, and
    the rest of the sentence is kept."""
    word = _VALUE_END.split(value.strip(), maxsplit=1)[0] or value
    while len(word) > 1 and word[-1] in ".,;)?":
        word = word[:-1]
    return word


def _continues(line: str, j: int) -> bool:
    """Whether a reported value stops inside a token (a prefix, e.g. 'ghp' of 'ghp_...'): then it is grown."""
    return j < len(line) and (line[j].isalnum() or line[j] == "_")


_SEGMENTS = re.compile(r"[-_.\s]+")


def _word_at(line: str, i: int) -> str:
    a = i
    while a > 0 and not line[a - 1].isspace():
        a -= 1
    b = line.find(" ", i)
    return line[a : b if b >= 0 else len(line)].lstrip("<([\"'")


def _url_query_values(word: str) -> list[str]:
    query = word.partition("?")[2].partition("#")[0]
    return [v for part in query.split("&") for v in [part.partition("=")[2]] if v]


_SUBWORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
_B64_KEY = re.compile(r"[A-Za-z0-9+/]+={0,2}")


def _made_of_words(value: str) -> bool:
    """Whether value reads as names: words (capitalised, lower or upper case) and numbers, on average at least
    3.5 characters each (`Contracts/Supply/2021/AmendmentNo3`: 5.4; `KI/2021/0457/LEGAL`: 3.75). A random key
    does not: its case and digits change every two characters or so (`wJalrXUtnFEMI/K7MDENG/...`: 3.2, random
    base64: 1.9 on average)."""
    words = _SUBWORD.findall(value)
    return bool(words) and sum(map(len, words)) >= WORD_LENGTH * len(words)


def _random_run(seg: str) -> bool:
    """A long run with the entropy of a key: letters with digits, or letters that do not read as words. A run
    as long as an AWS secret access key (40) needs less: its entropy as a random string is 4.8 on average, and
    1 in 2,500 such keys has less than B64_LIMIT (the lowest of 200,000 was 4.10)."""
    return (
        len(seg) >= 20
        and any(c.isalpha() for c in seg)
        and (any(c.isdigit() for c in seg) or not _made_of_words(seg))
        and not _HEX.fullmatch(seg)
        and _entropy(seg) > (B64_LIMIT if len(seg) < KEY_LENGTH else KEY_LIMIT)
    )


def _random_looking(value: str, line: str = "", at: int = -1) -> bool:
    """An entropy hit that is one long random-looking run, not an identifier made of words and numbers
    joined by '-', '_' or '.' (a slug or a doc id such as acme-20191217-ex-10-5-9045501 is not a secret),
    nor a run of hex digits (a digest), nor part of a URL other than a value of its query, nor a path of
    names (`Contracts/Supply/2021/AmendmentNo3`). A base64 key holding '/' and '+' is one run: its pieces
    between the '/' do not read as names (`wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY`)."""
    word = _word_at(line, at) if at >= 0 else value
    if _URL.match(word):  # only the query's values, not the host, folders or file name before them
        parts = [seg for v in _url_query_values(word) if v in value or value in v for seg in _SEGMENTS.split(v)]
    elif _B64_KEY.fullmatch(value) and not _made_of_words(value):
        parts = [value]
    elif value.count("/") >= 2:  # a path: each folder and file name on its own
        parts = [seg for piece in value.split("/") for seg in _SEGMENTS.split(piece)]
    else:
        parts = _SEGMENTS.split(value)
    return any(_random_run(seg) for seg in parts)


@lru_cache(maxsize=1 << 16)
def _line_secrets(line: str) -> tuple[tuple[str, int, int], ...]:
    """The secrets of one line, remembered: a page's lines are scanned when it is written and again by
    every check, and most lines (verified quotes) never change."""
    if not _CANDIDATE.search(line):
        return ()
    out = []
    for plugin in _plugins():
        name = type(plugin).__name__
        entropy = "HighEntropy" in name
        for s in plugin.analyze_line(filename="page.yaml", line=line, line_number=1):
            value = s.secret_value or ""
            at = line.find(value) if value else -1
            if name == "KeywordDetector" and at >= 0 and (at == 0 or line[at - 1] not in "\"'"):
                value = _first_word(value)  # unquoted, the value ends where its sentence goes on
                if _PLACEHOLDER.match(value):  # `password: none; ...`
                    continue
            named = _NAMED_VALUE.match(value)
            if named and at >= 0:  # a value reported with its setting's name (`AccountKey=...`): the name stays
                at, value = at + named.end(), value[named.end() :]
            if entropy and not _random_looking(value, line, at):
                continue
            if at < 0:
                out.append((s.type, 0, len(line)))
            elif name in _EXACT_PLUGINS or (len(value) >= 8 and not _continues(line, at + len(value))):
                out.append((s.type, at, at + len(value)))
            else:
                out.append((s.type, *_expand(line, at, at + len(value))))
    for m in _TOKEN.finditer(line):
        if _random_looking(m.group(0), line, m.start()):
            out.append(("High Entropy String", m.start(), m.end()))
    for m in _URL_PASSWORD.finditer(line):
        out.append(("Basic Auth Credentials", m.start(1), m.end(1)))
    for m in _ASSIGNED.finditer(line):
        a, b = m.span("value")
        if line[a] in "\"'":
            a, b = a + 1, b - 1
        while b > a and line[b - 1] in ".)":
            b -= 1
        value = line[a:b]
        if len(value) >= 4 and not _PLACEHOLDER.match(value) and any(not c.isalpha() for c in value):
            out.append(("Secret Keyword", a, b))
    for m in _SPACED.finditer(line):
        a, b = m.span("value")
        value = _first_word(line[a:b])
        if _SPACED_VALUE.fullmatch(value) and not _PLACEHOLDER.match(value):
            out.append(("Secret Keyword", a, a + len(value)))
    for m in _GOOGLE.finditer(line):
        out.append(("Google API Key", m.start(), m.end()))
    for m in _CARD.finditer(line):
        digits = re.sub(r"\D", "", m.group(0))
        if _card_network(digits) and _luhn(digits):
            out.append(("Payment Card Number", m.start(), m.end()))
    return tuple(out)


def find_secrets(text: str) -> list[Secret]:
    """Every secret in text, as non-overlapping character spans, in order."""
    if not text:
        return []
    found: list[Secret] = []
    pos = 0
    for line in text.split("\n"):
        for kind, s, e in _line_secrets(line):
            if line.startswith(("[secret kept", "secret kept"), s):  # an earlier redaction is not a secret
                continue
            found.append(Secret(kind, pos + s, pos + e))
        pos += len(line) + 1
    if "PRIVATE KEY" in text:  # a key block is one secret, its lines and its short last line included
        found += [Secret("Private Key", m.start(), m.end()) for m in _KEY_BLOCK.finditer(text)]
    found.sort(key=lambda x: (x.start, -x.end))
    merged: list[Secret] = []
    for sec in found:
        if merged and sec.start < merged[-1].end:
            last = merged[-1]
            kind = sec.kind if last.kind in _GENERIC and sec.kind not in _GENERIC else last.kind  # the vendor's name
            merged[-1] = Secret(kind, last.start, max(last.end, sec.end))
            continue
        merged.append(sec)
    return merged


@dataclass(frozen=True)
class Excerpt:
    """A document's text[start:end] fit to show. `text` is that text with each secret replaced by its mark;
    `runs` are its verbatim parts, each (where it starts in `text`, its document start, its document end), so
    every shown character of source text maps back to its offset, and the document's text at each run's span
    is in `text`; `kept_out` names what was left out (kinds and document spans, never the secret)."""

    doc_id: str
    start: int
    end: int
    text: str
    runs: tuple[tuple[int, int, int], ...]
    kept_out: tuple[Secret, ...] = ()

    def spans(self) -> list[dict]:
        """The verbatim parts as source spans {"doc_id", "start", "end"}."""
        return [{"doc_id": self.doc_id, "start": s, "end": e} for _, s, e in self.runs]

    def spans_within(self, a: int, b: int) -> list[dict]:
        """The source spans of the verbatim parts of text[a:b] (a mark inside it splits it)."""
        out = []
        for at, s, e in self.runs:
            lo, hi = max(a, at), min(b, at + e - s)
            if lo < hi:
                out.append({"doc_id": self.doc_id, "start": s + lo - at, "end": s + hi - at})
        return out

    def edits(self) -> list[tuple[int, int, int]]:
        """(document start, document end, shown length) of each mark, in order: how offsets shift."""
        return [(s.start, s.end, len(mark(s.kind))) for s in self.kept_out]


def keep_out(doc_id: str, text: str, start: int = 0, end: int | None = None, *, base: int = 0) -> Excerpt:
    """text[start:end] with every secret kept out, as an Excerpt in document offsets (text[0] is at document
    offset `base`: pass the whole document with base 0, or a piece of it with its start). Secrets are found
    on the whole lines around the piece (and the whole private-key block it may sit in), so a piece that
    cuts a secret in two shows neither half."""
    end = len(text) if end is None else min(end, len(text))
    start = max(0, min(start, end))
    a = text.rfind("\n", 0, start) + 1
    b = text.find("\n", end)
    b = len(text) if b < 0 else b
    block = text.rfind("-----BEGIN", 0, a)
    if block >= 0 and "PRIVATE KEY" in text[block : block + 60] and text.find("-----END", block, a) < 0:
        a = text.rfind("\n", 0, block) + 1
    found = [
        Secret(x.kind, max(start, a + x.start), min(end, a + x.end))
        for x in find_secrets(text[a:b])
        if a + x.start < end and a + x.end > start
    ]
    parts: list[str] = []
    runs: list[tuple[int, int, int]] = []
    pos, n = start, 0
    for x in found:
        if x.start > pos:
            runs.append((n, base + pos, base + x.start))
            parts.append(text[pos : x.start])
            n += x.start - pos
        parts.append(mark(x.kind))
        n += len(parts[-1])
        pos = x.end
    if end > pos:
        runs.append((n, base + pos, base + end))
        parts.append(text[pos:end])
    kept = tuple(Secret(x.kind, base + x.start, base + x.end) for x in found)
    return Excerpt(doc_id, base + start, base + end, "".join(parts), tuple(runs), kept)


def redact(text: str, secrets: list[Secret] | None = None) -> str:
    secrets = find_secrets(text) if secrets is None else secrets
    for s in reversed(secrets):
        text = text[: s.start] + mark(s.kind) + text[s.end :]
    return text


def describe(secrets: list[Secret], where: str, offset: int = 0) -> str:
    return "; ".join(f"{s.kind} at chars {offset + s.start}-{offset + s.end} of {where}" for s in secrets)


def redact_value(v):
    """A JSON-like value with every string redacted (for log entries)."""
    if isinstance(v, str):
        return redact(v) if v else v
    if isinstance(v, dict):
        return {k: redact_value(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [redact_value(x) for x in v]
    return v


def secrets_in_quote(doc_id: str, start: int, text: str) -> str:
    """'' when the quote text holds no secret, else the report line (kinds and document spans, never the
    secret itself): the quote is kept out and the span stays traceable."""
    found = find_secrets(text)
    if not found:
        return ""
    return f"kept out of the wiki, a quote holding {describe(found, repr(doc_id), offset=start)}"


def page_secrets(page) -> list[str]:
    """Where the page's text (title, description, body, quotes) holds a secret: kinds and spans, never the secret."""
    where = []
    for name in ("title", "description"):
        found = find_secrets(getattr(page, name))
        if found:
            where.append(describe(found, name))
    found = find_secrets(page.body)
    if found:
        try:
            blocks = page.quote_blocks()
        except Exception:
            blocks = []
        for b in blocks:
            inner = find_secrets(b.quote.text)
            if inner:
                where.append(describe(inner, f"quote {b.quote.doc_id!r}", offset=b.quote.start))
        if not any(w.startswith(tuple(s.kind for s in found)) and "quote" in w for w in where):
            where.append(describe(found, "the body"))
    return where


def refuse_secrets(page) -> None:
    """SecretError when any text of the page (title, description, body, quotes) holds a secret."""
    from wikigen.core.errors import SecretError

    where = page_secrets(page)
    if where:
        raise SecretError(
            f"page {page.slug!r} refused: it would hold a secret ({'; '.join(where)}); "
            "leave that text out - nothing was written"
        )
