"""What ``claims.verify`` shows: one block per claim, as HTML in Jupyter, Colab and
the site, as text wrapped at 88 columns elsewhere, each thing once."""

from __future__ import annotations

import html
import re

import pytest

from alice_course import claims
from alice_course.claims import Claim, ClaimResult


def _fake(
    statement: str, *, ok: bool = True, detail: str = "x = 1 < 2 & y"
) -> ClaimResult:
    def _check() -> str:
        """A check whose source the block shows."""
        assert 1 < 2 and True & True
        return detail

    c = Claim("C7-98", "7.1.3", (3338, 3346), statement, _check, equation="E.7.4")
    return ClaimResult(c, ok, detail, 0.01)


def test_the_html_holds_mark_statement_locator_detail_and_the_source() -> None:
    r = _fake("conv(shift(X)) = shift(conv(X)) when a < b & c > d")
    page = claims.ClaimsBlock([r])._repr_html_()
    assert "✓" in page and "C7-98" in page
    # the anchor that the Claims and Errata pages link to (ch07_….html#claim-C7-98)
    assert (
        page.count('id="claim-C7-98"') == 1 and claims.anchor(r.claim) == "claim-C7-98"
    )
    # the statement, escaped: < and & never reach the page raw
    assert "when a &lt; b &amp; c &gt; d" in page
    assert "a < b" not in page and "b & c" not in page
    assert "§7.1.3, E.7.4" in page
    assert "x = 1 &lt; 2 &amp; y" in page
    folded = re.search(r"<details>(.*?)</details>", page, re.S)
    assert (
        folded and "<summary" in folded.group(1) and "show the check" in folded.group(1)
    )
    code = html.unescape(
        re.search(r"<pre[^>]*>(.*?)</pre>", folded.group(1), re.S).group(1)
    )
    assert "def _check() -> str:" in code and "assert 1 < 2 and True & True" in code
    assert "@claim" not in code
    # the text's line numbers are only a detail inside the folded part
    assert "3338" not in page.split("<details>")[0]


def test_a_failing_claim_is_marked_and_says_what_failed() -> None:
    page = claims.ClaimsBlock([_fake("s", ok=False, detail="|Δ| = 3")])._repr_html_()
    assert "✗" in page and "failed: |Δ| = 3" in page and "alice-claim-fails" in page


def test_latex_labels_never_show_printed_numbers_do() -> None:
    c = Claim("C2-98", "2.3", (300, 300), "s", lambda: None, equation="eq:softmax")
    assert claims.locator(c) == "§2.3"
    c = Claim("C6-98", "6.2", (300, 300), "s", lambda: None, equation="Box 6.1, eq:bmm")
    assert claims.locator(c) == "§6.2, Box 6.1"


def test_the_text_form_wraps_at_88_columns() -> None:
    long = "a statement that goes on " * 12
    text = repr(claims.ClaimsBlock([_fake(long, detail="measured " * 20)]))
    lines = text.splitlines()
    assert lines[0].startswith("✓ C7-98 §7.1.3, E.7.4")
    assert len(lines) > 4 and max(len(line) for line in lines) <= 88
    for c in claims.all_claims(7):
        res = ClaimResult(c, True, "d" * 200, 0.0)
        assert (
            max(len(line) for line in repr(claims.ClaimsBlock([res])).splitlines())
            <= 88
        )


def test_every_registered_check_has_its_source_shown() -> None:
    for c in claims.all_claims():
        code, where = claims._source(c.check)
        assert code.startswith("def ") and where.startswith("alice_course/claims/"), (
            c.id
        )


def test_verify_shows_once_and_its_result_shows_nothing_more(capsys) -> None:
    out = claims.verify("C2-07")
    shown = capsys.readouterr().out
    assert shown.startswith("✓ C2-07 §2.1.1") and "measured:" in shown
    assert out._ipython_display_() is None and capsys.readouterr().out == ""
    assert "C2-07" in out.html() and out.text() == shown.rstrip("\n")
    claims.verify("C2-07", quiet=True)
    assert capsys.readouterr().out == ""


def test_in_ipython_verify_displays_html_and_text(monkeypatch) -> None:
    display = pytest.importorskip("IPython.display")
    import IPython

    shown = []
    monkeypatch.setattr(IPython, "get_ipython", lambda: object())
    monkeypatch.setattr(display, "display", lambda obj: shown.append(obj))
    claims.verify("C2-07", "C2-11")
    (block,) = shown
    assert block._repr_html_().count('class="alice-claim ') == 2
    assert repr(block).startswith("✓ C2-07")


def test_a_failing_verify_shows_and_raises_with_the_lines(capsys) -> None:
    fake_id = "C2-98"

    @claims.claim(fake_id, section="2.1.1", lines=(262, 268), statement="false & <b>")
    def _false() -> str:
        assert 0.1 + 0.2 == 0.3, "0.1 + 0.2 = 0.30000000000000004"

    try:
        with pytest.raises(AssertionError, match="claims failed") as err:
            claims.verify(fake_id)
        assert "✗ C2-98 §2.1.1" in str(err.value) and "0.30000000000000004" in str(
            err.value
        )
        assert capsys.readouterr().out.startswith("✗ C2-98")
    finally:
        del claims._REGISTRY[fake_id]
