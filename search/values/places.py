"""The gazetteer of jurisdictions: countries (ISO 3166-1) and the states, provinces and regions a governing-law
or venue clause names (ISO 3166-2 for the United States, Canada, Australia, Korea and the nations of the
United Kingdom), each under every name a contract writes it by, in English and Korean.

    gazetteer().english["state of delaware"]  -> not there: designators ("State of") are read by the finder
    gazetteer().english["delaware"]           -> Place("Delaware", "United States", "state", "US-DE")
    gazetteer().korean["대한민국"]             -> Place("Republic of Korea", "Republic of Korea", "country", "KR")

The ISO names and their Korean translations come from pycountry (the Debian iso-codes data, shipped with the
package: nothing is downloaded). A place's name is the one a legal text writes: the ISO short name, or for
a name the list inverts ("Korea, Republic of") its official order ("Republic of Korea"), or a common name
("Taiwan", "Vietnam", "Bolivia"). Added by hand, as domain knowledge: short forms contracts use ("U.S.",
"UK", "PRC", "Korea"), "England and Wales" (one legal jurisdiction), the adjectives that name a country's
law ("English law", "Korean law": `ADJECTIVES`, read only before "law"), and Korean names where the ISO
translations lack them (US states). Where one name means two places ("Georgia"), the US state comes first:
contracts name it far more often as a governing law; "Republic of Georgia" names the country.
"""

from __future__ import annotations

import functools
import gettext
import re
from dataclasses import dataclass, field
from typing import NamedTuple

__all__ = ["ADJECTIVES", "CLOSERS", "OPENERS", "Gazetteer", "Place", "adjective_place", "english_key", "gazetteer"]


class Place(NamedTuple):
    name: str  # "Delaware", "Republic of Korea", "England and Wales"
    country: str  # the country's name ("United States"); a country's own name for a country
    kind: str  # state | country | province | region
    code: str  # ISO 3166 code ("US-DE", "KR"), or "GB-ENG+WLS" for England and Wales


@dataclass
class Gazetteer:
    by_code: dict[str, Place] = field(default_factory=dict)  # ISO code -> place
    english: dict[str, Place] = field(default_factory=dict)  # english_key(surface) -> place
    korean: dict[str, Place] = field(default_factory=dict)  # surface as written -> place
    longest_english: int = 1  # words in the longest English surface
    korean_by_first: dict[str, list[str]] = field(default_factory=dict)  # first syllable -> surfaces, longest first


# ISO 3166-2 subdivision types -> the kind a Value reports
_KINDS = {
    "State": "state",
    "Province": "province",
    "Special self-governing province": "province",
}
_SUBDIVIDED = ("US", "CA", "AU", "KR")  # countries whose subdivisions are jurisdictions of their own
_GB_NATIONS = ("GB-ENG", "GB-SCT", "GB-WLS", "GB-NIR")

# short forms and other names contracts write (domain knowledge); registered before the ISO names
_ENGLISH_ALIASES = {
    "US": ["U.S.", "U.S.A.", "USA", "United States", "United States of America"],
    "GB": [
        "UK",
        "U.K.",
        "Great Britain",
        "Britain",
        "United Kingdom",
        "United Kingdom of Great Britain and Northern Ireland",
    ],
    "KR": ["Korea", "South Korea", "Republic of Korea", "ROK"],
    "KP": ["North Korea"],
    "CN": ["PRC", "P.R.C.", "Mainland China", "People's Republic of China"],
    "RU": ["Russia"],
    "TR": ["Turkey"],
    "CZ": ["Czech Republic"],
    "NL": ["The Netherlands", "Holland"],
    "HK": ["Hong Kong SAR", "Hong Kong Special Administrative Region"],
    "MO": ["Macau"],
    "CI": ["Ivory Coast"],
    "GE": ["Republic of Georgia"],
    "AE": ["UAE", "U.A.E."],
    "US-DC": ["Washington, D.C.", "Washington D.C.", "D.C."],
    # the states' short forms people write ("NY law", "N.Y. law", "Cal. law"): postal codes and the traditional
    # abbreviations, only those that are no English word or common abbreviation ("IN", "OR", "ME", "Mass.", "Ill.")
    "US-NY": ["NY", "N.Y.", "NYS"],
    "US-NJ": ["NJ", "N.J."],
    "US-CA": ["Cal.", "Calif."],
    "US-TX": ["TX", "Tex."],
    "US-FL": ["Fla."],
    "US-CT": ["Conn."],
    "US-MN": ["Minn."],
    "US-MI": ["Mich."],
    "US-CO": ["Colo."],
    "US-AZ": ["Ariz."],
    "US-NV": ["Nev."],
    "US-WI": ["Wis."],
    "US-TN": ["Tenn."],
    "CA-QC": ["Québec"],
    "GB-WLS": ["Wales"],
}
# the adjective that names a country's (or nation's) law: "English law", "the laws of ... (Korean law)"
ADJECTIVES = {
    "English": "GB-ENG+WLS",  # English law is the law of England and Wales, one legal jurisdiction
    "Scottish": "GB-SCT",
    "Scots": "GB-SCT",
    "British": "GB",
    "Irish": "IE",
    "French": "FR",
    "German": "DE",
    "Swiss": "CH",
    "Dutch": "NL",
    "Belgian": "BE",
    "Luxembourg": "LU",
    "Austrian": "AT",
    "Italian": "IT",
    "Spanish": "ES",
    "Portuguese": "PT",
    "Swedish": "SE",
    "Danish": "DK",
    "Norwegian": "NO",
    "Finnish": "FI",
    "Polish": "PL",
    "Greek": "GR",
    "Israeli": "IL",
    "Japanese": "JP",
    "Chinese": "CN",
    "Korean": "KR",
    "Taiwanese": "TW",
    "Singaporean": "SG",
    "Indian": "IN",
    "Australian": "AU",
    "Canadian": "CA",
    "American": "US",
    "Mexican": "MX",
    "Brazilian": "BR",
    "Russian": "RU",
}
# the short forms of the US states and the Canadian provinces that lawyers write before "law" ("DE law",
# "Ill. law", "Ont. law"): the postal codes and the traditional abbreviations (the U.S. Government Publishing
# Office's style manual; Canada Post's), and the two countries' own ("US law", "UK law"). Many are English words
# or other codes ("IN", "OR", "Mass.", "DE" for Germany), so they are read only before "law", like the adjectives;
# the unambiguous ones are also `_ENGLISH_ALIASES`, read anywhere. Keys are written without their final period.
LAW_ABBREVIATIONS = {
    "US-AL": ["AL", "Ala"], "US-AK": ["AK"], "US-AZ": ["AZ", "Ariz"], "US-AR": ["AR", "Ark"],
    "US-CA": ["CA", "Cal", "Calif"], "US-CO": ["CO", "Colo"], "US-CT": ["CT", "Conn"], "US-DE": ["DE", "Del"],
    "US-DC": ["DC", "D.C"], "US-FL": ["FL", "Fla"], "US-GA": ["GA", "Ga"], "US-HI": ["HI"], "US-ID": ["ID"],
    "US-IL": ["IL", "Ill"], "US-IN": ["IN", "Ind"], "US-IA": ["IA"], "US-KS": ["KS", "Kan", "Kans"],
    "US-KY": ["KY", "Ky"], "US-LA": ["LA", "La"], "US-ME": ["ME", "Me"], "US-MD": ["MD", "Md"],
    "US-MA": ["MA", "Mass"], "US-MI": ["MI", "Mich"], "US-MN": ["MN", "Minn"], "US-MS": ["MS", "Miss"],
    "US-MO": ["MO", "Mo"], "US-MT": ["MT", "Mont"], "US-NE": ["NE", "Neb", "Nebr"], "US-NV": ["NV", "Nev"],
    "US-NH": ["NH", "N.H"], "US-NJ": ["NJ", "N.J"], "US-NM": ["NM", "N.M"], "US-NY": ["NY", "N.Y"],
    "US-NC": ["NC", "N.C"], "US-ND": ["ND", "N.D"], "US-OH": ["OH"], "US-OK": ["OK", "Okla"],
    "US-OR": ["OR", "Ore", "Oreg"], "US-PA": ["PA", "Pa", "Penn", "Penna"], "US-RI": ["RI", "R.I"],
    "US-SC": ["SC", "S.C"], "US-SD": ["SD", "S.D"], "US-TN": ["TN", "Tenn"], "US-TX": ["TX", "Tex"],
    "US-UT": ["UT"], "US-VT": ["VT", "Vt"], "US-VA": ["VA", "Va"], "US-WA": ["WA", "Wash"],
    "US-WV": ["WV", "W.Va"], "US-WI": ["WI", "Wis", "Wisc"], "US-WY": ["WY", "Wyo"],
    "CA-AB": ["AB", "Alta"], "CA-BC": ["BC", "B.C"], "CA-MB": ["MB", "Man"], "CA-NB": ["NB", "N.B"],
    "CA-NL": ["NL", "Nfld"], "CA-NS": ["NS", "N.S"], "CA-ON": ["ON", "Ont"], "CA-PE": ["PE", "P.E.I"],
    "CA-QC": ["QC", "Que", "Qué"], "CA-SK": ["SK", "Sask"],
    "US": ["US", "USA", "U.S.A"], "GB": ["UK", "U.K"],
}  # fmt: skip
_LAW_ABBREVIATION = {a: code for code, names in LAW_ABBREVIATIONS.items() for a in names}
_KOREAN_ALIASES = {
    "KR": ["한국", "대한민국", "남한"],
    "US": ["미국", "미합중국"],
    "GB": ["영국"],
    "GB-ENG": ["잉글랜드"],
    "GB-SCT": ["스코틀랜드"],
    "CN": ["중국", "중화인민공화국"],
    "JP": ["일본"],
    "HK": ["홍콩"],
    "SG": ["싱가포르"],
    "TW": ["대만", "타이완"],
}
# Korean names of the US states (the National Institute of Korean Language's spelling); "뉴욕주" is added to each
_KOREAN_US_STATES = {
    "AL": "앨라배마", "AK": "알래스카", "AZ": "애리조나", "AR": "아칸소", "CA": "캘리포니아", "CO": "콜로라도",
    "CT": "코네티컷", "DE": "델라웨어", "FL": "플로리다", "GA": "조지아", "HI": "하와이", "ID": "아이다호",
    "IL": "일리노이", "IN": "인디애나", "IA": "아이오와", "KS": "캔자스", "KY": "켄터키", "LA": "루이지애나",
    "ME": "메인", "MD": "메릴랜드", "MA": "매사추세츠", "MI": "미시간", "MN": "미네소타", "MS": "미시시피",
    "MO": "미주리", "MT": "몬태나", "NE": "네브래스카", "NV": "네바다", "NH": "뉴햄프셔", "NJ": "뉴저지",
    "NM": "뉴멕시코", "NY": "뉴욕", "NC": "노스캐롤라이나", "ND": "노스다코타", "OH": "오하이오",
    "OK": "오클라호마", "OR": "오리건", "PA": "펜실베이니아", "RI": "로드아일랜드", "SC": "사우스캐롤라이나",
    "SD": "사우스다코타", "TN": "테네시", "TX": "텍사스", "UT": "유타", "VT": "버몬트", "VA": "버지니아",
    "WA": "워싱턴", "WV": "웨스트버지니아", "WI": "위스콘신", "WY": "와이오밍",
}  # fmt: skip
_KOREAN_LOANWORDS = {"메인"}  # a state's Korean name that is also an everyday word ("main"): only "메인주" names it
# a Korean city or province's formal suffix by its ISO type: 서울 -> 서울특별시, 제주도 -> 제주특별자치도
_KOREAN_FORMAL = {
    "Special city": "특별시",
    "Metropolitan city": "광역시",
    "Special self-governing city": "특별자치시",
    "Special self-governing province": "특별자치도",
}
_HANGUL = re.compile("[\uac00-\ud7a3]")
_INVERTED = re.compile(r"^(?P<head>.+), (?:The )?(?P<tail>.+? of(?: the)?)$")  # "Korea, Republic of"
OPENERS = "(\"'\u201c\u2018[{"  # punctuation that may open a word of a name, left out of it
CLOSERS = ")\"'\u201d\u2019]},;:!?."  # punctuation that may close one


def english_key(words: list[str]) -> str:
    """The lookup key of a run of words: each stripped of the punctuation around it, case-folded, joined by one
    space ("Washington, D.C." -> "washington d.c")."""
    return " ".join(w.strip(OPENERS).rstrip(CLOSERS).casefold().replace("\u2019", "'") for w in words)


def _country_name(c) -> str:
    """The name a legal text writes for an ISO 3166-1 country (see the module docstring)."""
    m = _INVERTED.match(c.name)
    if m:
        return f"{m.group('tail')} {m.group('head')}"
    return getattr(c, "common_name", None) or c.name


def _subdivision_name(s) -> str:
    name = re.sub(r"\s*\[.*\]$", "", s.name)  # "Wales [Cymru GB-CYM]"
    if s.country_code == "KR":  # romanised: "Seoul-teukbyeolsi" -> "Seoul"; provinces keep "-do"
        head, _, tail = name.partition("-")
        return name if tail == "do" else head
    return name


@functools.cache
def gazetteer() -> Gazetteer:
    """The gazetteer, built once per process from pycountry and the tables above."""
    import pycountry

    g = Gazetteer()
    ko_countries = gettext.translation("iso3166-1", pycountry.LOCALES_DIR, languages=["ko"], fallback=True)
    ko_subdivisions = gettext.translation("iso3166-2", pycountry.LOCALES_DIR, languages=["ko"], fallback=True)
    places = g.by_code
    for c in pycountry.countries:
        name = _country_name(c)
        places[c.alpha_2] = Place(name, name, "country", c.alpha_2)
    subdivisions = [s for cc in _SUBDIVIDED for s in pycountry.subdivisions.get(country_code=cc)]
    subdivisions += [pycountry.subdivisions.get(code=code) for code in _GB_NATIONS]
    for s in subdivisions:
        country = places[s.country_code].name
        places[s.code] = Place(_subdivision_name(s), country, _KINDS.get(s.type, "region"), s.code)
    uk = places["GB"].name
    places["GB-ENG+WLS"] = Place("England and Wales", uk, "region", "GB-ENG+WLS")

    def add(surface: str, code: str) -> None:
        if _HANGUL.search(surface):
            g.korean.setdefault(surface, places[code])
        elif surface:
            key = english_key(surface.split())
            g.english.setdefault(key, places[code])
            g.longest_english = max(g.longest_english, len(key.split()))

    # the United States' subdivisions first: "Georgia" is the state
    for code, place in places.items():
        if code.startswith("US-"):
            add(place.name, code)
    for code, names in _ENGLISH_ALIASES.items():
        for n in names:
            add(n, code)
    add("England and Wales", "GB-ENG+WLS")
    add("잉글랜드 및 웨일스", "GB-ENG+WLS")
    for code, names in _KOREAN_ALIASES.items():
        for n in names:
            add(n, code)
    for st, n in _KOREAN_US_STATES.items():
        add(n + "주", f"US-{st}")
        if n not in _KOREAN_LOANWORDS:
            add(n, f"US-{st}")
    for c in pycountry.countries:
        for n in (c.name, getattr(c, "official_name", ""), getattr(c, "common_name", ""), places[c.alpha_2].name):
            if n and "," not in n:
                add(n, c.alpha_2)
        head = c.name.split(",")[0]
        if "," in c.name and head != c.name:
            add(head, c.alpha_2)  # "Iran", "Tanzania"
        for n in (c.name, getattr(c, "official_name", "")):
            ko = ko_countries.gettext(n) if n else ""
            if ko != n and _HANGUL.search(ko) and "," not in ko:
                add(ko, c.alpha_2)
    for s in subdivisions:
        add(places[s.code].name, s.code)
        add(re.sub(r"\s*\[.*\]$", "", s.name), s.code)
        if s.country_code == "KR":
            base = places[s.code].name
            if base.endswith("-do"):
                add(base[:-3] + " Province", s.code)  # "Gyeonggi Province"
            ko = ko_subdivisions.gettext(s.name)
            if _HANGUL.search(ko):
                add(ko, s.code)
                if s.type in _KOREAN_FORMAL:
                    add(re.sub("[도시]$", "", ko) + _KOREAN_FORMAL[s.type], s.code)
    for surface in g.korean:
        g.korean_by_first.setdefault(surface[0], []).append(surface)
    for names in g.korean_by_first.values():
        names.sort(key=len, reverse=True)
    return g


def adjective_place(word: str, *, short_forms: bool = True) -> Place | None:
    """The place whose law a word before "law" names: an adjective ("English" -> England; "ENGLISH" and
    "english" too) or, with short_forms, a state's or province's short form as written ("DE", "Ill.", "Ont"),
    or None. A document's text reads short forms only with their period ("Del. law"): "OR LAW" in a heading
    in capitals is no Oregon."""
    word = word.strip()
    code = ADJECTIVES.get(word) or ADJECTIVES.get(word.title())
    if not code and short_forms:
        code = _LAW_ABBREVIATION.get(word.rstrip("."))
    return gazetteer().by_code.get(code) if code else None
