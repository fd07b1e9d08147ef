"""wikigen.core.sentences: the one sentence-boundary rule used by passages, quotes and answers."""

from wikigen.core.sentences import (
    LONGEST_SENTENCE,
    SENTENCE,
    boundaries,
    cap_span,
    heading_like,
    sentence_span,
    sentences,
)


def test_sentences_are_whole_and_short_pieces_join_the_next():
    text = "7.3 Audit.  Orion may audit Beta's records once per year on thirty days' notice. Beta shall keep the records for at least six full years.\n\n8. Notices\nAll notices shall be in writing and sent by courier."
    sents = sentences(text)
    # every sentence is a verbatim, trimmed slice; a clause number or heading joins the sentence after it
    assert [text[a:b] for a, b in sents] == [
        "7.3 Audit.  Orion may audit Beta's records once per year on thirty days' notice.",
        "Beta shall keep the records for at least six full years.",
        "8. Notices\nAll notices shall be in writing and sent by courier.",
    ]


def test_sentence_span_stays_inside_the_cap():
    text = "First sentence here. " + "word " * 400 + "target phrase here. Last."
    i = text.index("target")
    s, e = sentence_span(text, i, i + 6, 300)
    assert e - s <= 300 and s <= i and text[s:e] == text[s:e].strip()


def test_a_capped_quote_does_not_stop_at_a_colon_or_a_bare_enumerator():
    amended = (
        "3. Liability. Clause 9.3 of the Agreement is deleted and replaced with:\n\n"
        '"9.3 Each party\'s total liability is capped at GBP 2,000,000."\n\n4. Other terms stay.'
    )
    s, e = cap_span(amended, 0, len(amended), 80)
    assert amended[s:e].endswith('GBP 2,000,000."')  # the colon's announced text is kept, closing quote too

    listed = (
        "6. Liability\n\n6.1 Neither party limits liability for fraud.\n\n6.\n\n"
        "2 Each party limits its liability to the fees paid in the twelve months before the claim."
    )
    s, e = cap_span(listed, 0, len(listed), 70)
    assert listed[s:e].endswith("for fraud.")  # not "... fraud.\n\n6."


def test_boundary_kinds_and_cjk_stops():
    text = "Term: one year; renews. 한국어 문장입니다。다음 문장\n\nNew paragraph"
    kinds = [b.kind for b in boundaries(text, kinds=frozenset({"stop", "semicolon", "colon", "paragraph"}))]
    assert kinds == ["colon", "semicolon", "stop", "stop", "paragraph"]
    assert [text[: b.end][-3:] for b in boundaries(text, kinds=SENTENCE)][:2] == ["ws.", "니다。"]


def test_line_ends_split_excerpts_but_not_sentences():
    from wikigen.core.sentences import LINE

    text = "Fees\nThe fee is GBP 40,000 a year.\n(a) payable in advance;\n(b) in pounds sterling."
    assert [text[a:b] for a, b in sentences(text, kinds=LINE, min_chars=1)] == [
        "Fees",
        "The fee is GBP 40,000 a year.",
        "(a) payable in advance;",
        "(b) in pounds sterling.",
    ]
    # a line end alone ends no sentence (a wrapped line), one before a list item does
    assert [text[a:b] for a, b in sentences(text, kinds=SENTENCE, min_chars=1)] == [
        "Fees\nThe fee is GBP 40,000 a year.",
        "(a) payable in advance;",
        "(b) in pounds sterling.",
    ]


def _split(text, **kw):
    return [text[a:b] for a, b in sentences(text, kinds=SENTENCE, min_chars=1, **kw)]


def test_a_clause_number_stays_with_its_clause():
    text = "4. TERM AND RENEWAL\n\n4.2 On expiry of the Initial Term, this Agreement renews for twelve months."
    assert _split(text) == [
        "4. TERM AND RENEWAL",
        "4.2 On expiry of the Initial Term, this Agreement renews for twelve months.",
    ]
    # a window that ends right after "4." inside "4.2" finds no sentence end there
    i = text.index("4.2") + 2
    assert [b.kind for b in boundaries(text, 0, i)] == ["paragraph"]
    s, _e = cap_span(text, text.index("4.2"), len(text), 40)
    assert text[s:].startswith("4.2 On expiry")
    listed = "1.1.3. The Supplier delivers.\n4.2. On expiry it renews.\n(a). The first item applies.\nIV. Fourth part."
    assert _split(listed) == [
        "1.1.3. The Supplier delivers.",
        "4.2. On expiry it renews.",
        "(a). The first item applies.",
        "IV. Fourth part.",
    ]


def test_abbreviations_initials_and_decimals_end_no_sentence():
    text = (
        "Acme Inc. shall pay $1.5 million under Section 4.2 and Schedule No. 5 to the U.S. subsidiary, e.g. "
        "Acme Ltd. as agent. Mr. J. Smith signs for it. See Art. 3 and p. 12 of Exhibit A. The end."
    )
    assert _split(text) == [
        "Acme Inc. shall pay $1.5 million under Section 4.2 and Schedule No. 5 to the U.S. subsidiary, e.g. "
        "Acme Ltd. as agent.",
        "Mr. J. Smith signs for it.",
        "See Art. 3 and p. 12 of Exhibit A.",
        "The end.",
    ]
    # a word in lower case after a dot continues the sentence; a number after an ordinary word does not
    assert _split("The fee (approx. the cost) is due. 5 days later it lapses.") == [
        "The fee (approx. the cost) is due.",
        "5 days later it lapses.",
    ]


def test_korean_sentences_split_at_their_stops():
    text = "제4.2조 계약 기간이 끝나면 계약은 1년씩 자동 갱신된다. 다만 어느 한쪽이 90일 전에 통지하면 그러하지 아니하다.\n\n제5조 비밀유지"
    assert _split(text) == [
        "제4.2조 계약 기간이 끝나면 계약은 1년씩 자동 갱신된다.",
        "다만 어느 한쪽이 90일 전에 통지하면 그러하지 아니하다.",
        "제5조 비밀유지",
    ]


def test_a_capped_definition_or_quote_is_not_cut_mid_sentence():
    text = (
        '"Change of Control" means, with respect to a Person, the occurrence of any of the following: '
        "(a) any person becomes the owner of more than fifty percent (50%) of the voting power of such "
        "Person; (b) such Person merges with another entity; or (c) such Person sells all or "
        'substantially all of its assets. "Person" means any individual or entity.'
    )
    s, e = cap_span(text, 0, len(text), 120)
    assert text[s:e].endswith("substantially all of its assets.")  # the whole definition, not "a Person,"
    quoted = 'The Licensee said: "We accept the terms, e.g. the fees." Then it signed.'
    assert _split(quoted) == ['The Licensee said: "We accept the terms, e.g. the fees."', "Then it signed."]


def test_a_short_cap_runs_on_to_the_end_of_a_long_legal_sentence():
    clause = (
        "Section 19. Entire Agreement. This Agreement, including schedules and exhibits hereto, which are "
        "integral parts hereof and incorporated as though set forth in full, constitutes the entire "
        "agreement between the parties pertaining to the subject matter hereof, superseding any and all "
        "prior or contemporaneous oral or prior written agreements, proposals, letters of intent and "
        "understandings, and cannot be modified, changed, waived or terminated except by a writing which "
        "is signed by both parties, and no course of dealing, usage of trade or course of performance "
        "shall be relevant to explain or supplement any term expressed in this Agreement. "
    )
    text = clause + "Section 20. Notices. All notices shall be in writing."
    assert 600 < len(clause) < LONGEST_SENTENCE
    s, e = cap_span(text, 0, len(text), 150)
    assert text[s:e] == clause.strip()  # not "... as though set forth in full,"
    s, e = sentence_span(text, text.index("entire agreement"), text.index("entire agreement") + 16, 150)
    assert text[s:e].endswith("expressed in this Agreement.")


def test_a_sentence_longer_than_the_longest_is_cut_at_a_clause_end():
    text = (
        "The Supplier shall deliver "
        + "; ".join(f"item {i} of the goods listed in the schedule" for i in range(40))
        + "."
    )
    assert len(text) > LONGEST_SENTENCE
    s, e = cap_span(text, 0, len(text), 150)
    assert text[s:e].endswith(";") and e - s <= 150


def test_a_quote_never_stops_at_its_heading():
    # cuad-dev's topic pages quoted "2. Grant of License.\n\n(a) Products." and "(i) Audit Right.": a
    # short cap stopped at the headings' dots, before the clause they head
    text = (
        "2. Grant of License.\n\n    (a) Products. Upon the terms of this Agreement, KI hereby grants to "
        "Diplomat the right to use KI's name solely on the following products:\n\n    (1) sunglasses and "
        "frames;\n\n    (b) Territory. The license is limited to North America."
    )
    s, e = cap_span(text, 0, len(text), 150)
    assert text[s:e].startswith("2. Grant of License.") and text[s:e].endswith("sunglasses and frames;")
    audit = (
        "(b) Financial Audits. (i) Audit Right. Upon thirty (30) days prior written notice, the Audited "
        "Party shall permit an independent accountant to examine its books. (ii) Costs. The Auditing "
        "Party bears the cost."
    )
    i = audit.index("Audit Right")
    s, e = sentence_span(audit, i, i + len("Audit Right"), 450)
    assert audit[s:e].endswith("to examine its books.")
    # a sentence that carries a fact stays alone, capitalised defined terms and all
    made = 'This Master Services Agreement is made on 1 March 2023 (the "Effective Date")\n\nBETWEEN\n\n(1) Kestrel'
    i = made.index("1 March")
    assert made[slice(*sentence_span(made, i, i + 12, 190))].endswith('(the "Effective Date")')


def test_heading_like_pieces():
    assert heading_like("11.5 Effect of Termination or Expiration: Surviving Obligations.")
    assert heading_like("Section 11.07. Third-Party Beneficiaries.")
    assert heading_like("(a) Products.")
    assert not heading_like("The provisions of this Agreement are deemed severable.")
    assert not heading_like('This Master Services Agreement is made on 1 March 2023 (the "Effective Date")')
    assert heading_like("Date:") and heading_like("4.2") and heading_like("제5조 비밀유지")
    assert not heading_like("해지 통지 기간은 90일로 한다.")  # short, but a sentence: Hangul is dense
    assert not heading_like("Payment is due.")


class _Scanned:
    """A compiled pattern that adds up the characters each call may read: a search or finditer reads from
    its position to its end position (the text's end when none is given); an anchored match, what it matched."""

    def __init__(self, rx, tally: list[int]):
        self.rx, self.tally = rx, tally

    def finditer(self, text, pos=0, endpos=None):
        self.tally[0] += (len(text) if endpos is None else endpos) - pos
        return self.rx.finditer(text, pos, len(text) if endpos is None else endpos)

    def search(self, text, pos=0, endpos=None):
        self.tally[0] += (len(text) if endpos is None else endpos) - pos
        return self.rx.search(text, pos, len(text) if endpos is None else endpos)

    def match(self, text, pos=0, endpos=None):
        m = self.rx.match(text, pos, len(text) if endpos is None else endpos)
        self.tally[0] += (m.end() - pos if m else 0) + 1
        return m


def test_window_boundaries_read_the_window_not_the_rest_of_a_long_line(monkeypatch):
    """Passages ask for the boundaries of one window after another: in a 300,000-character line with no
    sentence end, the boundary patterns read each window once, not the rest of the line from every window
    (which made indexing such a line quadratic). Counted in characters offered to the patterns."""
    from wikigen.search.passages import split_passages

    import wikigen.core.sentences as sentences_mod

    tally = [0]
    monkeypatch.setattr(sentences_mod, "_BOUNDARY", _Scanned(sentences_mod._BOUNDARY, tally))
    monkeypatch.setattr(sentences_mod, "_MARK", _Scanned(getattr(sentences_mod, "_MARK", None), tally), raising=False)
    words = ["party", "shall", "deliver", "goods", "within", "thirty", "days", "notice"]
    line = " ".join(words[i * 7 % len(words)] for i in range(50_000))[:300_000]
    spans = split_passages(line)
    assert len(spans) > 250 and all(800 <= e - s <= 1200 for s, e in spans[:-1])
    assert tally[0] <= 2 * len(line)
    with_stops = line.replace(" days ", " days. ")  # a sentence end every few words: each mark read once
    tally[0] = 0
    split_passages(with_stops)
    assert tally[0] <= 2 * len(with_stops)
