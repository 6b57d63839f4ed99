"""The review app in a real browser: `rubberscan review` (waitress) on a batch folder the real
batch made, headless Chromium from the OS packages driven by Selenium through the OS's
chromedriver (nothing downloaded).  An organiser clears a sheet's review items with the keyboard,
types one value, undoes one, confirms a flag, clicks the four corners of a table the batch did
not find, and meets a second tab's stale page; then the ledger, the export and the labels hold
what was decided.  Screenshots go to $REVIEW_SHOTS when it is set."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from batch.ledger import LEDGER_NAME, Ledger
from tests.review.fixtures import BLOTS, turned_corners

pytestmark = pytest.mark.slow

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--window-size=1400,1000")
WAIT = 60  # seconds a page may take (reading a sheet from clicked corners takes a few)


@pytest.fixture
def server(scanned_copy):
    """`rubberscan review DIR --port 0` as the organiser starts it; its address."""
    proc = subprocess.Popen([sys.executable, "cli.py", "review", str(scanned_copy), "--port", "0",
                             "--user", "organiser"], cwd=Path(__file__).resolve().parents[2],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first = proc.stdout.readline().strip()
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+/", first), (first, proc.stderr.read())
        yield first, scanned_copy
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=20) == 0


@pytest.fixture
def browser(tmp_path):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    assert CHROMIUM and CHROMEDRIVER, "chromium and chromedriver are needed: `make browser`"
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tmp_path / 'chromium-profile'}")
    driver = webdriver.Chrome(options=options, service=Service(executable_path=CHROMEDRIVER))
    driver.set_page_load_timeout(WAIT)
    try:
        yield driver
    finally:
        driver.quit()


class Page:
    """The keyboard and a few looks at the page, each key that posts waiting for the new page."""

    def __init__(self, driver, shots: Path | None):
        self.d = driver
        self.shots = shots

    def el(self, css: str):
        from selenium.webdriver.common.by import By

        return self.d.find_element(By.CSS_SELECTOR, css)

    def has(self, css: str) -> bool:
        from selenium.webdriver.common.by import By

        return bool(self.d.find_elements(By.CSS_SELECTOR, css))

    def text(self, css: str) -> str:
        return self.el(css).text

    def key(self, keys: str, navigates: bool = True) -> None:
        """Press ``keys``; when they post or follow a link, wait for the new page: a mark left in
        the old page's window is gone in the new one (no element of the old page is held, which
        Chromium may refuse to look up while it navigates)."""
        from selenium.common.exceptions import WebDriverException
        from selenium.webdriver.common.action_chains import ActionChains
        from selenium.webdriver.support.ui import WebDriverWait

        self.d.execute_script("window.rubberscanOldPage = true")
        ActionChains(self.d).send_keys(keys).perform()
        if navigates:
            WebDriverWait(self.d, WAIT, ignored_exceptions=(WebDriverException,)).until(
                lambda d: d.execute_script("return window.rubberscanOldPage === undefined && "
                                           "document.readyState === 'complete'"))

    def shot(self, name: str) -> None:
        if self.shots is not None:
            self.shots.mkdir(parents=True, exist_ok=True)
            self.d.save_screenshot(str(self.shots / f"{name}.png"))

    def images_loaded(self) -> bool:
        return self.d.execute_script(
            "return [...document.images].every(i => i.complete && i.naturalWidth > 0)")


def test_an_organiser_clears_the_queue_in_the_browser(server, browser):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    address, out = server
    shots = Path(os.environ["REVIEW_SHOTS"]) if os.environ.get("REVIEW_SHOTS") else None
    page = Page(browser, shots)

    # the queue: three sheets open, oldest first
    browser.get(address)
    rows = browser.find_elements("css selector", "#open-sheets tr[data-sheet]")
    assert [r.find_element("css selector", "a").text for r in rows] == \
        ["in/blotted.jpg", "in/photo.jpg", "in/turned.jpg"]
    page.shot("1-queue")

    # the first sheet: its review items one after the other, keys only
    page.key(Keys.ENTER)
    assert page.text("#question").startswith("deal 3, Cum. N/S: could not be read")
    assert page.images_loaded() and page.has("img.cell") and page.has("#row-strip")
    assert [c.text for c in browser.find_elements("css selector", "#context th")][6:9] == \
        ["2", "3", "4"]  # the row with the rows before and after it
    page.shot("2-item")
    opened = int(page.text("#n-open"))
    assert opened >= 3 and int(page.text("#n-review")) >= 3  # the three scribbled cells at least
    page.key("1")  # the arithmetic's value, 100
    assert "deal 3, Cum. N/S: ? -> 100" in page.text(".flash.done")
    assert int(page.text("#n-open")) == opened - 1
    page.key("t", navigates=False)  # type a value instead of choosing one
    ActionChains(browser).send_keys("150").perform()
    page.key(Keys.ENTER)
    assert "deal 7, N/S: ? -> 150" in page.text(".flash.done")
    page.key("u")  # undo it ...
    assert page.text(".flash.done") == "Undone." and int(page.text("#n-open")) == opened - 1
    assert page.text("#question").startswith("deal 7, N/S")
    page.key(Keys.ENTER)  # ... and accept the first answer instead

    # a second tab on the same item: the first to decide wins, the other is told
    first_tab = browser.current_window_handle
    browser.switch_to.new_window("tab")
    browser.get(address + "sheet/" + _sheet_id(out, "blotted"))
    second_tab = browser.current_window_handle
    question = page.text("#question")
    browser.switch_to.window(first_tab)
    browser.refresh()
    assert page.text("#question") == question
    page.key(Keys.ENTER)
    browser.switch_to.window(second_tab)
    page.key(Keys.ENTER)
    assert "changed since the page was loaded" in page.text("#message")
    page.shot("3-second-tab")
    browser.close()
    browser.switch_to.window(first_tab)
    browser.refresh()
    clear(page)
    assert page.text("#status") == "verified" and page.text("#n-review") == "0"
    last = _truth("01-classic-clean-mnist-blue")[-1]
    assert (page.text("#total-ns"), page.text("#total-ew")) == (str(last["cum_ns"]),
                                                                 str(last["cum_ew"]))
    page.shot("4-sheet-done")

    # the next sheet: the players' cumulative mistake, confirmed as theirs
    page.key(Keys.ENTER)
    assert page.el("#item").get_attribute("data-kind") in ("flag", "inconsistency")
    assert "cumulative" in page.text("#question")
    assert page.text('button.choice[data-key="1"]').startswith("1 the players wrote")
    page.key("1")
    clear(page)
    assert page.text("#status") == "verified" and int(page.text("#n-flags")) >= 1

    # the last: the table was not found; click its four corners on the page
    page.key(Keys.ENTER)
    assert "no summary score table found" in page.text("#error")
    image = page.el("#page")
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", image)
    natural = browser.execute_script("return [arguments[0].naturalWidth, "
                                     "arguments[0].naturalHeight]", image)
    shown = (image.size["width"], image.size["height"])
    chain = ActionChains(browser)
    for x, y in turned_corners():
        chain.move_to_element_with_offset(image, x * shown[0] / natural[0] - shown[0] / 2,
                                          y * shown[1] / natural[1] - shown[1] / 2).click()
    chain.perform()
    assert page.text("#corner-count") == "4 of 4" and len(browser.find_elements(
        "css selector", ".corner")) == 4
    page.shot("5-corners")
    page.key(Keys.ENTER)
    assert page.text(".flash.done") == "Read again from the corners clicked."
    assert page.has("#summary") and page.images_loaded()
    page.shot("6-read-from-corners")
    clear(page)

    # what the ledger, the export and the labels now hold
    with Ledger(out / LEDGER_NAME, readonly=True) as ledger:
        blotted, turned = _sheet_id(out, "blotted"), _sheet_id(out, "turned")
        decisions = ledger.decisions(blotted)
        assert [d["target"] for d in decisions][:2] == ["3:cum_ns", "7:ns"]
        assert len(ledger.decisions(blotted, undone=True)) == len(decisions) + 1
        assert {d["who"] for d in decisions} == {"organiser"}
        assert ledger.review_state(blotted)[0] == "verified"
        sheet = ledger.sheets(turned)[0]
        assert sheet.status == "ok" and ledger.decisions(turned)[0]["kind"] == "corners"
    exported = json.loads(subprocess.run(
        [sys.executable, "cli.py", "export", str(out), "--format", "json"], check=True,
        capture_output=True, text=True, cwd=Path(__file__).resolve().parents[2]).stdout)
    by = {Path(o["source"]).stem: o for o in exported}
    assert {k: o["review_status"] for k, o in by.items()} == \
        {"blotted": "verified", "photo": "verified", "turned": "verified"}
    rows = {r["deal"]: r for r in by["blotted"]["rows"]}
    truth = {r["deal"]: r for r in _truth("01-classic-clean-mnist-blue")}
    for deal, column in BLOTS:  # each scribbled cell as decided: the arithmetic's value
        assert rows[int(deal)][column] == truth[int(deal)][column]
        assert column in rows[int(deal)]["decided"]
    assert by["turned"]["status"] == "ok" and len(by["turned"]["rows"]) == 30
    labels = out / "labels.npz"
    subprocess.run([sys.executable, "cli.py", "labels", str(out), "--out", str(labels)],
                   check=True, cwd=Path(__file__).resolve().parents[2])
    with np.load(labels) as npz:
        assert npz["images"].dtype == np.uint8 and npz["images"].ndim == 3
        assert len(npz["values"]) == len(npz["images"]) == len(npz["sources"]) >= 5
        assert "100" in list(npz["values"])


def clear(page: Page, most: int = 12) -> None:
    """Enter on every item left on the sheet (each has an answer to accept)."""
    from selenium.webdriver.common.keys import Keys

    for _ in range(most):
        if not page.has("#item"):
            return
        page.key(Keys.ENTER)
    raise AssertionError(f"still open after {most} answers: {page.text('#question')}")


def _sheet_id(out: Path, stem: str) -> str:
    with Ledger(out / LEDGER_NAME, readonly=True) as ledger:
        return next(s.sheet_id for s in ledger.sheets() if Path(s.source).stem == stem)


def _truth(name: str) -> list[dict]:
    from tests.review.fixtures import truth_rows

    return truth_rows(name)
