"""Secrets never enter a page, the log or an answer: one detector for the whole product.

    find_secrets(text) -> [Secret(kind, start, end)]     character offsets into text
    redact(text) -> text with each secret replaced by "[secret kept out: KIND]"
    describe(secrets, where) -> "AWS Access Key at chars 120-140 of contracts/x" (never the secret itself)

Detection: the maintained detector detect-secrets (its default plugins: cloud and API keys, tokens,
private keys, `password: ...`-style keyword assignments, quoted high-entropy strings), plus what it
does not cover: unquoted high-entropy tokens (base64-like and hex) and payment card numbers (Luhn).
A public IP address is not treated as a secret.

Used by the store (a page with a secret is refused, naming the kind and span), by the offline agent
(a quote that would hold one is left out and reported), by the progress log (secrets are redacted),
by `check` (existing pages are scanned) and by ask's context assembly (passages are redacted).
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
_SKIP_PLUGINS = {"IPPublicDetector"}
_CANDIDATE = re.compile(r"[=:]|\d|-----|[A-Za-z0-9+/_\-]{16,}")
_TOKEN = re.compile(r"[A-Za-z0-9+/=_\-]{20,}")
_HEX = re.compile(r"\b[0-9a-fA-F]{32,}\b")
_CARD = re.compile(r"(?<![\d-])(?:\d[ -]?){12,18}\d(?![\d-])")
MARK = "[secret kept out"
B64_LIMIT = 4.3
HEX_LIMIT = 3.0


@dataclass(frozen=True)
class Secret:
    kind: str
    start: int
    end: int


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


def _expand(line: str, i: int, j: int) -> tuple[int, int]:
    """Grow a match to the whole non-space run it sits in (a token reported by its prefix, e.g. 'ghp')."""
    while i > 0 and not line[i - 1].isspace() and line[i - 1] not in "\"'=:":
        i -= 1
    while j < len(line) and not line[j].isspace() and line[j] not in "\"',;":
        j += 1
    return i, j


_SEGMENTS = re.compile(r"[-_.\s]+")


def _random_looking(value: str) -> bool:
    """An entropy hit that is one long random-looking run, not an identifier made of words and numbers
    joined by '-', '_' or '.' (a slug or a doc id such as acme-20191217-ex-10-5-9045501 is not a secret)."""
    return any(
        len(seg) >= 20 and any(c.isdigit() for c in seg) and any(c.isalpha() for c in seg) and _entropy(seg) > B64_LIMIT
        for seg in _SEGMENTS.split(value)
    ) or any(len(seg) >= 32 and _HEX.fullmatch(seg) for seg in _SEGMENTS.split(value))


@lru_cache(maxsize=1 << 16)
def _line_secrets(line: str) -> tuple[tuple[str, int, int], ...]:
    """The secrets of one line, remembered: a page's lines are scanned when it is written and again by
    every check, and most lines (verified quotes) never change."""
    if not _CANDIDATE.search(line):
        return ()
    out = []
    for plugin in _plugins():
        entropy = "HighEntropy" in type(plugin).__name__
        for s in plugin.analyze_line(filename="page.yaml", line=line, line_number=1):
            value = s.secret_value or ""
            if entropy and not _random_looking(value):
                continue
            at = line.find(value) if value else -1
            if at < 0:
                out.append((s.type, 0, len(line)))
            else:
                out.append((s.type, *_expand(line, at, at + len(value))))
    for m in _TOKEN.finditer(line):
        if _random_looking(m.group(0)):
            out.append(("High Entropy String", m.start(), m.end()))
    for m in _HEX.finditer(line):
        if _entropy(m.group(0)) > HEX_LIMIT:
            out.append(("Hex High Entropy String", m.start(), m.end()))
    for m in _CARD.finditer(line):
        digits = re.sub(r"\D", "", m.group(0))
        if 13 <= len(digits) <= 19 and digits[0] != "0" and _luhn(digits):
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
    found.sort(key=lambda x: (x.start, -x.end))
    merged: list[Secret] = []
    for sec in found:
        if merged and sec.start < merged[-1].end:
            last = merged[-1]
            if sec.end > last.end:
                merged[-1] = Secret(last.kind, last.start, sec.end)
            continue
        merged.append(sec)
    return merged


def redact(text: str, secrets: list[Secret] | None = None) -> str:
    secrets = find_secrets(text) if secrets is None else secrets
    for s in reversed(secrets):
        text = text[: s.start] + f"{MARK}: {s.kind}]" + text[s.end :]
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


def refuse_secrets(page) -> None:
    """SecretError when any text of the page (title, description, body, quotes) holds a secret."""
    from wikigen.core.errors import SecretError

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
    if where:
        raise SecretError(
            f"page {page.slug!r} refused: it would hold a secret ({'; '.join(where)}); "
            "leave that text out - nothing was written"
        )
