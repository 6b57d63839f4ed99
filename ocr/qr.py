"""QR codes on a page, decoded with OpenCV (cv2.QRCodeDetector): the code a match's printed form
carries (ocr/matchform.py).  Returns the texts found; what they mean is the competition's business.
"""

from __future__ import annotations

import cv2
import numpy as np

# Scales to look at an image at, in turn, until a code decodes: the detector finds the finder
# patterns at some module sizes and not others (a fax's blocky modules, a photo's blur), and the
# code printed on our forms is 4-9 px a module on a straightened page.
SCALES = (1.0, 0.7, 1.3)


def decode_codes(image: np.ndarray, scales: tuple[float, ...] = SCALES) -> list[str]:
    """The text of a QR code found on ``image`` (grey or BGR), as a one-item list; [] when none
    is found or none decodes."""
    grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    if grey.size == 0:
        return []
    detector = cv2.QRCodeDetector()
    for scale in scales:
        resized = grey if scale == 1.0 else cv2.resize(
            grey, None, fx=scale, fy=scale,
            interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_CUBIC)
        try:
            text, _, _ = detector.detectAndDecode(resized)
        except cv2.error:
            continue
        if text:
            return [text]
    return []


def may_hold_code(image: np.ndarray, side: tuple[float, float]) -> bool:
    """Whether ``image`` (grey or BGR) holds a dark square block that could be a QR code: its ink
    (Otsu) closed over ~two modules, a part ``side[0]``-``side[1]`` pixels a side, about square and
    mostly solid.  The detector costs ~25 ms on a page corner that has no code (every scale tried);
    this look ~3 ms.  Blur and a fax's blocky modules only make the block more solid."""
    grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    if grey.size == 0:
        return False
    _, ink = cv2.threshold(grey, 0, 1, cv2.THRESH_BINARY_INV + cv2.THRESH_OTSU)
    closed = cv2.morphologyEx(ink, cv2.MORPH_CLOSE, np.ones((9, 9), np.uint8))
    _, _, stats, _ = cv2.connectedComponentsWithStats(closed, connectivity=8)
    lo, hi = side
    for _, _, w, h, area in stats[1:]:
        if lo <= w <= hi and lo <= h <= hi and 0.7 <= w / h <= 1.43 and area >= 0.7 * w * h:
            return True
    return False

