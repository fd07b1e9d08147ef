"""Amounts of money, percentages and durations in text, with exact character spans and normal values.

    find_amounts("a fee of USD 240,000 per year")     -> [Mention(11, 22, "amount", "USD 240,000", "USD 240,000")]
    find_percentages("fifty percent (50%)")           -> [Mention(0, 19, "percentage", "50%", "fifty percent (50%)")]
    find_durations("thirty (30) days' notice")        -> [Mention(0, 16, "duration", "30 days", "thirty (30) days")]

The grammar of numbers only, English and Korean: digits with thousands separators, number words up to
the thousands ("one hundred and twenty"), scale words ("2.5 million", "3억", "1,200만"), currency
symbols and ISO 4217 codes before or after the number, "원" after it. A number written out and then
in figures ("thirty (30) days") is one mention. Offsets are characters (Korean-safe).
"""

from __future__ import annotations

import re
from typing import NamedTuple

from wikigen.search.facts.dates import find_dates

__all__ = [
    "DURATION_UNIT",
    "KO_DURATION_UNIT",
    "NUMBER_PHRASE",
    "NUMBER_WORDS",
    "Mention",
    "find_amounts",
    "find_durations",
    "find_percentages",
    "ordinal_number",
    "word_number",
]


class Mention(NamedTuple):
    start: int  # character offsets into the text
    end: int
    kind: str  # amount | percentage | duration
    value: str  # the normal form: "USD 240,000", "50%", "30 days"
    text: str  # the text as written


_UNITS = {
    w: i
    for i, w in enumerate(
        [
            "zero",
            "one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "eleven",
            "twelve",
            "thirteen",
            "fourteen",
            "fifteen",
            "sixteen",
            "seventeen",
            "eighteen",
            "nineteen",
        ]
    )
}
_TENS = {
    w: 10 * (i + 2)
    for i, w in enumerate(["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"])
}
NUMBER_WORDS = sorted([*_UNITS, *_TENS, "hundred", "thousand"], key=len, reverse=True)
_WORD = r"(?:" + "|".join(NUMBER_WORDS) + r")"
_WORDS = rf"(?:{_WORD}(?:(?:\s+and\s+|\s*-\s*|\s+){_WORD})*)"
NUMBER_PHRASE = _WORDS  # a number in words ("one hundred and twenty", "thirty-five"), as a pattern to build on
_NUM = r"(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?"


def word_number(words: str) -> int | None:
    """'one hundred and twenty' -> 120, 'thirty-five' -> 35; None when the words are not a number."""
    total, current = 0, 0
    seen = False
    for w in re.split(r"[\s-]+", words.lower().strip()):
        if w == "and" or not w:
            continue
        if w in _UNITS:
            current += _UNITS[w]
        elif w in _TENS:
            current += _TENS[w]
        elif w == "hundred":
            current = max(current, 1) * 100
        elif w == "thousand":
            total, current = total + max(current, 1) * 1000, 0
        else:
            return None
        seen = True
    return total + current if seen else None


# the ordinals not made by adding "th" to their cardinal ("fifth", not "fiveth")
_ORDINAL = {
    "first": "one",
    "second": "two",
    "third": "three",
    "fifth": "five",
    "eighth": "eight",
    "ninth": "nine",
    "twelfth": "twelve",
}


def ordinal_number(said: str) -> int | None:
    """'fifth' -> 5, 'twenty-first' -> 21, '5th' / '5t h' -> 5; None when the words are not an ordinal."""
    digits = re.match(r"\d+", said)
    if digits:
        return int(digits.group())
    words = re.split(r"[-\s]+", said.lower())
    last = words[-1]
    card = _ORDINAL.get(last) or (last[:-4] + "y" if last.endswith("ieth") else last[:-2])
    return word_number(" ".join([*words[:-1], card]))


def _fmt(x: float) -> str:
    if x == int(x):
        return f"{int(x):,}"
    return f"{x:,.2f}".rstrip("0").rstrip(".") if x >= 1 else f"{x:.6f}".rstrip("0")


def _num(s: str) -> float:
    return float(s.replace(",", ""))


def _near(text: str, trigger: re.Pattern, rx: re.Pattern, before: int = 90, after: int = 40):
    """rx's matches that contain a match of `trigger` (found first, cheaply), each once, in text order: a
    pattern that may start with a long alternation is tried only in a window around its trigger."""
    seen: set[tuple[int, int]] = set()
    out = []
    for t in trigger.finditer(text):
        lo, hi = max(0, t.start() - before), min(len(text), t.end() + after)
        for m in rx.finditer(text, lo, hi):
            if m.start() <= t.start() and t.end() <= m.end() and m.span() not in seen:
                seen.add(m.span())
                out.append(m)
    out.sort(key=lambda m: m.start())
    return out


# --- amounts -------------------------------------------------------------------------------------

_SYMBOLS = {
    "$": "USD",
    "US$": "USD",
    "U.S.$": "USD",
    "€": "EUR",
    "£": "GBP",
    "¥": "JPY",
    "₩": "KRW",
    "C$": "CAD",
    "A$": "AUD",
    "HK$": "HKD",
    "S$": "SGD",
}
_CODES = [
    "USD",
    "EUR",
    "GBP",
    "JPY",
    "KRW",
    "CNY",
    "RMB",
    "CHF",
    "CAD",
    "AUD",
    "HKD",
    "SGD",
    "INR",
    "SEK",
    "NOK",
    "DKK",
    "NZD",
    "ZAR",
    "BRL",
    "MXN",
    "TWD",
]
_CURRENCY_WORDS = {
    "dollars": "USD",
    "dollar": "USD",
    "euros": "EUR",
    "euro": "EUR",
    "pounds sterling": "GBP",
    "pounds": "GBP",
    "yen": "JPY",
    "won": "KRW",
}
_SCALE = {
    "thousand": 1e3,
    "k": 1e3,
    "million": 1e6,
    "mm": 1e6,
    "m": 1e6,
    "mn": 1e6,
    "billion": 1e9,
    "bn": 1e9,
    "b": 1e9,
    "trillion": 1e12,
}
_SYM = "|".join(re.escape(s) for s in sorted(_SYMBOLS, key=len, reverse=True))
_SCALE_RX = r"(?:\s*(?P<scale>thousand|million|billion|trillion|mm|mn|bn|[kmb])\b)?"
_AMOUNT_PATTERNS = [
    # $1,200.50 / US$ 2.5 million / USD 240,000 / EUR 1.2m
    re.compile(rf"(?P<cur>{_SYM}|\b(?:{'|'.join(_CODES)})\b)\s?(?P<num>{_NUM}){_SCALE_RX}", re.I),
    # 240,000 USD / 1.2 million euros
    re.compile(
        rf"(?<![\w.,])(?P<num>{_NUM}){_SCALE_RX}\s?(?P<cur>\b(?:{'|'.join(_CODES)})\b|"
        rf"(?:{'|'.join(sorted(_CURRENCY_WORDS, key=len, reverse=True))})\b)",
        re.I,
    ),
]
_CURRENCY_TRIGGER = re.compile(
    r"[$€£¥₩]|\b(?:[A-Z]{3}|[A-Za-z]{3}\b(?<=[Uu][Ss][Dd]|[Ee][Uu][Rr]|[Gg][Bb][Pp])"
    r"|[Dd]ollars?|DOLLARS?|[Ee]uros?|EUROS?|[Pp]ounds|POUNDS|yen|won)\b"
)
# 1,500,000원 / 3억 원 / 1,200만원 / 금 오천만원 is not parsed (written-out Korean numbers)
_KO_AMOUNT = re.compile(
    r"(?<![\d.,])(?P<num>\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?\s*(?P<scale>조|억|천만|백만|만|천)?\s*"
    r"(?P<scale2>만|천)?\s*원"
)
_KO_SCALE = {"조": 1e12, "억": 1e8, "천만": 1e7, "백만": 1e6, "만": 1e4, "천": 1e3}


def _amount_value(cur: str, num: str, scale: str | None) -> str | None:
    code = _SYMBOLS.get(cur) or _CURRENCY_WORDS.get(cur.lower()) or cur.upper()
    if code == "RMB":
        code = "CNY"
    try:
        x = _num(num) * _SCALE.get((scale or "").lower(), 1.0)
    except ValueError:
        return None
    return f"{code} {_fmt(x)}"


def find_amounts(text: str) -> list[Mention]:
    """Every amount of money: a currency (symbol, ISO code, word, or 원) with a number, in text order."""
    out: list[Mention] = []
    for rx in _AMOUNT_PATTERNS:
        for m in _near(text, _CURRENCY_TRIGGER, rx, before=30, after=30):
            value = _amount_value(m.group("cur").strip(), m.group("num"), m.group("scale"))
            if value:
                out.append(Mention(m.start(), m.end(), "amount", value, m.group(0)))
    for m in _KO_AMOUNT.finditer(text) if "원" in text else ():
        x = _num(re.sub(r"\s*[조억천백만원]+.*$", "", m.group(0)).strip())
        for g in ("scale", "scale2"):
            if m.group(g):
                x *= _KO_SCALE[m.group(g)]
        out.append(Mention(m.start(), m.end(), "amount", f"KRW {_fmt(x)}", m.group(0)))
    return _no_overlaps(out)


# --- percentages ---------------------------------------------------------------------------------

_PERCENT = re.compile(
    rf"(?:(?P<words>\b{_WORDS})\s+(?:percent|per\s*cent)\s*)?\(?(?P<num>{_NUM})\s*(?:%|\s(?:percent|per\s*cent)\b|"
    r"퍼센트|프로(?![가-힣]))\)?"
    rf"|(?P<only>\b{_WORDS})\s+(?:percent|per\s*cent)\b",
    re.I,
)


_PERCENT_TRIGGER = re.compile(r"%|percent|per\s*cent|퍼센트|프로", re.I)


def find_percentages(text: str) -> list[Mention]:
    """Every percentage: "15%", "15 percent", "fifteen percent (15%)", "15퍼센트", in text order."""
    out = []
    for m in _near(text, _PERCENT_TRIGGER, _PERCENT, before=50, after=12):
        if m.group("num"):
            x = _num(m.group("num"))
        else:
            n = word_number(m.group("only"))
            if n is None:
                continue
            x = n
        s, e = m.span()
        if text[s] == "(" and not m.group("words"):
            s += 1
        if text[e - 1] == ")" and "(" not in text[s:e]:
            e -= 1
        out.append(Mention(s, e, "percentage", f"{_fmt(x)}%", text[s:e]))
    return out


# --- durations -----------------------------------------------------------------------------------

# a length of time's unit, English and Korean ("business days", "months"; 개월, 시간): wikigen.ask.wording reads
# "how many days" and "몇 개월" as a length asked, not a count of documents
DURATION_UNIT = r"(?:business\s+|calendar\s+|working\s+|banking\s+)?(?:days?|weeks?|months?|years?|hours?|minutes?)"
KO_DURATION_UNIT = r"(?:영업일|개월|주일|주|시간|분|년|일|달)"
_UNIT = rf"(?P<unit>{DURATION_UNIT})"
_DURATION = re.compile(
    rf"(?<![\w$£€.,])(?:(?P<words>{_WORDS})[\s-]*(?:\((?P<paren>\d+)\)[\s-]*)?|(?P<num>\d+(?:\.\d+)?)[\s-]*)"
    rf"{_UNIT}\b",
    re.I,
)
_UNIT_TRIGGER = re.compile(r"\b(?:days?|weeks?|months?|years?|hours?|minutes?)\b", re.I)
# one unit said without a number: "an additional month", "from year to year", "successive annual periods"
_ONE_UNIT = re.compile(
    r"\b(?:an?|one)\s+(?:additional|further|extra|subsequent|successive)\s+(?P<unit>year|month|week|day)\b"
    r"|\b(?P<unit2>year|month|week)[\s-]+to[\s-]+(?P=unit2)\b"
    r"|\b(?P<adj>annual|yearly|monthly|weekly|quarterly)\s+(?:renewal\s+)?(?:periods?|terms?)\b",
    re.I,
)
_ADJ_UNIT = {
    "annual": (1, "year"),
    "yearly": (1, "year"),
    "monthly": (1, "month"),
    "weekly": (1, "week"),
    "quarterly": (3, "month"),
}
_KO_DURATION = re.compile(
    r"(?<![\d.,])(?P<num>\d+)\s*(?P<unit>영업일|개월|주일|주|시간|분|년간|년|일)(?:간|\s*이내)?"  # "전" after it is a cue
)
# "년", "일", "주" and "분" after a number are as often a year, a day of the month, shares ("100주") or a
# fraction ("3분의 1") as a length of time: they count as one when a word of duration follows ("30일 이내",
# "1년씩", "2년 동안", "90일 전까지"), or "로/으로" after the word 기간 ("기간은 2년으로", "기간은 체결일부터 2년으로"), or
# nothing follows
_KO_AMBIGUOUS = frozenset({"년", "일", "주", "분"})
_KO_LENGTH_AFTER = re.compile(r"\s*(?:간|이내|내|전|후|동안|씩|마다|단위|이상|이하|미만|초과|경과|의\s*기간|$)")
# "기간은 (체결일부터 | 2023년 4월 3일부터) 2년으로"
_KO_PERIOD_BEFORE = re.compile(r"(?:기간|동안)\S{0,3}\s*(?:(?:\S+\s+){0,2}\S+부터\s*)?$")
_KO_DAY_OF_MONTH = re.compile(r"(?:\d\s*월|매월|매달|익월|당월|다음\s*달)\s*$")
_KO_UNITS = {
    "영업일": "business days",
    "개월": "months",
    "주일": "weeks",
    "주": "weeks",
    "시간": "hours",
    "분": "minutes",
    "년간": "years",
    "년": "years",
    "일": "days",
}


def _unit_name(unit: str, n: float) -> str:
    unit = " ".join(unit.lower().split())
    base = unit if unit.endswith("s") else unit + "s"
    return base[:-1] if n == 1 else base


def _korean_length(text: str, m: re.Match) -> bool:
    """Whether a number with "년", "일", "주" or "분" is a length of time (see _KO_AMBIGUOUS)."""
    if m.group("unit") == "년" and int(m.group("num")) >= 1000:
        return False  # "2023년 이후": a year
    if m.group("unit") == "일" and _KO_DAY_OF_MONTH.search(text, max(0, m.start() - 12), m.start()):
        return False  # "3월 10일 전", "매월 25일 이내": a day of the month
    if m.end() > m.end("unit") or _KO_LENGTH_AFTER.match(text, m.end()):
        return True
    return bool(
        re.match(r"\s*(?:으로|로)(?!부터)", text[m.end() :])
        and _KO_PERIOD_BEFORE.search(text, max(0, m.start() - 30), m.start())
    )


def find_durations(text: str) -> list[Mention]:
    """Every duration: "thirty (30) days", "12 months", "five-year", "five business days", "an additional month",
    "from year to year", "annual periods", "30일 이내", "3개월", "1년씩", in text order. Korean forms inside a date ("2024년 3월 1일") are dates, not durations."""
    out = []
    for m in _near(text, _UNIT_TRIGGER, _DURATION, before=50, after=0):
        if m.group("paren"):
            n: float | None = float(m.group("paren"))
        elif m.group("num"):
            n = float(m.group("num"))
        else:
            w = word_number(m.group("words"))
            n = float(w) if w is not None else None
        if n is None or (n == 0 and not m.group("num")):
            continue
        out.append(Mention(m.start(), m.end(), "duration", f"{_fmt(n)} {_unit_name(m.group('unit'), n)}", m.group(0)))
    for m in _ONE_UNIT.finditer(text):
        k, unit = _ADJ_UNIT[m.group("adj").lower()] if m.group("adj") else (1, m.group("unit") or m.group("unit2"))
        out.append(Mention(m.start(), m.end(), "duration", f"{k} {_unit_name(unit, k)}", m.group(0)))
    korean = re.search("[\uac00-\ud7a3]", text) is not None
    dates = find_dates(text) if korean and _KO_DURATION.search(text) else []
    for m in _KO_DURATION.finditer(text) if korean else ():
        if any(d.start < m.end() and m.start() < d.end for d in dates):
            continue
        if m.group("unit") in _KO_AMBIGUOUS and not _korean_length(text, m):
            continue
        n = float(m.group("num"))
        unit = _KO_UNITS[m.group("unit")]
        out.append(Mention(m.start(), m.end(), "duration", f"{_fmt(n)} {unit[:-1] if n == 1 else unit}", m.group(0)))
    return _no_overlaps(out)


def _no_overlaps(found: list[Mention]) -> list[Mention]:
    """In text order; of overlapping mentions the one starting first (then the longer) stays."""
    out: list[Mention] = []
    for m in sorted(found, key=lambda m: (m.start, -m.end)):
        if out and m.start < out[-1].end:
            continue
        out.append(m)
    return out
