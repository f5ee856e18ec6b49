"""A claim on the built page, in a real headless browser from file://: the note shows its example
with its output, marked with the pinned releases it is checked at; the copy button copies it,
setup included, and what it copies runs as it is under `python -m doctest`."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.browser_support import build_small_site, chromium, wait

pytestmark = pytest.mark.browser

FILES = {"pkg/__init__.py": "", "pkg/stats.py": "def middle(xs):\n    return sorted(xs)[len(xs) // 2]\n"}
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
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> str:
    tmp = tmp_path_factory.mktemp("browser-claims")
    return build_small_site(tmp, FILES, TRACK, {"claims.yaml": ARTICLE},
                            release="small==1.0")[0].as_uri()


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    yield from chromium(tmp_path_factory.mktemp("chromium-profile"))


def test_the_page_shows_the_claim_checked_at_the_pins_and_copies_it_runnable(browser, site, tmp_path):
    browser.get(f"{site}/articles/claims.html")
    wait(browser, lambda b: b.execute_script("return document.readyState") == "complete")
    claim = browser.find_element("css selector", "#note-n-middle .rd-claim")
    more = wait(browser, lambda b: b.find_element("css selector", ".rd-more"))
    more.click()  # a note taller than its two lines folds; "more" unfolds it, claim and all
    wait(browser, lambda b: claim.is_displayed())
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
