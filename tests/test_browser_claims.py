"""A claim on the built page, in a real headless browser from file://: the note shows its example
with its output in the code's type size, marked with the pinned releases it is checked at; the copy
button copies it, setup included, and what it copies runs as it is under `python -m doctest`.
Where notes crowd, a claim's example shuts to its head first, and its button opens it for good."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.browser_support import browser_fixture, build_small_site, load, wait

pytestmark = pytest.mark.browser

FILES = {"pkg/__init__.py": "", "pkg/stats.py": "def middle(xs):\n    return sorted(xs)[len(xs) // 2]\n\n"
         + "".join(f"C{n} = {n}\n" for n in range(40))  # 4-43
         + "\ndef spread(xs):\n    lo = min(xs)\n    hi = max(xs)\n    return hi - lo\n"}  # 45-48
TRACK = """title: "A claims track"
summary: "One article."
phases:
  - title: "Only phase"
    summary: "Everything."
    entries:
      - article: "Claims"
        slug: claims
"""
ARTICLE = """title: "Claims"
slug: claims
phase: 1
kind: article
order: 1
summary: A note that checks itself.
reads:
  - path: pkg/stats.py
claim_setup: |
  >>> import statistics
notes:
  - id: n-middle
    symbol: middle
    body: The middle element, as `statistics.median_low` gives it.
    claim: |
      >>> statistics.median_low([5, 1, 3, 4])
      3
      >>> print(sorted([5, 1, 3, 4])[4 // 2])
      4
  - id: n-lo
    symbol: spread
    quote: "lo = min(xs)"
    body: The least value, one of three notes on three lines in a row, each with its example.
    claim: |
      >>> min([1, 2, 3])
      1
      >>> min([0, 2, 3])
      0
      >>> min([5, 2, 3])
      2
      >>> min([4, 2, 3])
      2
  - id: n-hi
    symbol: spread
    quote: "hi = max(xs)"
    body: The greatest value, one of three notes on three lines in a row, each with its example.
    claim: |
      >>> max([1, 2, 3])
      3
      >>> max([0, 2, 3])
      3
      >>> max([5, 2, 3])
      5
      >>> max([4, 2, 3])
      4
  - id: n-ret
    symbol: spread
    quote: "return hi - lo"
    body: Their spread, one of three notes on three lines in a row, each with its example.
    claim: |
      >>> len([1, 2, 3])
      3
      >>> len([0, 2, 3])
      3
      >>> len([5, 2, 3])
      3
      >>> len([4, 2, 3])
      3
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> str:
    tmp = tmp_path_factory.mktemp("browser-claims")
    return build_small_site(tmp, FILES, TRACK, {"claims.yaml": ARTICLE},
                            release="small==1.0")[0].as_uri()


browser = browser_fixture()


def test_the_page_shows_the_claim_checked_at_the_pins_and_copies_it_runnable(browser, site, tmp_path):
    browser.get(f"{site}/articles/claims.html")
    wait(browser, lambda b: b.execute_script("return document.readyState") == "complete")
    claim = browser.find_element("css selector", "#note-n-middle .rd-claim")
    wait(browser, lambda b: claim.find_element("css selector", "pre").is_displayed())  # no click needed
    sizes = browser.execute_script(
        "const px = s => parseFloat(getComputedStyle(document.querySelector(s)).fontSize);"
        "return [px('#note-n-middle .rd-claim-code code'), px('.rd-k > div'), px('#note-n-middle .rd-checked')]")
    assert sizes[0] == sizes[1] and sizes[2] >= 12  # the code's type size; a label one can read
    assert claim.find_element("css selector", ".rd-checked").text == "checked at small 1.0"
    shown = browser.execute_script("return arguments[0].querySelector('pre').textContent", claim)
    assert shown == (">>> import statistics\n>>> statistics.median_low([5, 1, 3, 4])\n3\n"
                     ">>> print(sorted([5, 1, 3, 4])[4 // 2])\n4\n")
    button = claim.find_element("css selector", ".rd-copy")
    button.click()
    wait(browser, lambda b: button.text != "copy")
    assert button.text == "copied"
    copied = tmp_path / "claim.txt"
    copied.write_text(shown)
    done = subprocess.run([sys.executable, "-m", "doctest", "-o", "ELLIPSIS", str(copied)],
                          capture_output=True, text=True)
    assert (done.returncode, done.stdout) == (0, "")
    copied.write_text(shown.replace("\n3\n", "\n2\n"))  # and a wrong output is caught
    assert subprocess.run([sys.executable, "-m", "doctest", str(copied)],
                          capture_output=True).returncode == 1


def test_where_notes_crowd_a_claim_shuts_to_its_head_and_its_button_opens_it(browser, site):
    load(browser, f"{site}/articles/claims.html#L44", fresh=True)  # loaded at the line, not moved there
    wait(browser, lambda b: b.execute_script("return document.querySelector('.rd-claim-shut')"))
    shut = browser.execute_script(
        "return [...document.querySelectorAll('.rd-mn')].map(n => [n.querySelector('.rd-note-body').textContent.slice(0, 12),"
        " !!n.querySelector('.rd-claim-shut'), n.classList.contains('rd-fold')])")
    assert shut[1][1] and shut[2][1] and not shut[3][1], shut  # those before the crowd; the last has room
    assert not any(s[2] for s in shut)  # every note's text whole
    note = browser.find_element("css selector", "#note-n-lo")
    toggle = note.find_element("css selector", ".rd-claim-toggle")
    assert toggle.text.endswith("example, 9 lines") and toggle.get_attribute("aria-expanded") == "false"
    assert not note.find_element("css selector", ".rd-claim pre").is_displayed()
    toggle.click()
    assert toggle.get_attribute("aria-expanded") == "true"
    assert note.find_element("css selector", ".rd-claim pre").is_displayed()

    def box(note_id):
        return browser.execute_script(
            "const r = document.getElementById(arguments[0]).closest('.rd-mn').getBoundingClientRect();"
            "return [r.top, r.bottom]", note_id)
    wait(browser, lambda b: box("note-n-lo")[1] <= box("note-n-hi")[0] + 1)  # the next made room
    browser.execute_script("window.dispatchEvent(new Event('resize'))")  # and it stays open
    wait(browser, lambda b: b.execute_script("return !document.querySelector('#note-n-lo .rd-claim-shut')"))


@pytest.mark.parametrize("scheme", ["default", "slate"])
def test_axe_finds_no_serious_violation_with_claims_shut_and_open(browser, site, scheme):
    from tests.test_browser_a11y import _report, axe_violations, set_scheme

    browser.get(f"{site}/articles/claims.html")
    set_scheme(browser, scheme)
    wait(browser, lambda b: b.execute_script("return document.querySelector('.rd-claim-shut')"))
    violations = axe_violations(browser, scheme)
    browser.execute_script("document.querySelector('.rd-claim-shut .rd-claim-toggle').click()")
    violations += axe_violations(browser, scheme)
    assert not violations, _report(violations)
