"""Files a batch leaves in its folder, all written atomically from the ledger:
DIR/report.html, and per sheet DIR/sheets/<id>.json (the CONTRACT object with
explanations) and DIR/sheets/<id>.html."""

from __future__ import annotations

import base64
from pathlib import Path

from batch.atomic import atomic_write_json, atomic_write_text
from batch.ledger import Ledger, LedgerSheet, ScanRecord
from report.html import render_index, render_sheet

REPORT_NAME = "report.html"
# the competition's page (competition/outputs.py writes it), linked from the index when it is there
COMPETITION_PAGE = ("competition.html", "The competition: rounds, results, standings and the draw")


def write_sheet_files(out_dir: Path, sheet: LedgerSheet) -> None:
    """sheets/<id>.json and sheets/<id>.html for one sheet."""
    if sheet.sheet_id is None:
        return
    sheets_dir = Path(out_dir) / "sheets"
    if sheet.result is not None:
        atomic_write_json(sheets_dir / f"{sheet.sheet_id}.json", sheet.result)
    page = render_sheet(sheet, _image_b64(sheets_dir, sheet))
    atomic_write_text(sheets_dir / f"{sheet.sheet_id}.html", page)


def write_scan_outputs(out_dir: Path, ledger: Ledger, record: ScanRecord) -> None:
    """Files for every sheet of a scan just committed to the ledger."""
    for sheet in record.sheets:
        for row in ledger.sheets(sheet.sheet_id):
            write_sheet_files(out_dir, row)


def write_index(out_dir: Path, ledger: Ledger) -> Path:
    """DIR/report.html from the ledger's current contents."""
    links = [COMPETITION_PAGE] if (Path(out_dir) / COMPETITION_PAGE[0]).is_file() else []
    html = render_index(ledger.sheets(), ledger.counts(), ledger.get_setting("rules"),
                        ledger.messages(), links)
    return atomic_write_text(Path(out_dir) / REPORT_NAME, html)


def _image_b64(sheets_dir: Path, sheet: LedgerSheet) -> str | None:
    if not sheet.image:
        return None
    try:
        return base64.b64encode((sheets_dir / Path(sheet.image).name).read_bytes()).decode("ascii")
    except OSError:
        return None
