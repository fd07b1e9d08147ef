"""Corpus loading: extraction, decoding, skip reasons, doc ids, passages."""

from __future__ import annotations

import os
import random
import shutil
from pathlib import Path

import pytest
import wikigen.search.corpus as corpus_mod
from wikigen.search.corpus import Document, Skipped, doc_ids_for, load, load_corpus, scan_corpus
from wikigen.search.extract import ExtractError, decode_text, extract_bytes, html_to_text, title_from_text
from wikigen.search.passages import MAX_CHARS, overlong_tokens, split_passages

from wikigen.core.errors import CorpusError

FIXTURES = Path(__file__).parent / "fixtures" / "corpora"
MIXED = FIXTURES / "mixed"


@pytest.fixture(scope="module")
def mixed():
    docs, skipped = load_corpus(MIXED)
    return {d.doc_id: d for d in docs}, {s.path: s.reason for s in skipped}


# --- doc ids ---------------------------------------------------------------------------------------


def test_doc_ids_drop_the_extension_unless_two_files_collide():
    ids = doc_ids_for(["contracts/acme-msa.txt", "a.txt", "a.md", "b.html", "sub/b.md", "README"])
    assert ids == {
        "contracts/acme-msa.txt": "contracts/acme-msa",
        "a.txt": "a.txt",
        "a.md": "a.md",
        "b.html": "b",
        "sub/b.md": "sub/b",
        "README": "README",
    }


def test_doc_id_kept_extension_never_equals_another_files_id():
    ids = doc_ids_for(["x.txt", "x.md", "x.txt.md"])
    assert len(set(ids.values())) == 3


def test_fixture_corpus_ids_and_skip_reasons(mixed):
    docs, skipped = mixed
    assert set(docs) == {
        "contracts/acme-msa",
        "korean",
        "legacy/bom",
        "legacy/cp1252",
        "legacy/euckr",
        "notes/guide",
        "notes/page",
        "notes/plan.md",
        "notes/plan.txt",
        'odd names/it\'s a "quoted" ünïcødé name',
    }
    assert skipped == {
        "binary.txt": "binary file (contains NUL bytes)",
        "blank.md": "no text (empty or whitespace only)",
        "empty.txt": "empty file",
        "picture.png": "unsupported file type .png",
    }
    assert ".hidden.txt" not in skipped and not any("hidden" in d for d in docs)


def test_document_records_path_hash_size_and_keeps_crlf(mixed):
    docs, _ = mixed
    d = docs["contracts/acme-msa"]
    raw = (MIXED / "contracts" / "acme-msa.txt").read_bytes()
    assert d.path == "contracts/acme-msa.txt"
    assert d.text == raw.decode("utf-8") and "\r\n\r\n" in d.text  # line endings kept exactly
    assert d.size == len(raw)
    import hashlib

    assert d.sha256 == hashlib.sha256(raw).hexdigest()
    assert d.title == "Master Services Agreement"


def test_legacy_encodings_are_decoded_not_dropped(mixed):
    docs, _ = mixed
    cp = docs["legacy/cp1252"]
    assert cp.text.startswith("Café résumé: the naïve façade. “Smart quotes” cost €5 — a déjà vu for the señor.")
    assert cp.encoding == "cp1252"
    ko = docs["legacy/euckr"]
    assert ko.text.startswith("한국어 문서입니다.") and "한국어는 재미있습니다." in ko.text
    assert ko.encoding in ("cp949", "euc_kr")


def test_utf8_bom_is_removed(mixed):
    docs, _ = mixed
    assert docs["legacy/bom"].text == "Byte order mark first, then plain text.\n"


def test_html_text_title_and_no_scripts(mixed):
    docs, _ = mixed
    page = docs["notes/page"]
    assert page.title == "Release & notes"
    assert "The release adds phrase search and fixes crashes." in page.text
    for hidden in ("secretScript", "color:red", "enable javascript", "<b>", "Release & notes"):
        assert hidden not in page.text
    assert "- first item\n- second item" in page.text


def test_titles(mixed):
    docs, _ = mixed
    assert docs["notes/guide"].title == "Onboarding guide"  # markdown heading marks dropped
    assert docs["korean"].title == "한국어 노트 🙂"
    assert title_from_text("---\n\n=====\n  Real title  \n") == "Real title"
    long = "word " * 100
    t = title_from_text("\n\n  " + long)
    assert 60 < len(t) <= 121 and t.endswith("…")


@pytest.mark.parametrize(
    "text,encoding",
    [
        ("Le contrat peut être résilié moyennant un préavis écrit. Façade naïve, déjà vu.", "cp1252"),
        ("Die Kündigung des Vertrags erfolgt schriftlich. Größe, Übergabe, Äpfel.", "cp1252"),
        ("Fußball café ñandú", "latin-1"),
        ("계약 해지는 서면 통지로 합니다. 한국어는 재미있습니다.", "euc_kr"),
        ("日本語の文書です。契約は書面で解除できます。", "shift_jis"),
        ("Договор может быть расторгнут любой стороной с письменным уведомлением.", "cp1251"),
        ("UTF-16 with a byte order mark: 한국어", "utf-16"),
    ],
)
def test_decode_legacy_text_exactly(text, encoding):
    out, _ = decode_text(text.encode(encoding))
    assert out == text


def test_decode_keeps_crlf_and_lone_cr():
    assert decode_text(b"a\r\nb\rc\n")[0] == "a\r\nb\rc\n"


def test_extract_rejects_bad_inputs_with_reasons():
    with pytest.raises(ExtractError, match="binary"):
        extract_bytes(b"abc\x00def", ".txt")
    with pytest.raises(ExtractError, match="empty"):
        extract_bytes(b"", ".md")
    with pytest.raises(ExtractError, match="whitespace"):
        extract_bytes(b" \r\n\t ", ".txt")
    with pytest.raises(ExtractError, match="unsupported"):
        extract_bytes(b"data", ".xlsx")
    with pytest.raises(ExtractError, match="convert-to docx"):
        extract_bytes(b"data", ".doc")
    with pytest.raises(ExtractError, match="PDF"):
        extract_bytes(b"%PDF-1.4 this is not really a pdf", ".pdf")


def test_html_entities_blocks_and_pre():
    text, title = html_to_text(
        "<html><head><title> A  &lt;b&gt; </title></head><body><p>x&amp;y</p>"
        "<table><tr><td>a</td><td>b</td></tr></table><pre>k\n  v</pre></body></html>"
    )
    assert title == "A <b>"
    assert text == "x&y\n\na b\n\nk\n  v"


# --- files that cannot be used, made where git cannot hold them ------------------------------------


def _corpus(tmp_path: Path) -> Path:
    root = tmp_path / "corpus"
    root.mkdir()
    (root / "good.txt").write_text("A good document about otters.\n", encoding="utf-8")
    return root


def test_symlinks_loops_and_escapes_are_skipped(tmp_path):
    root = _corpus(tmp_path)
    outside = tmp_path / "secret.txt"
    outside.write_text("outside the corpus\n", encoding="utf-8")
    os.symlink(root / "loop-b.txt", root / "loop-a.txt")
    os.symlink(root / "loop-a.txt", root / "loop-b.txt")
    os.symlink(outside, root / "escape.txt")
    os.symlink(tmp_path, root / "escape-dir")
    os.symlink(root, root / "self-dir")  # a folder loop
    os.symlink(root / "missing.txt", root / "broken.txt")
    os.symlink(root / "good.txt", root / "alias.txt")  # inside the corpus: fine
    docs, skipped = load_corpus(root)
    reasons = {s.path: s.reason for s in skipped}
    assert reasons["loop-a.txt"] == "symlink loop" and reasons["loop-b.txt"] == "symlink loop"
    assert reasons["escape.txt"] == "symlink points outside the corpus"
    assert reasons["escape-dir"] == "symlink points outside the corpus"
    assert reasons["self-dir"].startswith("symlinked folder not followed")
    assert reasons["broken.txt"] == "broken symlink"
    assert sorted(d.doc_id for d in docs) == ["alias", "good"]
    assert all("outside the corpus" not in d.text for d in docs)


def test_size_limit_is_configurable(tmp_path):
    root = _corpus(tmp_path)
    (root / "huge.txt").write_text("lorem ipsum " * 20_000, encoding="utf-8")  # 240 KB
    docs, skipped = load_corpus(root, max_bytes=100_000)
    assert [d.doc_id for d in docs] == ["good"]
    assert skipped == [Skipped("huge.txt", "too large: 0.2 MB over the 0.1 MB limit")]
    docs, skipped = load_corpus(root)  # default 20 MB
    assert sorted(d.doc_id for d in docs) == ["good", "huge"] and skipped == []


@pytest.mark.skipif(os.geteuid() == 0, reason="root can read a chmod 000 file; covered by the monkeypatched test")
def test_unreadable_file_is_skipped_real_permissions(tmp_path):
    root = _corpus(tmp_path)
    p = root / "locked.txt"
    p.write_text("secret", encoding="utf-8")
    p.chmod(0)
    try:
        docs, skipped = load_corpus(root)
    finally:
        p.chmod(0o644)
    assert [d.doc_id for d in docs] == ["good"]
    assert skipped == [Skipped("locked.txt", "unreadable: permission denied")]


def test_unreadable_file_is_skipped(tmp_path, monkeypatch):
    root = _corpus(tmp_path)
    (root / "locked.txt").write_text("secret", encoding="utf-8")
    real_open = open

    def fake_open(path, *a, **kw):
        if str(path).endswith("locked.txt"):
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, *a, **kw)

    monkeypatch.setattr(corpus_mod, "open", fake_open, raising=False)
    docs, skipped = load_corpus(root)
    assert [d.doc_id for d in docs] == ["good"]
    assert skipped == [Skipped("locked.txt", "unreadable: permission denied")]


def test_pdf_text_and_metadata_title(tmp_path):
    fpdf = pytest.importorskip("fpdf")
    root = _corpus(tmp_path)
    pdf = fpdf.FPDF()
    pdf.set_title("Supply Agreement PDF")
    pdf.add_page()
    pdf.set_font("Helvetica", size=12)
    pdf.multi_cell(0, 8, "The supplier shall deliver the widgets within fourteen days.")
    pdf.add_page()
    pdf.multi_cell(0, 8, "Second page: the buyer pays on delivery.")
    pdf.output(str(root / "supply.pdf"))
    (root / "scanned.pdf").write_bytes(_blank_pdf())
    docs, skipped = load_corpus(root)
    d = {x.doc_id: x for x in docs}["supply"]
    assert d.title == "Supply Agreement PDF"
    assert "deliver the widgets within fourteen days" in d.text
    assert d.text.index("fourteen") < d.text.index("Second page")
    assert skipped == [Skipped("scanned.pdf", "no extractable text (a scanned PDF?)")]


def _blank_pdf() -> bytes:
    fpdf = pytest.importorskip("fpdf")
    pdf = fpdf.FPDF()
    pdf.add_page()
    return bytes(pdf.output())


def test_corrupt_pdf_and_undecodable_are_skipped_not_raised(tmp_path):
    root = _corpus(tmp_path)
    (root / "broken.pdf").write_bytes(b"%PDF-1.7\n1 0 obj garbage")
    (root / "noise.txt").write_bytes(bytes(range(1, 9)) * 200)  # control characters: not text
    docs, skipped = load_corpus(root)
    reasons = {s.path: s.reason for s in skipped}
    assert [d.doc_id for d in docs] == ["good"]
    assert reasons["broken.pdf"].startswith("unreadable PDF")
    assert reasons["noise.txt"].startswith("binary file")


def test_scan_reads_nothing_and_load_never_raises(tmp_path, monkeypatch):
    root = _corpus(tmp_path)
    (root / "other.md").write_text("# Other\n", encoding="utf-8")
    monkeypatch.setattr(corpus_mod, "open", lambda *a, **k: pytest.fail("scan must not read files"), raising=False)
    scan = scan_corpus(root)
    assert [(f.doc_id, f.path) for f in scan.files] == [("good", "good.txt"), ("other", "other.md")]
    monkeypatch.undo()
    (root / "good.txt").unlink()  # vanished between scan and load
    r = load(scan.files[0])
    assert isinstance(r, Skipped) and r.reason.startswith("unreadable")
    assert isinstance(load(scan.files[1]), Document)


def test_missing_corpus_is_a_corpus_error(tmp_path):
    with pytest.raises(CorpusError, match="does not exist"):
        scan_corpus(tmp_path / "nope")
    f = tmp_path / "file.txt"
    f.write_text("x")
    with pytest.raises(CorpusError, match="not a folder"):
        scan_corpus(f)


def test_excluded_folder_is_not_scanned(tmp_path):
    root = _corpus(tmp_path)
    (root / "idx").mkdir()
    (root / "idx" / "t.txt").write_text("index internals\n")
    assert [f.doc_id for f in scan_corpus(root, exclude=[root / "idx"]).files] == ["good"]
    assert [f.doc_id for f in scan_corpus(root).files] == ["good", "idx/t"]


def test_copied_fixture_with_unicode_and_space_names(tmp_path):
    dst = tmp_path / "c o r p u s ü"
    shutil.copytree(MIXED / "odd names", dst / "odd names")
    docs, skipped = load_corpus(dst)
    assert [d.doc_id for d in docs] == ['odd names/it\'s a "quoted" ünïcødé name'] and skipped == []


# --- passages ----------------------------------------------------------------------------------------


def _check_passages(text: str, spans: list[tuple[int, int]], max_chars: int = MAX_CHARS) -> None:
    pos = 0
    for s, e in spans:
        assert pos <= s < e <= len(text)
        assert text[pos:s].strip() == ""  # only whitespace left out between passages
        assert not text[s].isspace() and not text[e - 1].isspace()
        assert e - s <= max_chars
        pos = e
    assert text[pos:].strip() == ""


def _random_text(rng: random.Random, n_words: int) -> str:
    words = ["alpha", "beta", "gamma", "delta", "Section", "12.2(b)", "notice.", "days;", "U.S.", "한국어는", "😀"]
    out = []
    for _ in range(n_words):
        out.append(rng.choice(words))
        out.append(rng.choice([" ", " ", " ", "\n", "\r\n", "\n\n", "\r\n\r\n", ". ", "\t", "  \n \n"]))
    return "".join(out)


def test_passages_cover_the_text_without_overlap():
    rng = random.Random(3)
    for _i in range(60):
        text = _random_text(rng, rng.randint(0, 2000))
        _check_passages(text, split_passages(text))


def test_passages_prefer_paragraphs_then_sentences_then_spaces():
    para = ("word " * 180).strip() + "."  # 899 chars
    text = para + "\n\n" + para + "\n\n" + para
    spans = split_passages(text)
    assert [text[s:e] for s, e in spans] == [para, para, para]
    sentences = " ".join(["This is a sentence of some length that ends here."] * 40)
    spans = split_passages(sentences)
    _check_passages(sentences, spans)
    assert all(sentences[e - 1] == "." for s, e in spans)
    assert all(800 <= e - s <= 1200 for s, e in spans[:-1])
    words = " ".join(["lorem"] * 600)
    spans = split_passages(words)
    _check_passages(words, spans)
    assert all(words[s:e].split() == ["lorem"] * len(words[s:e].split()) for s, e in spans)


def test_passages_hard_cut_text_without_spaces_and_keep_crlf_pairs():
    cjk = "가" * 3000
    spans = split_passages(cjk)
    assert spans == [(0, 1200), (1200, 2400), (2400, 3000)]
    assert split_passages("") == [] and split_passages(" \r\n\t") == []
    assert split_passages("  x  ") == [(2, 3)]


def test_a_token_longer_than_a_passage_is_in_none_but_a_run_of_cjk_is_cut():
    word = "x" * (MAX_CHARS + 1)
    text = f"Before it.\n{word} after it.\n{'y' * MAX_CHARS}"
    assert overlong_tokens(text) == [(11, 11 + len(word))]
    spans = split_passages(text)
    _check_passages(text.replace(word, " " * len(word)), spans)  # the rest is covered, as ever
    assert text[slice(*spans[0])] == "Before it." and all(s > 11 + len(word) for s, _ in spans[1:])
    for run in ("가" * 3000, "中文" * 1500, "ภาษาไทย" * 400, "abc" + "한" * 2000):  # scripts without spaces
        assert overlong_tokens(run) == [] and sum(e - s for s, e in split_passages(run)) == len(run)


def test_passages_on_fixture_texts_are_exact(mixed):
    docs, _ = mixed
    for d in docs.values():
        _check_passages(d.text, split_passages(d.text))
