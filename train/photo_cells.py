"""Training cells from phone photos: generated photos (samples/photo.py's wide span and
samples/photo3d.py's 3-D scenes) cut by the product's own geometry and prepared exactly as
read_table prepares a photographed table's cells, each labelled with what the sheet generator wrote.

    .venv-train/bin/python -m train.photo_cells --wide-first 7000000 --wide-count 200 \
        --scene-first 30000 --scene-count 200 --blur-first 7500000 --blur-count 160 \
        --jobs 2 --out train/_data/photo.npz

Recipe (deterministic for given seeds):
- training seeds no benchmark uses: the wide span from 7,000,000 (the photo benchmarks use
  900,000-4,200,000), 3-D scenes from 30,000 (the benchmarks 6,000-15,039, 25,000-29,039 and
  31,000-34,039; bench/RESULTS-geometry.md's 3-D set 30,000-30,039 is among these); the wide span's
  condition drawn per seed in turn (each of samples.photo.CONDITIONS alone, then "combined");
- more blurred photos: the wide span's "camera" (low resolution, blur, noise, JPEG) and "combined"
  photos in turn from 7,500,000 (the "blurred" kind), the conditions whose writing the photo
  networks read worst (bench/RESULTS-geometry.md, photoblur); listed after the others, so the
  cells of the first two kinds come out as they did without them;
- each photo goes through load -> straighten -> find_table as a user's photo does, and is used
  only when its table is cut right (bench/bench_photo.py's ``cut_right``: every cell of the deals
  shown inside its true cell), so no label is shifted; the cells of deals the glare touches are
  left out (their writing may be washed away);
- every dealer and number cell becomes ``ocr.prep.prepare_cut`` of the cell image -- after
  ``ocr.prep.clear_rulings`` for number cells of a table straightened from its lattice, as
  read_table does -- with its written text; cells with no ink after the cut are left out;
- ``kinds`` are "column|photo|wide", "column|photo|scene3d" or "column|photo|blurred" (the hand "photo", so
  ``train_cellnet.py --weight photo=W`` draws them more often), plus "|grid" when the table was
  straightened from its lattice (the path the photo networks read).
"""

from __future__ import annotations

import argparse
import sys
import time
from multiprocessing import Pool
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
KEYS = ("dealer", "ns", "ew", "cum_ns", "cum_ew")


def _init() -> None:
    import cv2

    cv2.setNumThreads(1)
    sys.path.insert(0, str(ROOT / "bench"))


def photo_of(job: tuple[str, int]) -> tuple[bytes, dict]:
    """The photo (JPEG bytes, as the generators write it) and truth of one training job: ("wide",
    seed), ("scene3d", seed) or ("blurred", seed)."""
    import cv2

    kind, seed = job
    if kind == "scene3d":
        from samples.photo3d import _render

        _, truth, data = _render(seed)
        return data, truth
    from samples.photo import CONDITIONS, render_photo

    sets = (CONDITIONS + ("combined",)) if kind == "wide" else ("camera", "combined")
    image, truth = render_photo(seed, conditions=sets[seed % len(sets)], span="wide")
    ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(truth["jpeg_quality"])])
    if not ok:
        raise OSError(f"cannot encode photo {seed}")
    return buf.tobytes(), truth


def one_photo(job: tuple[str, int]) -> tuple[list, list, list, str]:
    """(prepared cells as uint8, labels, kinds, error) of one training photo."""
    from bench_photo import cut_right

    from ocr.ctc import ALPHABET
    from ocr.data import InputError
    from ocr.load import load_pages
    from ocr.page import straighten
    from ocr.prep import clear_rulings, prepare_cut
    from ocr.settings import ReaderSettings
    from ocr.table import find_table

    kind, seed = job
    name = f"{kind}-{seed}"
    images: list = []
    labels: list = []
    kinds: list = []
    try:
        data, truth = photo_of(job)
    except Exception as exc:  # noqa: BLE001 - a generator failure skips one photo, reported
        return images, labels, kinds, f"{name}: generator: {exc}"
    try:
        page = load_pages(f"{name}.jpg", data=data, name=f"{name}.jpg")[0]
        table = find_table(straighten(page))
    except (InputError, IndexError) as exc:
        return images, labels, kinds, f"{name}: {exc}"
    right, why = cut_right(table, truth)
    if not right:
        return images, labels, kinds, f"{name}: cut wrong ({why})"
    settings = ReaderSettings()
    photo = table.straight.grid is not None
    shown = set(truth["visible_deals"]) - set(truth.get("glare_touched_deals", truth["glare_deals"]))
    want = {(c["row"], c["key"]): c for c in truth["cells"] if c["key"] in KEYS}
    for cell in table.cells:
        c = want.get((cell.row, cell.key))
        if c is None or not cell.row.isdigit() or int(cell.row) not in shown:
            continue
        text = (c["text"] or "").strip().replace(" ", "")
        if any(ch not in ALPHABET for ch in text):
            continue
        grey = clear_rulings(cell.image, settings) if photo and cell.key != "dealer" else cell.image
        x, cut = prepare_cut(grey, settings)
        if cut is None:
            continue
        images.append((x * 255).round().astype(np.uint8))
        labels.append(text)
        kinds.append(f"{cell.key}|photo|{kind}" + ("|grid" if photo else ""))
    return images, labels, kinds, ""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--wide-first", type=int, default=7_000_000)
    ap.add_argument("--wide-count", type=int, default=200)
    ap.add_argument("--scene-first", type=int, default=30_000)
    ap.add_argument("--scene-count", type=int, default=200)
    ap.add_argument("--blur-first", type=int, default=7_500_000)
    ap.add_argument("--blur-count", type=int, default=160)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", default="train/_data/photo.npz")
    ap.add_argument("--save-every", type=int, default=100, help="write the cells so far every this many photos")
    args = ap.parse_args(argv)
    # interleaved, so a run stopped early still holds both kinds
    wide = [("wide", args.wide_first + i) for i in range(args.wide_count)]
    scene = [("scene3d", args.scene_first + i) for i in range(args.scene_count)]
    jobs = [j for pair in zip(wide, scene, strict=False) for j in pair] + wide[len(scene):] + scene[len(wide):]
    jobs += [("blurred", args.blur_first + i) for i in range(args.blur_count)]
    t0 = time.time()
    images, labels, kinds, seeds = [], [], [], []
    used = 0
    with Pool(args.jobs, initializer=_init) as pool:
        for k, (im, lab, kd, err) in enumerate(pool.imap(one_photo, jobs, chunksize=1)):
            if err:
                print(err, file=sys.stderr, flush=True)
            else:
                used += 1
            images += im
            labels += lab
            kinds += kd
            seeds += [jobs[k][1]] * len(im)
            if k % 20 == 0:
                print(f"{k + 1} photos, {used} cut right, {len(images)} cells, {time.time() - t0:.0f}s",
                      file=sys.stderr, flush=True)
            if args.save_every and (k + 1) % args.save_every == 0:  # a run stopped early keeps what it made
                save(args.out, images, labels, kinds, seeds)
    out = save(args.out, images, labels, kinds, seeds)
    print(f"wrote {len(images)} cells from {used} of {len(jobs)} photos to {out} in {time.time() - t0:.0f}s")
    return 0


def save(out: str | Path, images: list, labels: list, kinds: list, seeds: list) -> Path:
    """The cells as train_cellnet reads them (written to a temporary name first, then renamed)."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.stem + ".tmp.npz")
    np.savez_compressed(tmp, images=np.stack(images), labels=np.array(labels), kinds=np.array(kinds),
                        seeds=np.array(seeds, np.int64))
    tmp.replace(out)
    return out


if __name__ == "__main__":
    raise SystemExit(main())
