"""report.html: built by a real match (default against bfg, DD-solved deals), checked as text
(self-contained, every section there) and in a real browser (Debian's chromium driven by
selenium through chromium-driver: renders without console errors, requests nothing, shows the
plots, a hand diagram and the hand viewer, and a screenshot that is not blank).

Without chromium this test fails (CI installs it: .ci/run), it does not skip.
"""

from __future__ import annotations

import io
import re
import tempfile
from functools import cache
from pathlib import Path

import pytest
from bridgebot.tournament.config import MatchConfig
from bridgebot.tournament.html_report import doubled_html, html_report
from bridgebot.tournament.match import run_match
from bridgebot.tournament.records import MatchHeader

from bridgebot.agents import make_agent
from tests.browser import chromium, console_errors
from tests.tournament.rooms_helper import board, room


@cache
def _match_dir(npz: Path) -> Path:
    out = Path(tempfile.mkdtemp(prefix="html-report-"))
    run_match(
        MatchConfig(make_agent=make_agent, us="default", them="bfg", out=out, boards=6, deals=npz),
        progress=lambda b: None,
    )
    return out


@pytest.fixture
def report_dir(solved_npz: Path) -> Path:
    return _match_dir(solved_npz)


def test_match_writes_a_self_contained_page(report_dir: Path) -> None:
    page = (report_dir / "report.html").read_text(encoding="utf-8")
    # Nothing to load: no external script, stylesheet, font or image; links are plain anchors.
    assert not re.search(r"<(script|img|link|iframe)[^>]+(src|href)=\"https?:", page)
    assert "@import" not in page and "url(" not in page
    for section in ("Doubled contracts", "Largest swings", "Every board", "Par "):
        assert section in page
    assert page.count('class="diagram"') == 6 + 5  # every board, and the five largest swings
    assert page.count('class="viewer"') == 2 * (6 + 5)
    assert "HCP" in page  # our explanations on the swings
    assert (report_dir / "room-open.lin").read_text().count("\n") == 6


def test_doubled_section_counts_by_declaring_side() -> None:
    auction = ("Pass", "Pass", "Pass", "3NT", "X", "Pass", "Pass", "Pass")
    opened = room("open", ("us", "them", "us", "them"), auction, "3NTXW", 7, 500)
    other = room(
        "closed", ("them", "us", "them", "us"), auction[3:4] + ("Pass",) * 3, "3NTN", 9, 400
    )
    b = board(3, opened, other)
    header = MatchHeader(us="ours", them="theirs", format="team", scoring="dd", deals=None,
                         seed=1, boards=1)  # fmt: skip
    text = doubled_html(header, [b])
    # West of the open room is their side: one doubled contract, down, and the board's +3 to us
    # is -3 to them; the Markdown report counts the same (tournament.doubled)
    assert "<td>theirs</td><td>1</td><td>1</td><td>-3</td><td>-3.00</td>" in text
    assert "<td>ours</td><td>0</td><td>0</td><td>+0</td>" in text
    assert 'href="#board-1"' in text


def test_empty_match_page() -> None:
    header = MatchHeader(
        us="a", them="b", format="team", scoring="dd", deals=None, seed=1, boards=1
    )
    page = html_report(header, [])
    assert "<h1>a against b</h1>" in page


def test_report_renders_in_chromium(report_dir: Path, tmp_path: Path) -> None:
    from PIL import Image
    from selenium.webdriver.common.by import By

    driver = chromium(tmp_path / "profile", "1200,1600")
    try:
        driver.get((report_dir / "report.html").resolve().as_uri())
        assert console_errors(driver) == []
        # The page requested nothing beyond itself.
        assert driver.execute_script("return performance.getEntriesByType('resource').length") == 0
        plots = driver.find_elements(By.CSS_SELECTOR, ".plot svg")
        assert len(plots) == 2 and all(p.size["height"] > 100 for p in plots)
        diagram = driver.find_element(By.CSS_SELECTOR, ".diagram")
        assert diagram.is_displayed() and "North" in diagram.text and "♠" in diagram.text
        # The inline viewer ran: it drew four hands and steps on a click.
        viewer = driver.find_element(By.CSS_SELECTOR, ".viewer")
        assert len(viewer.find_elements(By.CSS_SELECTOR, ".vh > div")) == 4
        step = viewer.text
        viewer.find_element(By.CSS_SELECTOR, "button[data-d='-999']").click()
        assert viewer.text != step and "step 0 of" in viewer.text
        png = driver.get_screenshot_as_png()
    finally:
        driver.quit()
    gray = Image.open(io.BytesIO(png)).convert("L").histogram()
    dark = sum(gray[:128]) / sum(gray)
    assert 0.01 < dark < 0.6, f"screenshot looks blank or black ({dark:.1%} dark pixels)"
    colours = Image.open(io.BytesIO(png)).convert("RGB").getcolors(maxcolors=1 << 20)
    assert colours is not None and len(colours) > 20
