"""Parties, other named entities and defined terms, with exact character spans; generic patterns only.

    find_parties('made between Acme Ltd ("Acme") and Beta Inc. (the "Buyer")')
        -> [Mention(.., "party", 'Acme Ltd ("Acme")', "Acme Ltd"), Mention(.., "party", 'Beta Inc. ("Buyer")', ..)]
    find_entities('Gamma LLC, a Delaware limited liability company')  -> [Mention(.., "entity", "Gamma LLC", ..)]
    find_terms('"Services" means the services ...')                   -> [Mention(.., "term", "Services", ..)]

Parties come from the grammar of a preamble: "between X and Y", "Parties: X and Y", a name followed by
", a/an ... corporation|company|partnership|..." (what a legal person is called in English), numbered
party lists, a paragraph that opens with a legal person's name ("Acme Inc., with a place of business at ...
(\"Acme\") and Beta B.V ..."), and in Korean "X(이하 \"갑\"이라 한다)와 Y(이하 \"을\"...)". A party's short name is the
quoted alias after it ("(the \"Company\")", "(\"Kestrel\")"). No list of names: a name is a run of
capitalised words ("iShip.com" counts: a capital inside), joined by "of", "&", "and" only where the next word
is capitalised as well; it does not reach back over a paragraph break (a title above the preamble), nor take
in a place that ends the clause before it ("the laws of Singapore and Acme Ltd": the gazetteer of
search/values/places.py says what a place is); a place alone is no party, but the end of a name with a comma
("Town of Vinton, Virginia"), as is a comma after the first word of a name that follows "and"
("and Stratton, Cheeseman & Walsh, Inc."). A name made only of the roles the text gives its parties
("Company", "Service Provider and Service Recipient") is a role, not a name.
"""

from __future__ import annotations

import functools
import re

from wikigen.search.facts.numbers import Mention

__all__ = ["OPENING", "find_entities", "find_parties", "find_terms", "introduced_at", "name_at", "party_role"]

OPENING = 4000  # where a document names its parties
_Q1, _Q2 = "[\"“”'‘]", "[\"”“'’]"
_LEGAL_FORM = re.compile(
    r"(?:plc|ltd|inc|llc|llp|lp|co|corp|gmbh|ag|sa|nv|bv|pte|pty|limited|s\.a|b\.v|n\.v)\.?,?$", re.I
)
_CONNECT = {"of", "for", "and", "&", "de", "du", "da", "di", "la", "le", "der", "van", "von", "y", "e"}
_TOKEN = re.compile(r"\S+")
# what a legal person is called after its name: ", a Delaware corporation", ", a company incorporated in ..."
_DESCRIPTOR = re.compile(
    r",\s+an?\s+(?:[\w.-]+\s+){0,6}?(?:corporation|company|partnership|association|organi[sz]ation|"
    r"incorporated|organi[sz]ed|existing|bank|trust|individual|entity|firm|enterprise|institution|"
    r"university|authority|foundation|undertaking|LLC|L\.L\.C\.|cooperative|society)\b",
    re.I,
)
_CUE = re.compile(r"\b(?:by\s+and\s+)?between\s*:?\s*(?:\(1\)\s*)?|\bparties\s*(?:are|:)\s*|\bamong\s*:?\s*", re.I)
_NEXT_PARTY = re.compile(r"[),;]\s*(?:and|AND)\s*[:,]?\s+(?:\(\d\)\s*)?(?=[A-Z0-9\[])|\(2\)\s+(?=[A-Z])")
_AND = re.compile(r"\s+(?:and|AND)\s+(?=[A-Z0-9])")
_NUMBERED = re.compile(r"^[ \t]*\((?P<n>[1-9])\)[ \t]+", re.M)
_ROLE_LINE = re.compile(r"^[ \t*#-]*(?P<label>[A-Z][\w-]*(?:[ \t][A-Za-z][\w-]*){0,2})[ \t]*:[ \t*]*(?=\S)", re.M)
_SENTENCE_END = re.compile(r"\.\s+[A-Z]|\n[ \t]*\n")
_ALIAS = re.compile(
    rf"\(\s*(?:hereinafter\s+(?:referred\s+to\s+as\s+|called\s+)?|each\s+)?(?:the\s+|this\s+)?{_Q1}"
    rf"(?P<alias>[^\"”“'’()\n]{{1,40}}){_Q2}[^()\n]{{0,40}}\)|(?<=\s){_Q1}the\s+(?P<alias2>[^\"”“'’\n]"
    rf"{{1,30}}){_Q2}",
    re.I,
)
_KO_ALIAS = re.compile(
    rf"\(\s*이하\s*{_Q1}?(?P<alias>[^\"”“'’)\n]{{1,20}}?){_Q2}?\s*(?:이?라\s*(?:한다|함|칭한다)|로\s*한다)?\s*\)"
)
_KO_LEAD = re.compile(r"^(?:(?:와|과|및|는|은|그리고)\s+)+")


def _capitalised(tok: str) -> bool:
    t = tok.lstrip('("“[')
    return bool(t) and (
        t[0].isupper()
        or (t[0].isdigit() and any(c.isalpha() for c in t))
        or (t[0].islower() and t[:1].isalpha() and any(c.isupper() for c in t[1:5]))  # "iShip.com", "eBay"
    )


def _name_forward(text: str, pos: int, limit: int = 10) -> tuple[int, int] | None:
    """The span of the capitalised name starting at pos (leading spaces skipped), or None."""
    toks = list(_TOKEN.finditer(text, pos, min(len(text), pos + 200)))[: limit + 2]
    end, count = None, 0
    for i, m in enumerate(toks):
        tok = m.group().strip("*")
        core = tok.rstrip(",;:)")
        if end is not None and (tok[:1] in '("“[' or "\n" in text[end : m.start()]):
            break  # an alias, a bracket or a line end after the name
        if _capitalised(core) or (end is not None and _LEGAL_FORM.match(core)):
            end, count = m.start() + len(core), count + 1
            if count >= 2 and _LEGAL_FORM.match(core) and tok == core:
                break  # "ACME GMBH of Berlin": the legal form ends the name
        elif core.lower() in _CONNECT and end is not None and i + 1 < len(toks) and _capitalised(toks[i + 1].group()):
            pass
        else:
            break
        nxt = toks[i + 1].group().strip("*") if i + 1 < len(toks) else ""
        if tok.endswith(",") and _LEGAL_FORM.match(nxt) and tok == core + ",":
            continue  # "Quillfeather Software, Inc."
        if tok != core or count >= limit:  # a comma, semicolon or bracket ends the name
            break
    if end is None:
        return None
    s = toks[0].start()
    if text[s] in '("“':
        s += 1
    return (s, end) if end > s else None


def _name_backward(text: str, pos: int, limit: int = 10) -> tuple[int, int] | None:
    """The span of the capitalised name ending at pos (a comma or descriptor follows it), or None."""
    toks = list(_TOKEN.finditer(text, max(0, pos - 200), pos))
    start, count = None, 0
    for i in range(len(toks) - 1, -1, -1):
        tok = toks[i].group()
        if i < len(toks) - 1 and "\n" in text[toks[i].end() : toks[i + 1].start()]:
            break  # a line's start: a heading or a title above is not part of the name (a name read forward ends so)
        if (
            i < len(toks) - 1
            and re.search(r"[,;:)\]]$|\.$(?<!\b[A-Z]\.)", tok)
            and not _LEGAL_FORM.match(tok)
            and not (tok.endswith(",") and _LEGAL_FORM.match(toks[i + 1].group()))
        ):  # "Acme, Inc."
            if (
                tok.endswith(",")
                and _capitalised(tok)
                and i > 0
                and re.fullmatch(r"and|AND|between|BETWEEN|.*\)", toks[i - 1].group())
            ):
                start = toks[i].start()  # "and Stratton, Cheeseman & Walsh, Inc.": a comma inside the name
            break  # the previous clause ended here
        if re.search(r"[\"“”()]", tok):
            break  # an alias or a bracket: not part of a name
        if (
            _capitalised(tok)
            or (start is not None and _LEGAL_FORM.match(tok))
            or (i == len(toks) - 1 and _LEGAL_FORM.match(tok))
        ):
            start, count = toks[i].start(), count + 1
        elif tok.lower() in _CONNECT and start is not None and i > 0 and _capitalised(toks[i - 1].group()):
            pass
        else:
            break
        if count >= limit:
            break
    if start is None:
        return None
    s = start + (1 if text[start] in '("“' else 0)
    return _not_a_place(text, s, pos) if pos > s else None


def _place(words: list[str]) -> bool:
    """Whether these words name a country, state or region (the gazetteer the jurisdiction values read)."""
    from wikigen.search.values.places import english_key, gazetteer  # lazily: search.values builds on this module

    return bool(words) and english_key(words) in gazetteer().english


def _not_a_place(text: str, s: int, e: int) -> tuple[int, int] | None:
    """The name at [s, e) without a place that ends the clause before it ("laws of Singapore and Acme Ltd");
    a place alone is no party, but the end of one whose name has a comma ("Town of Vinton, Virginia")."""
    lead = re.match(r"(.+?)\s+(?:and|AND)\s+(?=\S)", text[s:e])
    if lead and _place(lead.group(1).split()):
        s += lead.end()
    if not _place(text[s:e].split()):
        return (s, e)
    before = text[max(0, s - 200) : s].rstrip()
    if not before.endswith(","):
        return None
    wider = _name_backward(text, s - (len(text[max(0, s - 200) : s]) - len(before)) - 1)
    return (wider[0], e) if wider else None


def _plausible(name: str) -> bool:
    words = re.findall(r"[^\W\d_]+", name)
    if not words or len(name) < 2:
        return False
    if all(_LEGAL_FORM.match(w) for w in name.split()):
        return False  # "Inc.": the end of a name whose start was not read
    first = words[0].lower()
    return first not in {
        "this",
        "the",
        "these",
        "such",
        "each",
        "said",
        "whereas",
        "section",
        "article",
        "exhibit",
        "schedule",
        "annex",
        "appendix",
        "page",
        "table",
        "party",
        "parties",
    }


def _alias_after(text: str, end: int, stop: int) -> str:
    cut = _SENTENCE_END.search(text, end, min(stop, end + 400))
    m = _ALIAS.search(text, end, cut.start() + 1 if cut else min(stop, end + 400))
    if not m:
        return ""
    return (m.group("alias") or m.group("alias2") or "").strip(" *_")


def name_at(text: str, pos: int = 0) -> tuple[int, int] | None:
    """The span of the capitalised name that starts at pos (leading spaces skipped) and reads as a name (not
    "This", "Section ..."), or None: a party named alone, as in a table cell or a question."""
    span = _name_forward(text, pos)
    return span if span and _plausible(text[span[0] : span[1]]) else None


def introduced_at(text: str, pos: int) -> bool:
    """Whether a name ending at pos is introduced as a party there: what a legal person is called follows it
    (", a Michigan corporation") or its alias does ('("Agency")', '(the "Company")')."""
    return bool(_DESCRIPTOR.match(text, pos) or _ALIAS.match(text, pos + len(text[pos:]) - len(text[pos:].lstrip())))


def party_role(m: Mention) -> str | None:
    """The role (the alias) of a party or entity mention: "Supplier" of 'Acme Corp. (“Supplier”)', None
    when it has none. The inverse of the value `_party` writes."""
    name = " ".join(m.text.split()).rstrip(",")
    rest = m.value[len(name) :]
    return rest[3:-2] if rest.startswith(" (“") and rest.endswith("”)") else None


@functools.lru_cache(maxsize=8)
def _alias_words(text: str) -> frozenset[str]:
    """The words of the roles the opening gives its parties ("Company", "Service Provider"): aliases that are
    not a short form of the name before them ('Bank of America, N.A. ("Bank of America")')."""
    out: set[str] = set()
    for m in _ALIAS.finditer(text, 0, min(len(text), OPENING)):
        words = re.findall(r"[^\W\d_]+", (m.group("alias") or m.group("alias2") or "").casefold())
        if not set(words) <= set(re.findall(r"[^\W\d_]+", text[max(0, m.start() - 120) : m.start()].casefold())):
            out.update(words)
    return frozenset(out)


def _a_role(text: str, name: str) -> bool:
    """Whether a name is made only of the document's aliases ("Company", "Developer and Client"): a role the
    text gives a party, not the party's name."""
    words = [w for w in re.findall(r"[^\W\d_]+", name.casefold()) if w not in ("and", "or")]
    return bool(words) and all(w in _alias_words(text) for w in words)


def _party(text: str, span: tuple[int, int], stop: int) -> Mention | None:
    s, e = span
    name = " ".join(text[s:e].split()).rstrip(",")
    if not _plausible(name):
        return None
    alias = _alias_after(text, e, stop)
    if not alias and _a_role(text, name):
        return None
    value = f"{name} (\u201c{alias}\u201d)" if alias and alias.casefold() != name.casefold() else name
    return Mention(s, e, "party", value, text[s:e])


def find_entities(text: str, start: int = 0, end: int | None = None) -> list[Mention]:
    """Every name introduced as a legal person (", a Delaware corporation", ", a company incorporated
    in ..."), in text order, with the alias that follows it."""
    stop = len(text) if end is None else min(end, len(text))
    spans = [sp for m in _DESCRIPTOR.finditer(text, start, stop) if (sp := _name_backward(text, m.start()))]
    out = []
    for i, span in enumerate(spans):  # a name's alias comes before the next name ("(MICOA) and Beta, a ...")
        got = _party(text, span, spans[i + 1][0] if i + 1 < len(spans) else stop)
        if got:
            out.append(got._replace(kind="entity"))
    return out


def _parties_at(text: str, spans: list[tuple[int, int]], stop: int) -> list[Mention]:
    """The parties at these name spans, each named once (a letterhead or page header repeats a name)."""
    found = [_party(text, sp, spans[i + 1][0] if i + 1 < len(spans) else stop) for i, sp in enumerate(spans)]
    out, seen = [], set()
    for f in found:
        key = re.sub(r"\W+", "", f.text.casefold()) if f else ""
        if f and key not in seen:
            seen.add(key)
            out.append(f)
    return out


def _between(text: str, stop: int) -> list[Mention]:
    """ "between X and Y", "Parties: X and Y" (the second name after the first one's clause ends)."""
    out: list[Mention] = []
    for cue in _CUE.finditer(text, 0, stop):
        first = _name_forward(text, cue.end())
        if not first:
            continue
        adj = _AND.match(text, first[1])
        nxt = adj or _NEXT_PARTY.search(text, first[1], min(stop, first[1] + 900))
        second = _name_forward(text, nxt.end()) if nxt else None
        found = _parties_at(text, [first] + ([second] if second else []), stop)
        if len(found) < 2:
            second = _and_party(text, first[1], min(stop, first[1] + 600))
            found = _parties_at(text, [first] + ([second] if second else []), stop)
        if len(found) == 2:
            return found
        out = out or found
    return out


def _and_party(text: str, start: int, stop: int) -> tuple[int, int] | None:
    """The first name after an "and" in the first party's clause that reads as a party: a legal person,
    or a name followed by its alias ("and Jane Doe (the \"Consultant\")")."""
    for m in re.finditer(r"\s(?:and|AND)\s+(?=[A-Z])", text[start:stop]):
        sp = _name_forward(text, start + m.end())
        if (
            sp
            and len(text[sp[0] : sp[1]].split()) >= 2
            and (
                _legal_person(text, sp)
                or _ALIAS.match(text, sp[1], min(len(text), sp[1] + 60))
                or re.match(r"\s*\(\s*(?:hereinafter|the|each)", text[sp[1] : sp[1] + 30])
            )
        ):
            return sp
    return None


def _numbered(text: str, stop: int) -> list[Mention]:
    """A numbered list of parties: lines starting "(1) NAME", "(2) NAME"."""
    spans: list[tuple[int, int]] = []
    for m in _NUMBERED.finditer(text, 0, stop):
        if int(m.group("n")) != len(spans) + 1:
            continue
        sp = _name_forward(text, m.end())
        if sp:
            spans.append(sp)
    return _parties_at(text, spans, stop) if len(spans) >= 2 else []


def _legal_person(text: str, span: tuple[int, int]) -> bool:
    """A name that says it is a legal person: a legal form ends it, or an alias or descriptor follows on its line."""
    words = text[span[0] : span[1]].split()
    line_end = text.find("\n", span[1])
    rest = text[span[1] : line_end if line_end != -1 else len(text)]
    return bool(_LEGAL_FORM.match(words[-1]) or _ALIAS.search(rest) or _DESCRIPTOR.match(rest))


def _role_lines(text: str, stop: int) -> list[Mention]:
    """Lines "Customer: NAME, address" / "**Licensor:** NAME (...)" naming legal persons."""
    spans = []
    for m in _ROLE_LINE.finditer(text, 0, stop):
        sp = _name_forward(text, m.end())
        if sp and len(text[sp[0] : sp[1]].split()) >= 2 and _legal_person(text, sp):
            spans.append(sp)
    return _parties_at(text, spans, stop) if len(spans) >= 2 else []


def _alias_lines(text: str, stop: int) -> list[Mention]:
    """Lines that start with a name and end with its alias: 'Acme Ltd, 1 High St, Leeds ("Acme")'."""
    spans = []
    for line in re.finditer(r"^[ \t]*(?:\(\d\)[ \t]*)?(?=[A-Z])[^\n]*\)[ \t]*$", text[:stop], re.M):
        sp = _name_forward(text, line.start() + len(line.group()) - len(line.group().lstrip(" \t")))
        if sp and _ALIAS.search(line.group()):
            spans.append(sp)
    return _parties_at(text, spans, stop) if len(spans) >= 2 else []


def _korean(text: str, stop: int) -> list[Mention]:
    out = []
    for m in _KO_ALIAS.finditer(text, 0, stop):
        alias = m.group("alias").strip()
        if alias.startswith("본") or len(alias) > 10:
            continue  # "(이하 \"본 계약\")": the document itself
        back = max(text.rfind(c, 0, m.start()) for c in ')\n,."”')
        s = back + 1
        head = text[s : m.start()]
        lead = _KO_LEAD.match(head.lstrip())
        s += (len(head) - len(head.lstrip())) + (lead.end() if lead else 0)
        name = text[s : m.start()].strip()
        if not name or len(name) > 40 or len(name.split()) > 4:
            continue
        out.append(Mention(s, s + len(name), "party", f"{name} (\u201c{alias}\u201d)", name))
        if len(out) == 2:
            break
    return out


def find_parties(text: str, within: int = OPENING) -> list[Mention]:
    """The parties a document names in its opening (first `within` characters), in text order, each with
    its alias: a numbered party list, role lines ("Customer: NAME, ..."), "between X and Y", lines ending
    in an alias, the legal persons introduced there (", a Delaware corporation"), a paragraph opening with a
    legal person's name and naming a second after its clause, or the Korean form."""
    stop = min(len(text), within)
    best: list[Mention] = []
    for way in (_numbered, _role_lines, _between, _listed, _alias_lines, _described, _paragraph_start, _korean):
        found = way(text, stop)
        if len(found) >= 2:
            return sorted(found, key=lambda m: m.start)[:4]
        best = best or [f for f in found if f.kind == "party" and _legal_person(text, (f.start, f.end))]
    return best


def _listed(text: str, stop: int) -> list[Mention]:
    """A cue line ("Parties:", "BETWEEN") followed by lines that each start with a legal person's name."""
    for cue in re.finditer(r"^[ \t*#]*(?:parties|between)[ \t*]*:?[ \t*]*\n", text[:stop], re.I | re.M):
        spans: list[tuple[int, int]] = []
        for line in re.finditer(r"^[ \t]*(?:\(\d\)[ \t]*)?(?=\S)([^\n]*)\n", text[cue.end() : stop], re.M):
            sp = _name_forward(text, cue.end() + line.start(1))
            if not sp or not _legal_person(text, sp) or len(spans) >= 4:
                break
            spans.append(sp)
        if len(spans) >= 2:
            return _parties_at(text, spans, stop)
    return []


def _paragraph_start(text: str, stop: int) -> list[Mention]:
    """A paragraph that opens with a legal person's name and names the second after its clause: 'Acme Inc., with
    a place of business at ... ("Acme") and Beta B.V having an address at ... ("Consultant") agree ...'."""
    for para in re.finditer(r"(?:^|\n[ \t]*\n)[ \t]*(?=[A-Z])", text[:stop]):
        first = _name_forward(text, para.end())
        if first is None:
            continue
        words = text[first[0] : first[1]].split()
        if len(words) < 2 or not _LEGAL_FORM.match(words[-1]):
            continue  # the paragraph does not open with a legal person's name ("Acme Inc.")
        nxt = _NEXT_PARTY.search(text, first[1], min(stop, first[1] + 600))
        second = _name_forward(text, nxt.end()) if nxt else None
        if second and _legal_person(text, second):
            found = _parties_at(text, [first, second], stop)
            if len(found) == 2:
                return found
    return []


def _described(text: str, stop: int) -> list[Mention]:
    out, seen = [], set()
    for e in find_entities(text, 0, stop):
        key = e.text.casefold()
        if key not in seen:
            seen.add(key)
            out.append(e._replace(kind="party"))
    return out


# --- defined terms ---------------------------------------------------------------------------------

_TERM = r"([A-Z][\w'’&/.-]*(?:[ \t]+[\w'’&/.-]+){0,5}|[가-힣][가-힣\w ]{0,20})"
_DQ1, _DQ2 = "[\"“”'‘「『]", "[\"”“'’」』]"  # a term's quotes: straight, curly, single, CJK
# the one definition rule (topic discovery reads it too, through wikigen.agents.evidence.defined_terms)
_DEF_PATTERNS = [
    re.compile(
        _DQ1 + _TERM + _DQ2 + r"\s*(?:,\s*)?(?:shall\s+)?(?:means?|mean|refers?\s+to|has\s+the\s+meaning|"
        r"have\s+the\s+meaning|shall\s+have\s+the\s+meaning|is\s+defined|includes?)\b"
    ),
    # a bracketed alias: (the "Term"), (collectively, "Term"), (each, a "Term"), (hereinafter referred to as "Term")
    re.compile(r"\((?:[^()\n]{0,80}?)" + _DQ1 + _TERM + _DQ2 + r"[^()\n]{0,40}\)"),
    re.compile(_DQ1 + _TERM + _DQ2 + r"\s*(?:이?란|(?:이)?라\s*함은|(?:이)?라\s*한다|(?:은|는)\s)"),
    re.compile(r"\(\s*이하\s*" + _DQ1 + "?" + _TERM + _DQ2 + "?"),
]


def find_terms(text: str) -> list[Mention]:
    """Every defined term (`"Term" means`, `(the "Term")`, `(collectively, "Term")`, `"용어"란`, `(이하 "용어")`),
    one per term position, in text order; the span is the term's definition marker, the value the term."""
    out, seen = [], set()
    for rx in _DEF_PATTERNS:
        for m in rx.finditer(text):
            term = m.group(1).strip().rstrip(".")
            if m.start(1) in seen or not term or len(term) > 60:
                continue
            seen.add(m.start(1))
            out.append(Mention(m.start(), m.end(), "term", term, m.group(0)))
    return sorted(out, key=lambda m: m.start)
