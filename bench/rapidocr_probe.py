"""PP-OCRv6 as rapidocr itself runs it, on ORAND-CAR-A: a reference for ocr/ppocr.py, not part of the product.

Runs in a scratch virtual environment outside the product (rapidocr and onnxruntime are no
dependency of rubberscan):

    python3 -m venv /tmp/rapid && /tmp/rapid/bin/pip install rapidocr==3.10.0 onnxruntime opencv-python-headless
    OMP_NUM_THREADS=1 /tmp/rapid/bin/python bench/rapidocr_probe.py [--count N] [--det]

Each image is read as rapidocr reads a file (BGR, three channels) by its own PP-OCRv6 small
recogniser -- recognition only (no detection, no direction classifier) unless ``--det`` -- and its
text filtered to digits.  Printed: exact (the digits equal the truth's), and digits right
(1 - the character error rate, bench_cells.py's measure).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path

import cv2

ORAND = Path(__file__).resolve().parents[2] / "shared" / "data" / "orand-car-a"


def edit_distance(a: str, b: str) -> int:
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, cb in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (ca != cb))
    return row[-1]


def main(argv: list[str]) -> int:
    from rapidocr import RapidOCR  # the scratch environment's

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=1080)
    ap.add_argument("--det", action="store_true", help="with rapidocr's text detector in front")
    args = ap.parse_args(argv)
    items = json.loads((ORAND / "labels.json").read_text())[: args.count]
    engine = RapidOCR(params={"Global.log_level": "error", "EngineConfig.onnxruntime.intra_op_num_threads": 1,
                              "EngineConfig.onnxruntime.inter_op_num_threads": 1})
    exact = errors = 0
    t0 = time.process_time()
    for it in items:
        out = engine(cv2.imread(str(ORAND / it["image"])), use_det=args.det, use_cls=False, use_rec=True)
        digits = re.sub(r"\D", "", "".join(out.txts or ()))
        exact += digits == it["digits"]
        errors += edit_distance(it["digits"], digits)
    n = len(items)
    print(f"{'with detection' if args.det else 'recognition only'}, {n} images: exact {100 * exact / n:.1f} %, "
          f"digits right {100 * (1 - errors / sum(len(it['digits']) for it in items)):.1f} %, "
          f"{1000 * (time.process_time() - t0) / n:.0f} ms CPU an image")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
