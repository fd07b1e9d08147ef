"""Fields by meaning: the schema field a question asks for, found by the sentence encoder when its words name none.

A schema field may say what it is (`about`) and give questions that ask for it in everyday words (`examples`:
"When does the agreement end?" asks for the expiration, though it holds none of the field's words). With the
questions that ask no field (`no_field_questions`, shipped beside the schemas: payment terms, a warranty, a
quarter's revenue) they train a small classifier over the encoder's vectors: softmax regression, one class per
field name and one for "no field". A question's clause (without the words that named its documents) is encoded
once; the clause asks for the field the classifier gives at least `field_confidence` (RetrievalParams), else for
none, and passages answer: a wrong field is worse than none. `bench/field_meaning_bench.py` measures precision
and recall by cross-validation over the examples and chooses the bar for precision first.

The model is trained where it is used, from the schemas the wiki reads (so a field a user adds with its examples
is heard too), once: it is kept on the object, for the process and on disk (the wiki's state folder), under a key
made of the encoder's name, the texts and the training settings (the bench times encoding and training).
The words come first (wikigen.ask.values matches the field's label and `ask` phrases); the meaning is asked only
when no clause's words name a field. A text the encoder cannot read (its tokenizer knows no Korean) is matched by
its words alone.
"""

from __future__ import annotations

import hashlib
import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from wikigen.core import confine
from wikigen.core.atomic import atomic_write_bytes
from wikigen.core.errors import WikigenError
from wikigen.search.values.schema import Field

log = logging.getLogger(__name__)

# The classifier's training, a model's definition rather than per-question tuning (bench/field_meaning_bench.py
# measures the model it makes): vectors scaled to unit variance per dimension (x sqrt(dim)), full-batch gradient
# descent from zero, so the same texts always train the same weights.
STEPS = 300  # training: full-batch gradient steps
STEP_SIZE = 1.0  # training: the step's size on the scaled vectors
L2 = 0.01  # training: the weights' L2 penalty (keeps 24 examples a field from being learned by heart)
FORMAT = 1  # format version of the cached model file
NONE = "(none)"  # the class of a question no field answers

_MODELS: dict[str, tuple[np.ndarray, np.ndarray]] = {}  # by key: the process trains each model once
_LOCK = threading.Lock()


def field_texts(f: Field) -> tuple[str, ...]:
    """The texts a field is known by, by meaning: its description and example questions."""
    return tuple(t for t in (f.about, *f.examples) if t.strip())


def softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


def train(x: np.ndarray, y: np.ndarray, classes: int) -> tuple[np.ndarray, np.ndarray]:
    """Softmax regression of labels y (0..classes-1) on unit vectors x: the weights and biases (see STEPS)."""
    x = np.asarray(x, dtype=np.float32) * np.float32(np.sqrt(x.shape[1]))
    onehot = np.eye(classes, dtype=np.float32)[y]
    w = np.zeros((x.shape[1], classes), dtype=np.float32)
    b = np.zeros(classes, dtype=np.float32)
    for _ in range(STEPS):
        g = (softmax(x @ w + b) - onehot) / len(x)
        w -= STEP_SIZE * (x.T @ g + L2 * w)
        b -= STEP_SIZE * g.sum(axis=0)
    return w, b


def predict(w: np.ndarray, b: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Class probabilities of unit vectors x (one row each)."""
    return softmax((np.asarray(x, dtype=np.float32) * np.float32(np.sqrt(w.shape[0]))) @ w + b)


@dataclass(frozen=True)
class Sense:
    kind: str
    field: Field
    confidence: float  # the classifier's probability of the field


class FieldMeanings:
    """The fields of the given kinds that say what they mean, matched to a question's clause by meaning.

    encoder: has `encode(texts) -> unit vectors` and a `name` (wikigen.search.dense.encoder); query_vector: the
    clause's vector, or None when the encoder cannot read it (DenseSearcher.query_vector); negatives: questions
    that ask no field; cache_dir: where the trained model is kept (None: the process only)."""

    def __init__(
        self,
        fields: Sequence[tuple[str, Field]],
        encoder,
        query_vector: Callable[[str], np.ndarray | None],
        negatives: Sequence[str] = (),
        cache_dir: Path | None = None,
    ):
        self.fields = [(k, f) for k, f in fields if field_texts(f)]
        self.encoder = encoder
        self.query_vector = query_vector
        self.negatives = tuple(n for n in negatives if n.strip())
        self.cache_dir = cache_dir
        # fields of one name in two kinds (a contract's and a policy's effective date) mean one thing: one class,
        # asked of the first kind that has it
        self.names = [*dict.fromkeys(f.name for _, f in self.fields), NONE]
        self._first = {f.name: (k, f) for k, f in reversed(self.fields)}
        self._model: tuple[np.ndarray, np.ndarray] | None = None  # trained or read on the first question

    def examples(self) -> tuple[list[str], np.ndarray]:
        """The training texts and their classes (indices into `names`)."""
        at = {n: i for i, n in enumerate(self.names)}
        texts = [t for _, f in self.fields for t in field_texts(f)] + list(self.negatives)
        labels = [at[f.name] for _, f in self.fields for _ in field_texts(f)] + [at[NONE]] * len(self.negatives)
        return texts, np.asarray(labels, dtype=np.int64)

    def _key(self, texts: Sequence[str]) -> str:
        h = hashlib.sha256(f"{FORMAT} {STEPS} {STEP_SIZE} {L2} {getattr(self.encoder, 'name', '')}".encode())
        for n in self.names:
            h.update(b"\x00n" + n.encode())
        for t in texts:
            h.update(b"\x00t" + t.encode())
        return h.hexdigest()[:24]

    def model(self) -> tuple[np.ndarray, np.ndarray]:
        """The trained weights and biases: this object's, else the process's, else the disk's, else trained now
        (and kept in all three)."""
        if self._model is not None:
            return self._model
        texts, labels = self.examples()
        key = self._key(texts)
        with _LOCK:
            got = _MODELS.get(key) or self._read(key)
            if got is None:
                got = train(np.asarray(self.encoder.encode(texts), dtype=np.float32), labels, len(self.names))
                self._write(key, got)
            _MODELS[key] = got
        self._model = got
        return got

    def _read(self, key: str) -> tuple[np.ndarray, np.ndarray] | None:
        path = self.cache_dir / f"fields-{key}.npz" if self.cache_dir is not None else None
        if path is None or not path.is_file():
            return None
        try:
            with np.load(path) as z:
                return z["w"], z["b"]
        except (OSError, ValueError, KeyError) as e:  # a damaged cache is trained again
            log.debug("field model cache unreadable (%s): %s", path, e)
            return None

    def _write(self, key: str, model: tuple[np.ndarray, np.ndarray]) -> None:
        if self.cache_dir is None:
            return
        try:
            folder = confine.make_dirs(self.cache_dir)
            for old in folder.glob("fields-*.npz"):  # one model per wiki: an older schema's goes
                confine.remove(old)
            atomic_write_bytes(folder / f"fields-{key}.npz", lambda f: np.savez(f, w=model[0], b=model[1]))
        except (
            OSError,
            WikigenError,
        ) as e:  # a read-only wiki (or a state folder linked out of it) is answered all the same; the model is trained again next time
            log.debug("field model not cached (%s): %s", self.cache_dir, e)

    def sense(self, text: str) -> Sense | None:
        """The field the classifier finds likeliest for the text, with its probability; None when it finds no
        field likelier than "none", when no field says what it means or the encoder cannot read the text."""
        if not self.fields or not text.strip():
            return None
        q = self.query_vector(text)
        if q is None:
            return None
        w, b = self.model()
        p = predict(w, b, np.asarray(q, dtype=np.float32)[None, :])[0]
        top = int(p.argmax())
        if self.names[top] == NONE:
            return None
        kind, f = self._first[self.names[top]]
        return Sense(kind, f, float(p[top]))

    def match(self, text: str, confidence: float) -> Sense | None:
        """The field the text asks for by meaning, when the classifier gives it at least `confidence`."""
        s = self.sense(text)
        return s if s is not None and s.confidence >= confidence else None
