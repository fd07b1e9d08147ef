"""Typed values in text: dates, durations, money, percentages, jurisdictions and parties, each with the exact
character span of its words, a canonical form to group and compare by, and its typed parts.

    from wikigen.search.values import Value, find_values, parse_value, compare_key
    find_values("renews for successive one-year terms", "duration")[0].display  -> "successive 1 year"
    parse_value("governed by Delaware law", "jurisdiction").norm                 -> "Delaware"
    compare_key(parse_value("ninety days", "duration"))                          -> 90.0

Pure functions over text, English and Korean, the grammar of each type and no corpus vocabulary. They reuse
`wikigen.search.facts` (the one date, amount, percentage, duration and party rules); this package adds the
typed form (units and days, currency and amount, precision, succession, roles) and jurisdictions.

value.py         Value, TYPES, compare_key
parse.py         find_values, parse_value: the entry by type name
dates.py         date values with precision (day, month, year)
durations.py     duration values: unit, days, successive
money.py         amounts with currency; multiples of fees
percentages.py   percentage values
places.py        the gazetteer of jurisdictions (pycountry's ISO 3166 data and Korean names)
jurisdictions.py jurisdiction values
parties.py       party values with their roles
schema.py        a document kind's fields (schemas/*.yaml, extended by WIKI/schemas/*.yaml); its TYPES are the
                 field types, these value types and the presence, term and figures fields
"""

from wikigen.search.values.parse import find_values, parse_value
from wikigen.search.values.value import TYPES, Value, compare_key

__all__ = ["TYPES", "Value", "compare_key", "find_values", "parse_value"]
