"""Row labels that name no figure alone ("Diluted" under two sections, "Total" closing different tables)
are named by the section they are indented under, or dropped where they have none; a label restated
with a value in common ("Net income" atop a statement and in the cash flows) stays one figure."""

from wikigen.agents.figures import find_figures, generic_labels, row_mentions


def report(q: int) -> str:
    eps, shares, net, cash = f"1.{q}0", f"15,{q}00,000", f"2{q},000", f"4{q},500"
    return "\n".join(
        [
            "  QUARTERLY REPORT",
            "  Statement of Operations (in millions)",
            f"Net income  $  {net}  $  19,000",
            "Earnings per share:",
            f"  Basic  $  {eps}  $  1.01",
            f"  Diluted  $  {eps}  $  1.00",
            "Shares used in computing earnings per share:",
            f"  Basic  {shares}  16,000,000",
            f"  Diluted  {shares}  16,100,000",
            "",
            "  Statement of Cash Flows",
            "Operating activities:",
            f"  Net income  {net}  19,000",
            f"  Other  ({q}17)  849",
            "Investing activities:",
            f"  Other  ({q}41)  (374)",
            "",
            "Cash Balances",
            f"  Cash  {cash}  40,000",
            f"  Total  $  {cash}  $  40,000",
            "Purchase Obligations",
            f"  Thereafter  {q}44",
            f"  Total  $  1{q},726",
            "",
        ]
    )


DOCS = {f"r{q}": report(q) for q in range(1, 5)}


def test_rows_know_the_section_they_are_indented_under():
    rows = row_mentions("r1", DOCS["r1"])
    sections = [(m.label, m.section) for m in rows]
    assert ("Diluted", "Earnings per share") in sections
    assert ("Diluted", "Shares used in computing earnings per share") in sections
    assert ("Net income", "") in sections and ("Net income", "Operating activities") in sections
    assert ("Total", "Purchase Obligations") in sections


def test_generic_labels_are_those_of_different_values_under_different_sections():
    generic = generic_labels([row_mentions(d, t) for d, t in DOCS.items()])
    assert {"diluted", "basic", "total", "other"} <= generic
    assert "net income" not in generic and "cash" not in generic


def test_figures_name_generic_rows_by_their_section():
    titles = {f.title for f in find_figures(DOCS)}
    assert {
        "Earnings per share: Diluted",
        "Shares used in computing earnings per share: Diluted",
        "Purchase Obligations: Total",
        "Net income",
    } <= titles
    assert not {"Diluted", "Basic", "Total", "Other"} & titles
    eps = next(f for f in find_figures(DOCS) if f.title == "Earnings per share: Diluted")
    assert [eps.mentions[d].value.split()[1] for d in sorted(eps.mentions)] == ["1.10", "1.20", "1.30", "1.40"]
    assert "Diluted" in eps.aliases  # a question may still ask for it by its own label
