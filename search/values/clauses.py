"""Which sentences state a provision: a small learned model per presence field, over a sentence's words.

A presence field ("Can the contract be terminated for convenience?") is "Yes" only where a clause grants,
restricts or obliges; a word appearing is not enough (a heading "for convenience of reference only", a
definition, a recital, a cross-reference). The schema's signal phrases find candidate sentences with high
recall; this model says how likely a sentence is to be such a clause, learned from labelled contracts:

    model = ClauseModel.shipped()                 # None when no weights are shipped
    scores = model.scores(doc_sentences, "exclusivity")   # one probability per sentence

Features are a sentence's lower-cased words and word pairs, and the words of the section heading it stands
under ("h:" + word), all looked up in the shipped vocabulary (`FEATURES`); the model is a logistic regression
per field. It is trained by `bench/train_clauses.py` on CUAD (CC BY 4.0, The Atticus Project) and evaluated
there by cross-validation across documents, never on a contract it was trained on; the thresholds it ships
(per field: `stated` for precision first, `possible` below it) come from that cross-validation.
Text the model cannot read (a sentence with few words of its vocabulary, such as Korean) gets no score (None):
the schema's rule decides there, as before.
"""

from __future__ import annotations

import gzip
import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from itertools import pairwise
from pathlib import Path

from wikigen.core.sentences import heading_like

__all__ = ["MODEL_PATH", "ClauseModel", "section_headings", "sentence_features"]

MODEL_PATH = Path(__file__).parent / "models" / "clauses.json.gz"
HEADING_LINE = 100  # a sentence's first line is its section's heading when heading-like and at most this long
MIN_KNOWN = 3  # a sentence with fewer known words than this is text the model cannot read: no score

_WORD = re.compile(r"[^\W_]+")


def section_headings(text: str, sents: Sequence[tuple[int, int]]) -> list[str]:
    """For each sentence, the heading of the section it stands under: the first line of the latest sentence
    (itself included) whose first line is heading-like ("12. Governing Law."), else ""."""
    out, current = [], ""
    for s, e in sents:
        nl = text.find("\n", s, e)
        first = text[s : nl if nl >= 0 else e].strip()
        if first and len(first) <= HEADING_LINE and heading_like(first) and any(c.isalpha() for c in first):
            current = first
        out.append(current)
    return out


def sentence_features(sentence: str, heading: str) -> list[str]:
    """A sentence's features: its words, its word pairs ("a|b"), its heading's words ("h:word")."""
    words = [w.casefold() for w in _WORD.findall(sentence) if not w.isdigit()]
    feats = words + [f"{a}|{b}" for a, b in pairwise(words)]
    feats += ["h:" + w.casefold() for w in _WORD.findall(heading) if not w.isdigit()]
    return sorted(set(feats))


@dataclass(frozen=True)
class ClauseModel:
    """Per field ("contract/exclusivity"): a bias, a weight per known feature, the weight of being a candidate of
    the schema's signals, and the thresholds of a stated and a possible cell."""

    vocab: dict[str, int]  # feature -> row
    fields: dict[str, dict]  # field -> {"bias", "weights": {row: w}, "stated", "possible", ...}
    meta: dict

    @classmethod
    def load(cls, path: Path) -> ClauseModel:
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            raw = json.load(fh)
        vocab = {f: i for i, f in enumerate(raw["features"])}
        fields = {
            name: {**spec, "weights": {int(k): float(v) for k, v in spec["weights"].items()}}
            for name, spec in raw["fields"].items()
        }
        return cls(vocab, fields, raw.get("meta", {}))

    @staticmethod
    @cache
    def shipped() -> ClauseModel | None:
        return ClauseModel.load(MODEL_PATH) if MODEL_PATH.is_file() else None

    def knows(self, field: str) -> bool:
        return field in self.fields

    def threshold(self, field: str, which: str) -> float:
        return float(self.fields[field][which])

    def rows(self, feats: Sequence[str]) -> list[int]:
        return [r for f in feats if (r := self.vocab.get(f)) is not None]

    def score(self, field: str, rows: Sequence[int], *, candidate: bool = False) -> float | None:
        """The probability that a sentence with these feature rows states the field (`candidate`: the schema's
        signals make it one); None when too few of its words are known to read it."""
        if len(rows) < MIN_KNOWN:
            return None
        spec = self.fields[field]
        w = spec["weights"]
        z = spec["bias"] + sum(w.get(r, 0.0) for r in rows)
        if candidate:
            z += spec.get("candidate", 0.0)
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))
