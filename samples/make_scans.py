"""Recipe for the committed demo scans in samples/scans/ (what `make demo` reads).

    .venv/bin/python samples/make_scans.py

Each entry: a file name, a seed and generator options; every file gets its
NAME.truth.json beside it.  Kept small (JPEG/PNG <= ~400 KB each, < 3 MB in all).
"""

from __future__ import annotations

import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from samples.generate import write_sheet

SCANS = Path(__file__).resolve().parent / "scans"
SAMPLES: list[tuple[str, int, dict]] = [
    ("01-classic-clean-mnist-blue", 101,
     dict(layout="classic", hand="mnist", ink="blue", scan="clean", scan_dpi=200,
          jpeg_quality=62, mistakes=(), container="jpg")),
    ("02-wide-photo-strokes-black", 102,
     dict(layout="wide", hand="strokes", ink="black", scan="photo", scan_dpi=150,
          jpeg_quality=60, mistakes=("slip_carried",), container="jpg", allow_turn=False)),
    ("03-classic-skewed-hershey-pencil", 103,
     dict(layout="classic", hand="hershey", ink="pencil", scan="skewed", scan_dpi=200,
          jpeg_quality=62, mistakes=(), container="jpg")),
    ("04-wide-fax-mnist", 104,
     dict(layout="wide", hand="mnist", ink="blue", scan="fax", zero_style="dash",
          mistakes=("missing_deal", "total"), container="png")),
    ("05-classic-typed-clean", 105,
     dict(layout="classic", typed=True, scan="clean", scan_dpi=200, jpeg_quality=62,
          mistakes=("impossible_pair",), container="pdf")),
    ("06-wide-photo-two-hands", 106,
     dict(layout="wide", hand="mnist", second_hand="strokes", ink="blue", scan="photo",
          scan_dpi=150, jpeg_quality=55, mistakes=("winner",), container="pdf",
          allow_turn=False)),
    ("07-classic-fax-strokes-tiff", 107,
     dict(layout="classic", hand="strokes", ink="black", scan="fax", zero_style="zero",
          mistakes=("dealer", "unexplainable"), container="tiff")),
    ("08-classic-skewed-mnist-upside-down", 108,
     dict(layout="classic", hand="mnist", ink="black", scan="skewed", scan_dpi=200,
          jpeg_quality=62, mistakes=("miscopy",), container="jpg")),
]


def main() -> int:
    SCANS.mkdir(parents=True, exist_ok=True)
    for name, seed, options in SAMPLES:
        path = write_sheet(SCANS, seed, name=name, **options)
        print(f"{path.name}: {path.stat().st_size // 1024} KB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
