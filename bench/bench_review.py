"""The review app's speed: how long its pages take to answer, a decision to be made, and the
machine's share of an organiser clearing a sheet with three review items by keyboard.

A batch folder is read by the real batch from the eight committed sample scans plus three made
from them (tests/review/fixtures.py: cells scribbled over, a page turned so no table is found),
then grown to ``--sheets`` sheets by copying its sheets under new ids (a season's ledger: the
index lists them all).  `rubberscan review` serves it (waitress, as the organiser runs it); pages
are fetched over one keep-alive connection, ``--repeats`` times each, and the median and the
95th percentile of the wall time per request are printed; decisions are made and undone in
turn.  With ``--browser``, headless Chromium (Selenium, the OS's chromedriver) opens the sheet
with three items and clears it with Enter, timing each key to the new page:

    OMP_NUM_THREADS=1 OMP_THREAD_LIMIT=1 nice -n 10 .venv/bin/python -m bench.bench_review \\
        --sheets 300 --repeats 30 --browser --keep-cost

(``--keep-cost``: what keeping the app's pictures adds to each sheet of a batch.)
"""

from __future__ import annotations

import argparse
import http.client
import json
import re
import shutil
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parent.parent
SCANS = ROOT / "samples" / "scans"


def make_folder(work: Path) -> Path:
    """The real batch over the samples and the review tests' three scans."""
    from tests.review.fixtures import blotted, turned

    inputs = work / "in"
    inputs.mkdir(parents=True)
    for scan in sorted(SCANS.iterdir()):
        if not scan.name.endswith(".json"):
            shutil.copy(scan, inputs / scan.name)
    blotted(inputs)
    turned(inputs)
    out = work / "out"
    subprocess.run([sys.executable, "cli.py", "batch", str(inputs), "--out", str(out), "--jobs",
                    "1", "--quiet"], cwd=ROOT, check=False, capture_output=True)
    return out


def grow(out: Path, sheets: int) -> None:
    """Copy the folder's scans and sheets (and their files) under new ids up to ``sheets``."""
    db = sqlite3.connect(out / "ledger.sqlite")
    scans = db.execute("SELECT id FROM scans").fetchall()
    have = db.execute("SELECT COUNT(*) FROM sheets").fetchone()[0]
    copy = 0
    while have < sheets:
        copy += 1
        for (scan_id,) in scans:
            if have >= sheets:
                break
            row = db.execute("SELECT * FROM scans WHERE id = ?", (scan_id,)).fetchone()
            cols = [d[0] for d in db.execute("SELECT * FROM scans").description]
            values = dict(zip(cols, row, strict=True))
            values.pop("id")
            values["sha256"] = f"{values['sha256']}-{copy}"
            values["source"] = f"copy{copy}/{values['source']}"
            cur = db.execute(f"INSERT INTO scans ({', '.join(values)}) VALUES "
                             f"({', '.join('?' * len(values))})", list(values.values()))
            for (sid,) in db.execute("SELECT id FROM sheets WHERE scan_id = ?", (scan_id,)):
                new = f"{sid}-c{copy}"
                for table, key in (("sheets", "id"), ("readings", "sheet_id"),
                                   ("matches", "sheet_id"), ("flags", "sheet_id"),
                                   ("reviews", "sheet_id")):
                    tcols = [d[0] for d in db.execute(f"SELECT * FROM {table}").description]
                    for trow in db.execute(f"SELECT * FROM {table} WHERE {key} = ?",
                                           (sid,)).fetchall():
                        v = dict(zip(tcols, trow, strict=True))
                        v[key] = new
                        if table == "sheets":
                            v["scan_id"] = cur.lastrowid
                        db.execute(f"INSERT INTO {table} ({', '.join(v)}) VALUES "
                                   f"({', '.join('?' * len(v))})", list(v.values()))
                have += 1
    db.commit()


def fetch(conn: http.client.HTTPConnection, method: str, path: str, body: dict | None = None,
          cookie: str = "") -> tuple[float, int, str, dict]:
    data = urlencode(body).encode() if body else None
    headers = {"Cookie": cookie} if cookie else {}
    if data:
        headers["Content-Type"] = "application/x-www-form-urlencoded"
    t0 = time.perf_counter()
    conn.request(method, path, body=data, headers=headers)
    answer = conn.getresponse()
    payload = answer.read()
    elapsed = time.perf_counter() - t0
    text = payload.decode("utf-8", "replace") if "html" in answer.getheader("Content-Type", "") \
        else ""
    return elapsed, answer.status, text, dict(answer.getheaders())


def summary(name: str, times: list[float]) -> str:
    ms = sorted(1000 * t for t in times)
    p95 = ms[min(len(ms) - 1, round(0.95 * (len(ms) - 1)))]
    return f"| {name} | {len(ms)} | {statistics.median(ms):.1f} | {p95:.1f} | {ms[-1]:.1f} |"


def bench_pages(address: str, out: Path, repeats: int) -> list[str]:
    from batch.ledger import Ledger

    host, port = re.match(r"http://([\d.]+):(\d+)/", address).groups()
    conn = http.client.HTTPConnection(host, int(port), timeout=60)
    with Ledger(out / "ledger.sqlite", readonly=True) as ledger:
        sheets = ledger.sheets()
    blotted = next(s for s in sheets if s.source.endswith("blotted.jpg"))
    failed = next(s for s in sheets if s.source.endswith("turned.jpg"))
    sid = blotted.sheet_id
    targets = {
        "GET / (the queue)": "/",
        "GET /sheet/<id> (an item, its row in context)": f"/sheet/{sid}",
        "GET a cell at full resolution (PNG)": f"/img/{sid}/cell/3/cum_ns.png",
        "GET its row and the rows around it (JPEG)": f"/img/{sid}/rows/3.jpg?mark=3:cum_ns",
        "GET /sheet/<id> of a table not found": f"/sheet/{failed.sheet_id}",
        "GET /sheet/<id>/rows (type the rows)": f"/sheet/{sid}/rows",
    }
    lines = []
    for name, path in targets.items():
        fetch(conn, "GET", path)  # a first look (templates compiled, picture decoded)
        times = []
        for _ in range(repeats):
            elapsed, status, _text, _ = fetch(conn, "GET", path)
            assert status == 200, (path, status)
            times.append(elapsed)
        lines.append(summary(name, times))
    # decisions: the first answer of the sheet's first item, then its undo, in turn
    times, undos = [], []
    for _ in range(max(3, repeats // 5)):
        _e, _s, page, _h = fetch(conn, "GET", f"/sheet/{sid}")
        csrf = re.search(r'name="csrf" value="([^"]+)"', page).group(1)
        version = re.search(r'name="version" value="(\d+)"', page).group(1)
        item = re.search(r'name="item" value="([^"]+)"', page).group(1)
        elapsed, status, _t, _h = fetch(conn, "POST", f"/sheet/{sid}/decide",
                                        {"csrf": csrf, "version": version, "item": item,
                                         "choice": "0"})
        assert status == 303, status
        times.append(elapsed)
        elapsed, status, _t, _h = fetch(conn, "POST", f"/sheet/{sid}/undo",
                                        {"csrf": csrf, "version": str(int(version) + 1)})
        assert status == 303, status
        undos.append(elapsed)
    lines.append(summary("POST a decision (re-reconcile, ledger, sheet files, report)", times))
    lines.append(summary("POST its undo", undos))
    return lines


def bench_browser(address: str, out: Path) -> list[str]:
    """Headless Chromium clears the blotted sheet's items (four: three scribbled cells and one
    overridden reading; the first three are timed) with Enter."""
    from selenium import webdriver
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait

    from batch.ledger import Ledger

    with Ledger(out / "ledger.sqlite", readonly=True) as ledger:
        sid = next(s.sheet_id for s in ledger.sheets() if s.source.endswith("blotted.jpg"))
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or shutil.which("chromium-browser")
    profile = tempfile.mkdtemp(prefix="bench-review-chromium-")
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", f"--user-data-dir={profile}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(options=options,
                              service=Service(executable_path=shutil.which("chromedriver")))
    try:
        t0 = time.perf_counter()
        driver.get(f"{address}sheet/{sid}")
        first = time.perf_counter() - t0
        keys = []
        for _ in range(3):
            driver.execute_script("window.rubberscanOldPage = true")
            t0 = time.perf_counter()
            ActionChains(driver).send_keys(Keys.ENTER).perform()
            WebDriverWait(driver, 60, ignored_exceptions=(WebDriverException,)).until(
                lambda d: d.execute_script(
                    "return window.rubberscanOldPage === undefined && document.readyState === "
                    "'complete' && [...document.images].every(i => i.complete)"))
            keys.append(time.perf_counter() - t0)
        left = driver.find_element(By.ID, "n-open").text
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)
    return [f"| open the sheet (page and pictures) | {1000 * first:.0f} ms |",
            *(f"| Enter on item {i + 1} -> the next item shown | {1000 * k:.0f} ms |"
              for i, k in enumerate(keys)),
            f"| machine time for the three items | {sum(keys) + first:.2f} s ({left} left open) |"]


def bench_keep(repeats: int) -> list[str]:
    """What keeping the review app's pictures adds to a batch: batch.keep.keep_cells on each
    sample scan's table (CPU ms, median over the repeats, then over the sheets)."""
    from batch.keep import keep_cells
    from ocr.pipeline import read_results

    work = Path(tempfile.mkdtemp(prefix="bench-review-keep-"))
    per_sheet, sizes = [], []
    try:
        for scan in sorted(SCANS.iterdir()):
            if scan.name.endswith(".json"):
                continue
            for result in read_results(scan):
                if result.table is None:
                    continue
                runs = []
                for _ in range(repeats):
                    c0 = time.process_time()
                    keep_cells(result.table, work, "s")
                    runs.append(time.process_time() - c0)
                per_sheet.append(1000 * statistics.median(runs))
                sizes.append(sum(p.stat().st_size for p in work.glob("s.*")))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return [f"| keep_cells (straight.jpg + cells.png), CPU ms per sheet | {len(per_sheet)} | "
            f"{statistics.median(per_sheet):.0f} (max {max(per_sheet):.0f}) |",
            f"| their size, MB per sheet | {len(sizes)} | {statistics.median(sizes) / 1e6:.2f} "
            f"(max {max(sizes) / 1e6:.2f}) |"]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sheets", type=int, default=300, help="sheets in the ledger")
    ap.add_argument("--repeats", type=int, default=30)
    ap.add_argument("--browser", action="store_true", help="also time the keyboard in Chromium")
    ap.add_argument("--keep", metavar="DIR", help="build the folder here and keep it")
    ap.add_argument("--keep-cost", action="store_true",
                    help="also time what keeping the pictures adds to a batch (the samples)")
    args = ap.parse_args(argv)
    if args.keep_cost:
        print("| batch's extra work for the app | sheets | median |\n|---|---:|---:|")
        print("\n".join(bench_keep(3)) + "\n")
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="bench-review-"))
    try:
        t0 = time.perf_counter()
        out = make_folder(work)
        grow(out, args.sheets)
        print(f"batch folder: {args.sheets} sheets ({time.perf_counter() - t0:.0f} s to make)\n")
        server = subprocess.Popen([sys.executable, "cli.py", "review", str(out), "--port", "0"],
                                  cwd=ROOT, stdout=subprocess.PIPE, text=True)
        try:
            address = server.stdout.readline().strip()
            time.sleep(5)  # the app's warm-up (scoring tables) done, as while a page is read
            print("| request | n | median ms | 95th percentile ms | max ms |")
            print("|---|---:|---:|---:|---:|")
            print("\n".join(bench_pages(address, out, args.repeats)))
            if args.browser:
                print("\n| headless Chromium, keyboard only | wall time |\n|---|---:|")
                print("\n".join(bench_browser(address, out)))
        finally:
            server.send_signal(signal.SIGTERM)
            server.wait(timeout=30)
        sizes = {k: sum(p.stat().st_size for p in (out / "sheets").glob(f"*{k}")) for k in
                 (".straight.jpg", ".cells.png", ".page.jpg")}
        kept = json.dumps({k: f"{v / 1e6:.1f} MB" for k, v in sizes.items()})
        print(f"\nkept for the review app by the batch of the 10 distinct sheets: {kept}")
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
