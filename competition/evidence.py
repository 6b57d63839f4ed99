"""Each sheet's clues, from the batch folder's ledger: the e-mail's sender (kept by the batch for
e-mailed scans), the QR texts and the names and winners lines the reader kept with the reading
(ocr/clues.py), the lines run once through the PP-OCRv6 recogniser and kept folded
(competition/names.py) in the ledger, so a changed roster is matched again in milliseconds.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from batch.ledger import Ledger, LedgerSheet
from competition import store
from competition.assign import SheetEvidence
from competition.names import fold


@dataclass
class LinesReader:
    """The recogniser of names lines: ocr.ppocr.LineReader, or None when it is not installed."""

    reader: object | None

    @classmethod
    def default(cls) -> LinesReader:
        from ocr.ppocr import default_reader

        try:
            return cls(default_reader())
        except (OSError, ValueError):
            return cls(None)

    @property
    def model(self) -> str:
        return getattr(self.reader, "digest", "")

    def frames(self, crops: dict[str, str]) -> dict[str, np.ndarray]:
        """Folded frames of each stored crop (ocr.clues.encode_png); a damaged crop is left out."""
        from ocr.clues import decode_png

        if self.reader is None or not crops:
            return {}
        names, images = [], []
        for name, text in sorted(crops.items()):
            try:
                images.append(decode_png(text))
                names.append(name)
            except ValueError:
                continue
        if not images:
            return {}
        probs = self.reader.probs(images)
        return {n: fold(p, self.reader.chars) for n, p in zip(names, probs, strict=True)}


def sheet_evidence(ledger: Ledger, lines: LinesReader, writable: bool = True
                   ) -> tuple[list[SheetEvidence], dict[str, LedgerSheet]]:
    """The evidence of every sheet read (in the order the batch took them) and the sheets by id.
    Frames not yet kept are made now and, when ``writable``, kept."""
    readings = dict(ledger.readings())
    sheets: dict[str, LedgerSheet] = {}
    out: list[SheetEvidence] = []
    for sheet in ledger.sheets():
        if sheet.sheet_id is None or sheet.status != "ok" or sheet.result is None:
            continue
        sheets[sheet.sheet_id] = sheet
        clues = ((readings.get(sheet.sheet_id) or {}).get("meta") or {}).get("clues") or {}
        frames = None
        if lines.reader is not None:
            frames = store.load_frames(ledger, sheet.sheet_id, lines.model)
            if frames is None:
                frames = lines.frames(clues.get("lines") or {})
                if writable:
                    store.save_frames(ledger, sheet.sheet_id, lines.model, frames)
        out.append(SheetEvidence(sheet.sheet_id, sheet.sender,
                                 [t for t in clues.get("qr") or [] if isinstance(t, str)],
                                 frames or {}, sheet.date or sheet.processed_at,
                                 sheet.processed_at))
    return out, sheets
