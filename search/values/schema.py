"""The fields a document of each kind has: schemas shipped as YAML files, extendable by the user.

A schema names a document kind (contract, periodic-report, policy), how a document of that kind is
recognised (words of its title), and its fields: each a name, a label, a value type and the signals that
find the sentence stating it (see the comment at the top of schemas/contract.yaml for every key). The shipped
schemas are `schemas/*.yaml` beside this module; a wiki may hold more in `WIKI/schemas/*.yaml`: a file of a
shipped kind adds fields to it or replaces fields of the same name, a file of a new kind adds that kind.
No code changes to add a field.

    schemas = load_schemas(wiki_root / "schemas")
    schemas["contract"].field("governing_law").signals.phrases  -> ("governed by", "governing law", ...)

Signals are compiled once into regular expressions (`Field.rx(...)`): a phrase matches whole words, case
insensitive, any run of whitespace between its words; a phrase ending in "*" matches any word ending
("terminat*"); a phrase in an uncased script (Korean) matches inside a word, since particles attach to it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path

import yaml
from wikigen.search.facts.sheet import FACT_ROLES

from wikigen.core.errors import SchemaError

__all__ = [
    "PRESENCE",
    "SHIPPED",
    "TYPES",
    "Field",
    "Schema",
    "Signals",
    "load_schemas",
    "no_field_questions",
    "phrase_regex",
    "user_schemas",
    "vocabulary",
]

SHIPPED = Path(__file__).resolve().parent / "schemas"
TYPES = frozenset({"date", "duration", "money", "percentage", "jurisdiction", "party", "term", "presence", "figures"})
PRESENCE = "presence"
_SIGNAL_KEYS = ("phrases", "headings", "not", "avoid", "after", "before", "not_after", "requires", "also")
_FIELD_KEYS = {
    "name",
    "label",
    "type",
    "group",
    "signals",
    "value",
    "ask",
    "source",
    "fallback",
    "from",
    "needs_cue",
    "facts",
    "qualifiers",
    "about",
    "examples",
}
SOURCES = frozenset({"opening"})  # a value the document states about itself where it opens (its own date, its parties)
_NAME = re.compile(r"^[a-z][a-z0-9_]{0,40}$")
_UNCASED = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")


def phrase_regex(phrases: Iterable[str]) -> re.Pattern | None:
    """One pattern matching any of the phrases (see the module docstring); None for no phrase. The longest
    phrase is tried first. The cased phrases share one word-start lookbehind, tested once a position rather
    than once a phrase: the same matches, read 3.5 times faster (a field's phrases are searched in every
    document's whole text)."""
    cased, uncased = [], []
    for p in sorted({p.strip() for p in phrases if p and p.strip()}, key=len, reverse=True):
        stem = p.endswith("*")
        words = p.rstrip("*").split()
        body = r"\s+".join(re.escape(w) for w in words) + (r"\w*" if stem else "")
        if _UNCASED.search(p):
            uncased.append(body)
        else:
            cased.append(body + ("" if stem else r"(?![\w-])"))
    alts = ([r"(?<![\w-])(?:" + "|".join(cased) + ")"] if cased else []) + uncased
    return re.compile("|".join(alts), re.I) if alts else None


@dataclass(frozen=True)
class Signals:
    phrases: tuple[str, ...] = ()
    headings: tuple[str, ...] = ()
    not_: tuple[str, ...] = ()
    avoid: tuple[str, ...] = ()
    after: tuple[str, ...] = ()
    before: tuple[str, ...] = ()
    not_after: tuple[str, ...] = ()
    requires: tuple[str, ...] = ()
    also: tuple[str, ...] = ()


@dataclass(frozen=True)
class Field:
    name: str
    label: str
    type: str
    group: str = "main"
    signals: Signals = field(default_factory=Signals)
    value: str | None = None  # a presence field's value type (a cap's amount), or None
    ask: tuple[str, ...] = ()  # more words a question uses to name it
    source: str | None = None  # "opening": the value the document states of itself where it opens
    fallback: str | None = None  # another date field this one equals when the document says it takes effect on signing
    start_from: str | None = None  # a term's duration runs from this date field (its end date is computed)
    needs_cue: bool = False  # only a value following an `after` word or preceding a `before` word is this field's
    facts: tuple[str, ...] = ()  # the key facts (`wikigen.search.facts.sheet.FACT_ROLES`) this field states too
    # (label, phrases, not): a stated value whose sentence holds one of the phrases, and none of `not`, is said
    # with the label ("successive 1 year (by mutual agreement, not automatic)")
    qualifiers: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = ()
    # what the field is, in a sentence, and questions that ask for it in everyday words: a question is matched to
    # a field by meaning too (wikigen.ask.meaning), so "when does it end?" finds the expiration
    about: str = ""
    examples: tuple[str, ...] = ()

    @property
    def needs(self) -> tuple[str, ...]:
        """The other fields this one's value is made from (computed first)."""
        return tuple(n for n in (self.fallback, self.start_from) if n)

    @property
    def value_type(self) -> str | None:
        """The type of the value a cell of this field holds (None: a yes/no presence with its clause)."""
        return self.value if self.type == PRESENCE else self.type

    def rx(self, which: str) -> re.Pattern | None:
        """The compiled signal list `which` (phrases, headings, not_, after, before, requires, also, ask), compiled
        once per field object and kept on it (a cache keyed by id() would hand a new field the patterns of a
        collected one that had the same id)."""
        compiled = self._compiled
        if which not in compiled:
            words: Iterable[str] = (self.label, *self.ask) if which == "ask" else getattr(self.signals, which)
            compiled[which] = phrase_regex(words)
        return compiled[which]

    @cached_property
    def qualifier_rx(self) -> tuple[tuple[str, re.Pattern | None, re.Pattern | None], ...]:
        """(label, phrases, not) of each qualifier, compiled once per field object."""
        return tuple((label, phrase_regex(ps), phrase_regex(ns)) for label, ps, ns in self.qualifiers)

    @cached_property
    def _compiled(self) -> dict[str, re.Pattern | None]:
        return {}


@dataclass(frozen=True)
class Schema:
    kind: str
    label: str
    title_words: tuple[str, ...] = ()
    fields: tuple[Field, ...] = ()
    source: str = ""  # the file(s) it was read from

    def field(self, name: str) -> Field | None:
        return next((f for f in self.fields if f.name == name), None)

    @cached_property
    def title_rx(self) -> re.Pattern | None:
        return phrase_regex(self.title_words)

    def extended(self, other: Schema) -> Schema:
        """This schema with the other's fields added (a field of the same name replaced) and its title words."""
        names = {f.name for f in other.fields}
        fields = tuple(f for f in self.fields if f.name not in names) + other.fields
        words = tuple(dict.fromkeys(self.title_words + other.title_words))
        return replace(self, fields=fields, title_words=words, source=f"{self.source}; {other.source}")


def _strings(value, where: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and all(isinstance(v, (str, int, float)) for v in value):
        return tuple(str(v) for v in value)
    raise SchemaError(f"{where}: expected a list of words, got {value!r}")


def _field(raw, where: str) -> Field:
    if not isinstance(raw, Mapping):
        raise SchemaError(f"{where}: a field is a mapping with name, label and type")
    unknown = set(raw) - _FIELD_KEYS
    if unknown:
        raise SchemaError(f"{where}: unknown keys {sorted(unknown)} (a field has {sorted(_FIELD_KEYS)})")
    name = str(raw.get("name", ""))
    if not _NAME.match(name):
        raise SchemaError(f"{where}: field name {name!r} must be lower-case letters, digits and _")
    where = f"{where} ({name})"
    ftype = str(raw.get("type", ""))
    if ftype not in TYPES:
        raise SchemaError(f"{where}: type {ftype!r} is not one of {', '.join(sorted(TYPES))}")
    value = raw.get("value")
    if value is not None and (ftype != PRESENCE or value not in TYPES - {PRESENCE, "figures", "term"}):
        raise SchemaError(f"{where}: `value` names the value type of a presence field (e.g. money)")
    sig = raw.get("signals") or {}
    if not isinstance(sig, Mapping) or set(sig) - set(_SIGNAL_KEYS):
        raise SchemaError(f"{where}: signals is a mapping of {', '.join(_SIGNAL_KEYS)}")
    signals = Signals(
        **{("not_" if k == "not" else k): _strings(sig.get(k), f"{where} signals.{k}") for k in _SIGNAL_KEYS}
    )
    if ftype not in ("figures",) and not (signals.phrases or signals.headings) and not raw.get("source"):
        raise SchemaError(f"{where}: a field needs signals (phrases or headings) to be found")
    source = raw.get("source")
    if source is not None and source not in SOURCES:
        raise SchemaError(f"{where}: source {source!r} is not one of {', '.join(sorted(SOURCES))}")
    fallback, start = raw.get("fallback"), raw.get("from")
    if fallback is not None and ftype != "date":
        raise SchemaError(f"{where}: `fallback` (another date field) is for a date field")
    if start is not None and ftype != "term":
        raise SchemaError(f"{where}: `from` (the date field a term runs from) is for a term field")
    facts = _strings(raw.get("facts"), f"{where} facts")
    if set(facts) - FACT_ROLES:
        raise SchemaError(
            f"{where}: facts {sorted(set(facts) - FACT_ROLES)} are not key facts ({', '.join(sorted(FACT_ROLES))})"
        )
    qualifiers = []
    for i, q in enumerate(raw.get("qualifiers") or []):
        if not isinstance(q, Mapping) or not q.get("label") or set(q) - {"label", "phrases", "not"}:
            raise SchemaError(f"{where}: qualifiers[{i}] is a mapping of label, phrases and not")
        phrases = _strings(q.get("phrases"), f"{where} qualifiers[{i}].phrases")
        if not phrases:
            raise SchemaError(f"{where}: qualifiers[{i}] needs phrases")
        qualifiers.append((str(q["label"]), phrases, _strings(q.get("not"), f"{where} qualifiers[{i}].not")))
    label = str(raw.get("label") or name.replace("_", " ").capitalize())
    return Field(
        name,
        label,
        ftype,
        str(raw.get("group") or "main"),
        signals,
        value,
        _strings(raw.get("ask"), where),
        str(source) if source else None,
        str(fallback) if fallback else None,
        str(start) if start else None,
        bool(raw.get("needs_cue", False)),
        facts,
        tuple(qualifiers),
        about=str(raw.get("about") or ""),
        examples=_strings(raw.get("examples"), f"{where} examples"),
    )


def read_schema(path: Path) -> Schema:
    """One schema file. SchemaError (naming the file and the field) when it cannot be used."""
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as e:
        raise SchemaError(f"{path}: cannot read the schema: {e}") from None
    if not isinstance(raw, Mapping) or not raw.get("kind"):
        raise SchemaError(f"{path}: a schema is a mapping with `kind`, `label`, `recognise` and `fields`")
    kind = str(raw["kind"])
    if not re.match(r"^[a-z][a-z0-9-]{0,40}$", kind):
        raise SchemaError(f"{path}: kind {kind!r} must be lower-case letters, digits and -")
    fields = raw.get("fields") or []
    if not isinstance(fields, list):
        raise SchemaError(f"{path}: `fields` is a list")
    parsed = tuple(_field(f, f"{path} field {i + 1}") for i, f in enumerate(fields))
    dup = {f.name for f in parsed if sum(g.name == f.name for g in parsed) > 1}
    if dup:
        raise SchemaError(f"{path}: field names repeat: {sorted(dup)}")
    names = {f.name for f in parsed}
    for f in parsed:
        missing = [n for n in f.needs if n not in names]
        if missing:
            raise SchemaError(f"{path} field {f.name}: names fields the schema does not have: {missing}")
    recognise = raw.get("recognise") or {}
    title = _strings(recognise.get("title") if isinstance(recognise, Mapping) else None, f"{path} recognise.title")
    return Schema(kind, str(raw.get("label") or kind), title, parsed, str(path))


def user_schemas(wiki_root: Path | None) -> Path | None:
    """The folder of a wiki's own schema files (WIKI/schemas), or None when it has none."""
    if wiki_root is None:
        return None
    folder = Path(wiki_root) / "schemas"
    return folder if folder.is_dir() else None


def load_schemas(extra: Path | None = None) -> dict[str, Schema]:
    """The shipped schemas, each extended by the user's file of the same kind in `extra`, plus the user's new kinds."""
    out = {s.kind: s for s in (read_schema(p) for p in sorted(SHIPPED.glob("*.yaml")))}
    if extra is not None and Path(extra).is_dir():
        for p in sorted(Path(extra).glob("*.yaml")):
            if p.is_symlink() or not p.is_file():
                continue
            s = read_schema(p)
            out[s.kind] = out[s.kind].extended(s) if s.kind in out else s
    return out


NO_FIELD = "no-field-questions.txt"  # questions no field answers: one per line, beside the schemas


def no_field_questions(extra: Path | None = None) -> tuple[str, ...]:
    """Questions about documents that no field answers (payment terms, a warranty, a quarter's revenue): the
    "none" class of the classifier that matches a question to a field by meaning (wikigen.ask.meaning); the
    shipped ones, then those of `extra`/no-field-questions.txt (a wiki's schemas folder), one per line."""
    out: list[str] = []
    for folder in (SHIPPED, extra):
        path = Path(folder) / NO_FIELD if folder is not None else None
        if path is not None and path.is_file():
            out += [q.strip() for q in path.read_text(encoding="utf-8").splitlines() if q.strip()]
    return tuple(dict.fromkeys(out))


def vocabulary(schemas: Iterable[Schema]) -> tuple[frozenset[str], tuple[str, ...]]:
    """The schemas' own words: (whole words, stems of the words written with a trailing "*"), casefolded, from
    every kind's label and title words and every field's label, `ask` words and signals. The words a domain
    uses for its kinds and provisions ("contract", "계약서", "준거법"), which name no one document."""
    words: set[str] = set()
    stems: set[str] = set()
    for schema in schemas:
        texts = [schema.kind, schema.label, *schema.title_words]
        for f in schema.fields:
            sig = f.signals
            texts += [f.label, *f.ask, *sig.phrases, *sig.headings, *sig.also, *sig.requires]
        for w in " ".join(texts).casefold().replace("-", " ").split():
            (stems if w.endswith("*") else words).add(w.rstrip("*"))
    return frozenset(w for w in words if w), tuple(sorted(s for s in stems if s))
