"""wikigen.core.sentences: the one sentence-boundary rule used by passages, quotes and answers."""

from wikigen.core.sentences import SENTENCE, boundaries, cap_span, sentence_span, sentences


def test_sentences_are_whole_and_short_pieces_join_the_next():
    text = "7.3 Audit.  Orion may audit Beta's records once per year on thirty days' notice. Beta shall keep the records for at least six full years.\n\n8. Notices\nAll notices shall be in writing and sent by courier."
    sents = sentences(text)
    # every sentence is a verbatim, trimmed slice; a clause number or heading joins the sentence after it
    assert [text[a:b] for a, b in sents] == [
        "7.3 Audit.  Orion may audit Beta's records once per year on thirty days' notice.",
        "Beta shall keep the records for at least six full years.",
        "8. Notices\nAll notices shall be in writing and sent by courier."]


def test_sentence_span_stays_inside_the_cap():
    text = "First sentence here. " + "word " * 400 + "target phrase here. Last."
    i = text.index("target")
    s, e = sentence_span(text, i, i + 6, 300)
    assert e - s <= 300 and s <= i and text[s:e] == text[s:e].strip()


def test_a_capped_quote_does_not_stop_at_a_colon_or_a_bare_enumerator():
    amended = ("3. Liability. Clause 9.3 of the Agreement is deleted and replaced with:\n\n"
               "\"9.3 Each party's total liability is capped at GBP 2,000,000.\"\n\n4. Other terms stay.")
    s, e = cap_span(amended, 0, len(amended), 80)
    assert amended[s:e].endswith('GBP 2,000,000."')   # the colon's announced text is kept, closing quote too

    listed = ("6. Liability\n\n6.1 Neither party limits liability for fraud.\n\n6.\n\n"
              "2 Each party limits its liability to the fees paid in the twelve months before the claim.")
    s, e = cap_span(listed, 0, len(listed), 70)
    assert listed[s:e].endswith("for fraud.")               # not "... fraud.\n\n6."


def test_boundary_kinds_and_cjk_stops():
    text = "Term: one year; renews. 한국어 문장입니다。다음 문장\n\nNew paragraph"
    kinds = [b.kind for b in boundaries(text, kinds=frozenset({"stop", "semicolon", "colon", "paragraph"}))]
    assert kinds == ["colon", "semicolon", "stop", "stop", "paragraph"]
    assert [text[:b.end][-3:] for b in boundaries(text, kinds=SENTENCE)][:2] == ["ws.", "니다。"]


def test_line_ends_split_excerpts_but_not_sentences():
    from wikigen.core.sentences import LINE

    text = "Fees\nThe fee is GBP 40,000 a year.\n(a) payable in advance;\n(b) in pounds sterling."
    assert [text[a:b] for a, b in sentences(text, kinds=LINE, min_chars=1)] == [
        "Fees", "The fee is GBP 40,000 a year.", "(a) payable in advance;", "(b) in pounds sterling."]
    assert len(sentences(text, kinds=SENTENCE, min_chars=1)) == 2      # a line end alone ends no sentence
