"""Peak memory of the worst inputs found in issue 31, read by `rubberscan read` in a process of its own.

The inputs are made once in bench/_work/hostile/ (decompression bombs in all but name: tiny files
that decode to billions of pixels):

- tiff30-79mp: 30 blank 79-megapixel frames, 1 bit, CCITT group 4 (~170 KB)
- tiff15-79mp: the same with 15 frames (1.2 gigapixels: within the per-file pixel budget)
- tiff1-79mp-rgb: one blank 79-megapixel colour frame (deflate)
- tiff1-79mp-sheet: one 79-megapixel colour frame holding a generated sheet (read whole)
- pdf200: 200 blank A4 pages
- pdf200-sheets: 200 pages, each a generated score sheet (reads every page: slow, --sheets)

Each is read --repeats times by ``cli.py read --format jsonl`` (under ``--root``, to measure an
older tree with the same interpreter); the peak resident set of that process (its VmHWM) and its
wall time are given as medians:

    OMP_NUM_THREADS=1 OMP_THREAD_LIMIT=1 nice -n 10 .venv/bin/python bench/bench_hostile_memory.py
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
WORK = HERE / "_work" / "hostile"
SIDE = (10_000, 7_900)  # 79 megapixels: just under the per-frame limit of 80


def make_inputs(with_sheets: bool) -> dict[str, Path]:
    """The inputs, made once (kept in bench/_work/hostile/)."""
    import numpy as np
    import pypdfium2 as pdfium
    from PIL import Image

    WORK.mkdir(parents=True, exist_ok=True)
    out = {}
    blank = None
    for frames in (30, 15):
        path = WORK / f"tiff{frames}-79mp.tif"
        if not path.exists():
            blank = blank or Image.new("1", SIDE, 1)
            blank.save(path, format="TIFF", compression="group4", save_all=True,
                       append_images=[blank] * (frames - 1))
        out[path.stem] = path
    path = WORK / "tiff1-79mp-rgb.tif"
    if not path.exists():
        Image.new("RGB", SIDE, (250, 250, 250)).save(path, format="TIFF", compression="tiff_deflate")
    out[path.stem] = path
    path = WORK / "tiff1-79mp-sheet.tif"
    if not path.exists():  # a generated sheet scanned at 79 megapixels: geometry and reading too
        import cv2

        sys.path.insert(0, str(HERE.parent))
        from samples.generate import render_sheet

        image, _ = render_sheet(91300, scan="clean", layout="classic")
        h, w = image.shape[:2]
        scale = min(SIDE[1] / h, SIDE[0] / w)
        big = cv2.resize(image, (int(w * scale), int(h * scale)), interpolation=cv2.INTER_CUBIC)
        page = np.full((SIDE[1], SIDE[0], 3), 250, np.uint8)
        page[:big.shape[0], :big.shape[1]] = big if big.ndim == 3 else big[:, :, None]
        Image.fromarray(cv2.cvtColor(page, cv2.COLOR_BGR2RGB)).save(path, format="TIFF",
                                                                   compression="tiff_deflate")
        del page, big
    out[path.stem] = path
    path = WORK / "pdf200.pdf"
    if not path.exists():
        pdf = pdfium.PdfDocument.new()
        for _ in range(200):
            pdf.new_page(595, 842).close()
        pdf.save(str(path))
        pdf.close()
    out[path.stem] = path
    if with_sheets:
        path = WORK / "pdf200-sheets.pdf"
        if not path.exists():
            sys.path.insert(0, str(HERE.parent))
            from samples.generate import generate_sheet

            pdf = pdfium.PdfDocument.new()
            for seed in range(91000, 91200):  # seeds no benchmark tunes on
                data, _ = generate_sheet(seed, container="pdf", scan="clean")
                pdf.import_pages(pdfium.PdfDocument(data))
            pdf.save(str(path))
            pdf.close()
        out[path.stem] = path
    return out


# Runs cli.py in the child and prints its peak resident set (VmHWM) on the way out.  Not wait4's
# ru_maxrss: Linux counts in it the parent's memory at fork, when the parent is the larger.
WRAP = """
import atexit, runpy, sys
def hwm():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            sys.stderr.write("PEAK_KB " + line.split()[1] + "\\n")
atexit.register(hwm)
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""


def peak(root: Path, path: Path, timeout: float) -> tuple[float, float, int]:
    """(peak RSS MB, wall seconds, exit status) of one `cli.py read` of ``path``."""
    env = dict(os.environ, PYTHONPATH=str(root), OMP_NUM_THREADS="1", OMP_THREAD_LIMIT="1")
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", WRAP, str(root / "cli.py"), "read", "--format", "jsonl",
                           str(path)], cwd=root, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          text=True, timeout=timeout)
    wall = time.perf_counter() - t0
    kb = [int(line.split()[1]) for line in proc.stderr.splitlines() if line.startswith("PEAK_KB ")]
    return (kb[-1] / 1024 if kb else float("nan")), wall, proc.returncode


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", type=Path, default=HERE.parent, help="the source tree whose cli.py to run")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--sheets", action="store_true", help="also the 200-page PDF of sheets (minutes)")
    ap.add_argument("--only", nargs="*", default=None, help="input names to run (default: all)")
    ap.add_argument("--timeout", type=float, default=900)
    args = ap.parse_args(argv)
    inputs = make_inputs(args.sheets)
    print(f"tree: {args.root}\n")
    print("| input | file size | peak RSS (MB, median) | wall s (median) | exit |")
    print("|---|---:|---:|---:|---:|")
    for name, path in inputs.items():
        if args.only and name not in args.only:
            continue
        runs = [peak(args.root.resolve(), path, args.timeout) for _ in range(args.repeats)]
        rss = statistics.median(r[0] for r in runs)
        wall = statistics.median(r[1] for r in runs)
        size = path.stat().st_size
        print(f"| {name} | {size / 1024:,.0f} KB | {rss:,.0f} | {wall:.1f} | {runs[0][2]} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
