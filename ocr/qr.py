"""QR codes on a page, decoded with OpenCV (cv2.QRCodeDetector): the code a match's printed form
carries (ocr/matchform.py).  Returns the texts found; what they mean is the competition's business.
"""

from __future__ import annotations

import cv2
import numpy as np

# Long sides to look at an image at, when a look at it as it is finds a code it cannot decode (or
# none): the code printed on our forms is 22 mm, 4-9 px a module on a straightened A4 page.
SIDES = (0, 1100, 2400)  # 0: as it is


def decode_codes(image: np.ndarray, sides: tuple[int, ...] = SIDES) -> list[str]:
    """Every QR code's text found on ``image`` (grey or BGR), at the first size that decodes any;
    [] when none is found or none decodes.  An image with no code costs one look (~30 ms for the
    top quarter of a page): other sizes are tried only where a code was seen but not decoded."""
    grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    if grey.size == 0:
        return []
    detector = cv2.QRCodeDetector()
    long_side = max(grey.shape[:2])
    tried: set[int] = set()
    for side in sides:
        size = long_side if side == 0 else min(side, long_side * 2)
        if size in tried:
            continue
        tried.add(size)
        scale = size / long_side
        resized = grey if size == long_side else cv2.resize(
            grey, None, fx=scale, fy=scale,
            interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_CUBIC)
        texts, seen = _decode(detector, resized)
        if texts:
            return texts
        if not seen:
            return []
    return []


def _decode(detector, grey: np.ndarray) -> tuple[list[str], bool]:
    """(the texts decoded, whether a code was seen at all)."""
    try:
        text, points, _ = detector.detectAndDecode(grey)
    except cv2.error:
        return [], False
    return ([text] if text else []), points is not None
