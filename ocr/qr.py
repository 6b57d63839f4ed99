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
