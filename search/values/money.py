"""Money values: amounts (`wikigen.search.facts.numbers.find_amounts`, the one amount rule) with their currency,
and amounts stated as a multiple of fees ("two times the annual fees", "the fees paid in the twelve (12)
months preceding the claim").

    find_money_values("capped at US$5 million")  -> [Value("money", "USD 5000000", "USD 5,000,000", ...,
                                                            parts={amount: 5000000.0, currency: "USD"})]
    find_money_values("two times the annual fees") -> [Value("money", "2x annual fees", "2x annual fees", ...,
                                                             parts={multiple: 2.0, of: "annual fees"})]

A multiple of fees is the grammar of an amount measured by payments: a word for what is paid ("fees",
"amounts", "charges", "payments", "compensation", "price", "royalties"; 수수료, 대금, 금액, 사용료, 보수, 요금)
with a multiplier before it ("two (2) times", "2x", "twice", "150% of"; "2배" after it in Korean), or a
period it is counted over ("in the twelve (12) months preceding", "직전 12개월간 지급한"), or a word of
limit before it and a word of payment after it ("not exceed the compensation paid", "equal to the price
paid"). A bare "the fees" is no value. `of` is the payment in plain words, the period normalised ("fees
paid in the prior 12 months"), so two contracts with the same cap share a `norm`. Which money a field wants (a cap, a price, a par value) is the schema's
choice, not this module's.
"""

from __future__ import annotations

import re

from wikigen.search.facts.numbers import NUMBER_PHRASE, find_amounts, find_durations, word_number
from wikigen.search.values.value import Value

__all__ = ["find_money_values", "parse_money"]

_WORDS = NUMBER_PHRASE
_NUMBER = r"\d+(?:\.\d+)?"
_MULTIPLIER = (
    rf"(?:(?P<mwords>{_WORDS})\s*(?:\((?P<mparen>{_NUMBER})\)\s*)?(?:times|x)\b"
    rf"|(?P<mnum>{_NUMBER})\s*(?:times\b|x\b|×)"
    r"|(?P<mhalf>one\s+and\s+(?:a|one)[\s-]half)\s+times\b"
    r"|(?P<mtwice>twice|double|triple)\b"
    rf"|(?P<mpct>{_NUMBER})\s*(?:%|\s?percent|\s?per\s?cent)\s+of\b)"
)
_LIMIT = r"(?:not\s+(?:to\s+)?exceed(?:ing)?|exceed(?:ing)?|limited\s+to|in\s+excess\s+of|equal\s+to|up\s+to|greater\s+of|lesser\s+of|more\s+than|less\s+than)"
_ADJ = r"(?:total|aggregate|cumulative|actual|annual|yearly|monthly|quarterly|net|gross|license|licence|subscription|service|services|consulting|royalty|contract|purchase)"
_PAYMENT = r"(?:fees|amounts?|charges|sums|payments|compensation|consideration|royalties|price)"
_FEES = re.compile(
    rf"(?:(?P<mult>{_MULTIPLIER})\s*(?:the\s+|all\s+)?|(?P<limit>{_LIMIT})\s+(?:the\s+|all\s+)?)?"
    rf"(?P<adj>(?:{_ADJ}\s+){{0,3}})(?P<base>{_PAYMENT})\b"
    r"(?P<paid>\s+(?:actually\s+)?(?:paid(?:\s+(?:and|or)\s+payable)?|payable|received|owed|invoiced))?",
    re.I,
)
_PERIOD = re.compile(
    r"[^.;:()]{0,80}?\b(?:in|during|for|within|over)\s+(?:the\s+|any\s+)?(?:(?:period|term)\s+of\s+)?"
    r"(?:(?P<pre>prior|preceding|previous|last|immediately\s+preceding)\s+)?"
    rf"(?P<n>(?:{_WORDS})(?:\s*\(\d+\))?|\d+)[\s-]*(?:\(\d+\)[\s-]*)?(?P<unit>days?|weeks?|months?|years?)\b"
    r"(?P<post>[\s-]*(?:period\s+)?(?:immediately\s+)?(?:preceding|prior\s+to|before|previous\s+to)\b)?",
    re.I,
)
_PAYMENT_WORD = re.compile(rf"\b{_PAYMENT}\b", re.I)
_WORD_START = re.compile(r"\b\w")
_TAIL_END = re.compile(r"[,;]|\.(?=\s|$)|\s(?:and|or)\s|\n", re.I)
_ADJ_DROP = {"total", "aggregate", "cumulative", "actual"}  # they restate the sum, not change it

_KO_BASE = {
    "계약금액": "contract price",
    "계약대금": "contract price",
    "용역대금": "service fees",
    "수수료": "fees",
    "사용료": "fees",
    "보수": "fees",
    "요금": "charges",
    "대금": "price",
    "금액": "amounts",
}
_KO_BASES = r"계약\s*금액|계약\s*대금|용역\s*대금|수수료|사용료|보수|요금|대금|금액"
_KO_ADJ = {"연간": "annual", "월간": "monthly"}
_KO_NUM = {"두": 2, "세": 3, "네": 4, "다섯": 5, "열": 10}
_KO_MULTIPLE = re.compile(
    rf"(?P<adj>연간|월간)?\s*(?P<base>{_KO_BASES})(?:\s*총액)?\s*의\s*(?P<n>\d+(?:\.\d+)?|두|세|네|다섯|열)\s*배"
)
_KO_PERIOD = re.compile(
    r"(?:직전|최근|이전)\s*(?P<n>\d+)\s*(?P<unit>개월|년|일)\s*(?:간|동안)?\s*(?:[가-힣]+\s+){0,3}?"
    rf"(?:지급|지불|수령|납부)(?:한|된|받은|하였던|했던)\s*(?P<base>{_KO_BASES})(?:\s*총액)?"
)
_KO_UNIT = {"개월": "months", "년": "years", "일": "days"}


def _fmt_amount(x: float) -> str:
    """The canonical number: "1000000", "10000.5", "0.005"."""
    return str(int(x)) if x == int(x) else f"{x:.6f}".rstrip("0").rstrip(".")


def _display_amount(x: float) -> str:
    """The number as a reader sees it: "1,000,000", "10,000.50" (cents), "0.005" (finer than cents)."""
    if x == int(x):
        return f"{int(x):,}"
    return f"{x:,.2f}" if round(x, 2) == x else f"{x:,.6f}".rstrip("0")


def _amount_value(start: int, end: int, said: str) -> Value:
    code, number = said.split(" ", 1)
    amount = float(number.replace(",", ""))
    return Value(
        "money",
        f"{code} {_fmt_amount(amount)}",
        f"{code} {_display_amount(amount)}",
        start,
        end,
        {"amount": amount, "currency": code},
    )


def _multiple_value(start: int, end: int, multiple: float, of: str) -> Value:
    m = f"{multiple:.4f}".rstrip("0").rstrip(".")  # "5.5% of" -> 0.055
    return Value(
        "money",
        f"{m}x {of}",
        of if multiple == 1 else f"{m}x {of}",
        start,
        end,
        {"multiple": multiple, "of": of},
    )


def _multiplier(m: re.Match) -> float | None:
    if m.group("mparen"):
        return float(m.group("mparen"))
    if m.group("mnum"):
        return float(m.group("mnum"))
    if m.group("mwords"):
        n = word_number(m.group("mwords"))
        return float(n) if n else None
    if m.group("mhalf"):
        return 1.5
    if m.group("mtwice"):
        return {"twice": 2.0, "double": 2.0, "triple": 3.0}[m.group("mtwice").lower()]
    if m.group("mpct"):
        return float(m.group("mpct")) / 100
    return None


def _period_words(said: str) -> str | None:
    """'twelve (12) months' -> '12 months': the one duration rule (`find_durations`), a length of none left out."""
    found = find_durations(said)
    return found[0].value if found and not found[0].value.startswith("0 ") else None


def _fees_phrases(text: str, start: int, stop: int):
    """The matches of _FEES in text[start:stop], each at the earliest word start (up to 70 characters before its
    payment word) from which it reaches that word: the multiplier or limit before it is tried only there."""
    last = start
    for hit in _PAYMENT_WORD.finditer(text, start, stop):
        for w in _WORD_START.finditer(text, max(last, hit.start() - 70), hit.start() + 1):
            m = _FEES.match(text, w.start(), min(stop, hit.end() + 60))
            if m and m.start("base") == hit.start():
                last = m.end()
                yield m
                break


def _english(text: str, start: int, stop: int) -> list[Value]:
    out = []
    for m in _fees_phrases(text, start, stop):
        mult = _multiplier(m) if m.group("mult") else 1.0
        if mult is None or mult <= 0:
            continue
        adj = [w.lower() for w in m.group("adj").split() if w.lower() not in _ADJ_DROP]
        base = m.group("base").lower()
        if base == "amount":
            base = "amounts"
        of = " ".join([*adj, base] + (["paid"] if m.group("paid") else []))
        end = m.end()
        tail_stop = _TAIL_END.search(text, end, min(stop, end + 160))
        period = _PERIOD.match(text, end, tail_stop.start() if tail_stop else min(stop, end + 160))
        words = _period_words(text[period.start("n") : period.end("unit")]) if period else None
        if period and words and (period.group("pre") or period.group("post")):
            of += f" in the prior {words}"
            end = period.end()
            nxt = _TAIL_END.search(text, end, min(stop, end + 80))
            end = nxt.start() if nxt else end  # "... preceding the claim"
        elif not (m.group("mult") or (m.group("limit") and m.group("paid"))):
            continue  # a bare "the fees", or "up to the amount specified": no amount measured by payments
        s = m.start("mult") if m.group("mult") else m.start("adj") if m.group("adj") else m.start("base")
        while end > s and text[end - 1].isspace():
            end -= 1
        out.append(_multiple_value(s, end, mult, of))
    return out


def _ko_base(word: str) -> str:
    return _KO_BASE["".join(word.split())]


def _korean(text: str, start: int, stop: int) -> list[Value]:
    out = []
    for m in _KO_MULTIPLE.finditer(text, start, stop):
        n = m.group("n")
        mult = float(n) if n[0].isdigit() else float(_KO_NUM[n])
        adj = [_KO_ADJ[m.group("adj")]] if m.group("adj") else []
        of = " ".join([*adj, _ko_base(m.group("base"))])
        out.append(_multiple_value(m.start(), m.end(), mult, of))
    for m in _KO_PERIOD.finditer(text, start, stop):
        n = int(m.group("n"))
        unit = _KO_UNIT[m.group("unit")]
        of = f"{_ko_base(m.group('base'))} paid in the prior {n} {unit[:-1] if n == 1 else unit}"
        out.append(_multiple_value(m.start(), m.end(), 1.0, of))
    return out


def find_money_values(text: str, start: int = 0, end: int | None = None) -> list[Value]:
    """Every amount of money and every multiple of fees in text[start:end], in text order; where two overlap
    (an amount inside a multiple's words) the one that starts first, then the longer, stays."""
    stop = len(text) if end is None else end
    window = text[start:stop]
    found = [_amount_value(start + m.start, start + m.end, m.value) for m in find_amounts(window)]
    found += _english(text, start, stop)
    if re.search("[\uac00-\ud7a3]", window):
        found += _korean(text, start, stop)
    out: list[Value] = []
    for v in sorted(found, key=lambda v: (v.start, -v.end)):
        if out and v.start < out[-1].end:
            continue
        out.append(v)
    return out


def parse_money(text: str) -> Value | None:
    """The first amount of money or multiple of fees in a short text ("more than $1 million", "2x fees")."""
    found = find_money_values(text)
    return found[0] if found else None
