"""Generate realistic FILLED summary score sheets with exact ground truth.

    python samples/generate.py --out DIR --count N --seed S [--kinds clean,photo,...]

writes ``DIR/sheet-<seed>.<ext>`` plus ``DIR/sheet-<seed>.truth.json`` per sheet, seeds
S, S+1, ...; everything is deterministic from the seed.  Importable API:

    generate_sheet(seed, **options) -> (file bytes, truth dict)   # truth["format"]: the extension
    render_sheet(seed, **options) -> (image ndarray, truth dict)  # in memory, no encoding

Options (None = drawn at random from the seed): layout, hand, second_hand, ink, scan,
zero_style, typed, mistakes (tuple of samples.content.MISTAKES keys), mistake_rate,
container ("jpg", "png", "pdf", "tiff"), allow_turn, scan_dpi, jpeg_quality.  See samples/README.md for the
truth format.
"""

from __future__ import annotations

import argparse
import io
import json
import random
import sys
import time
from dataclasses import dataclass
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import cv2
import numpy as np
from PIL import Image

from ocr.form import LAYOUTS, random_style, render_form
from samples.content import ZERO_STYLES, sheet_content
from samples.fill import INKS, Pen, fill_form
from samples.hands import HANDS
from samples.scan import SCAN_KINDS, apply_h, make_scan

CONTAINERS = ("jpg", "png", "pdf", "tiff")
WRITING_HANDS = tuple(h for h in HANDS if h != "typed")


def _choose(rng: random.Random, value, weights: dict):
    if value is not None:
        return value
    keys = list(weights)
    return rng.choices(keys, weights=[weights[k] for k in keys])[0]


def _check(name: str, value, allowed) -> None:
    if value is not None and value not in allowed:
        raise ValueError(f"unknown {name} {value!r}; choose one of {', '.join(map(str, allowed))}")


@dataclass
class FilledSheet:
    """A filled page before it is scanned: what :func:`fill_sheet` drew and the truth so far."""

    rng: random.Random  # the sheet's random streams, as far as filling consumed them
    np_rng: np.random.Generator
    page: np.ndarray  # BGR uint8 at ``form_dpi``
    geom: object  # ocr.form.FormGeometry
    cells: list[dict]  # samples.fill.fill_form's per-cell truth (box on the page)
    pens: list[Pen]
    form_dpi: int
    truth: dict  # every truth key that does not depend on the scan


def fill_sheet(seed: int, *, layout: str | None = None, hand: str | None = None,
               second_hand: str | None = None, ink: str | None = None,
               scan: str | None = None, zero_style: str | None = None,
               typed: bool | None = None, mistakes: tuple[str, ...] | None = None,
               mistake_rate: float = 0.3, scan_dpi: float | None = None) -> FilledSheet:
    """The filled page of sheet ``seed`` (the random draws of :func:`render_sheet` up to the scan)."""
    _check("layout", layout, LAYOUTS)
    _check("hand", hand, HANDS)
    _check("second_hand", second_hand, HANDS)
    _check("ink", ink, INKS)
    _check("scan kind", scan, SCAN_KINDS)
    _check("zero style", zero_style, ZERO_STYLES)
    rng = random.Random(seed)
    np_rng = np.random.default_rng(seed)
    layout = _choose(rng, layout, {"classic": 0.6, "wide": 0.4})
    if typed is None:
        typed = hand == "typed" if hand is not None else rng.random() < 0.1
    hand = "typed" if typed else _choose(rng, hand, {"mnist": 0.45, "strokes": 0.3, "hershey": 0.25})
    typed = hand == "typed"
    ink = "black" if typed else _choose(rng, ink, {"blue": 0.45, "black": 0.35, "pencil": 0.2})
    scan = _choose(rng, scan, {"clean": 0.35, "skewed": 0.25, "photo": 0.25, "fax": 0.15})
    zero_style = _choose(rng, zero_style, {"blank": 0.4, "dash": 0.35, "zero": 0.25})
    if typed and zero_style == "blank" and rng.random() < 0.5:
        zero_style = "zero"
    if second_hand is None and not typed and rng.random() < 0.25:
        second_hand = rng.choice(WRITING_HANDS)
    switch = rng.randint(8, 22) if second_hand else 99

    form_dpi = 200 if scan in ("photo", "fax") or (scan_dpi or 300) <= 200 else 300
    page_grey, geom = render_form(random_style(rng, layout, form_dpi))
    page = cv2.cvtColor(page_grey, cv2.COLOR_GRAY2BGR)
    content = sheet_content(rng, layout, mistake_rate=mistake_rate, mistakes=mistakes)
    px_mm = form_dpi / 25.4
    pens = [Pen(hand, ink, rng, px_mm)]
    if second_hand:
        ink2 = ink if rng.random() < 0.6 or typed else rng.choice(sorted(INKS))
        pens.append(Pen(second_hand, ink2, rng, px_mm))
    cells = fill_form(page, geom, content, pens, switch, zero_style, np_rng)
    truth = {
        "source": None,
        "seed": seed,
        "layout": layout,
        "hand": hand,
        "hands": [p.hand.kind for p in pens],
        "switch_deal": switch if second_hand else None,
        "ink": ink,
        "inks": [p.ink for p in pens],
        "scan": scan,
        "zero_style": zero_style,
        "typed": typed,
        "names": dict(content.names),
        "winners": content.winners_side,
        "winners_text": content.winners_text,
        "rows": content.rows,
        "true_rows": content.true_rows,
        "totals_written": content.totals_written,
        "mistakes": content.mistakes,
    }
    return FilledSheet(rng, np_rng, page, geom, cells, pens, form_dpi, truth)


def render_sheet(seed: int, *, allow_turn: bool = True, jpeg_quality: int | None = None,
                 scan_dpi: float | None = None, **options) -> tuple[np.ndarray, dict]:
    """One filled, scanned sheet as an image (BGR, or grey for fax) and its truth."""
    filled = fill_sheet(seed, scan_dpi=scan_dpi, **options)
    rng, np_rng, geom, truth = filled.rng, filled.np_rng, filled.geom, filled.truth
    sc = make_scan(filled.page, filled.form_dpi, truth["scan"], rng, np_rng, allow_turn=allow_turn,
                   dpi=scan_dpi, faint_ink=any(p.ink == "pencil" for p in filled.pens))
    if jpeg_quality is not None:
        sc.jpeg_quality = jpeg_quality

    def quad(box) -> list[list[float]]:
        pts = apply_h(sc.matrix, geom.quad(box))
        return [[round(float(x), 2), round(float(y), 2)] for x, y in pts]

    W, H = geom.size
    truth.update({
        "cells": [{"row": c["row"], "key": c["key"], "quad": quad(c["box"]), "text": c["text"],
                   "hand": c["hand"]} for c in filled.cells],
        "page_quad": quad((0, 0, W, H)),
        "rotation": sc.rotation,
        "skew_deg": round(float(sc.skew_deg), 3),
        "image_size": [int(sc.image.shape[1]), int(sc.image.shape[0])],
        "dpi": round(float(sc.dpi), 2),
        "form_dpi": filled.form_dpi,
        "page_to_image": [[round(float(v), 8) for v in r] for r in sc.matrix],
        "jpeg_quality": sc.jpeg_quality,
    })
    return sc.image, truth


def encode(image: np.ndarray, truth: dict, container: str, rng: random.Random) -> bytes:
    """The file bytes of ``image`` in ``container``; updates truth["format"], ["pages"]."""
    _check("container", container, CONTAINERS)
    quality = truth.get("jpeg_quality") or 90
    truth["format"], truth["pages"], truth["page"] = container, 1, 0
    if container == "jpg":
        _, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
        return buf.tobytes()
    if container == "png":
        _, buf = cv2.imencode(".png", image, [cv2.IMWRITE_PNG_COMPRESSION, 1])
        return buf.tobytes()
    if image.ndim == 2:
        pil = Image.fromarray(image)
        if set(np.unique(image[::7, ::7]).tolist()) <= {0, 255}:
            pil = pil.convert("1")
    else:
        pil = Image.fromarray(cv2.cvtColor(image, cv2.COLOR_BGR2RGB))
    out = io.BytesIO()
    dpi = float(truth["dpi"])
    if container == "pdf":
        if pil.mode == "RGB":
            pil.save(out, format="PDF", resolution=dpi, quality=int(quality))
        else:
            pil.save(out, format="PDF", resolution=dpi)
        return out.getvalue()
    # Multi-page TIFF: the sheet, then the (nearly blank) back of the page.
    back = Image.new(pil.mode, pil.size, 255 if pil.mode != "RGB" else (245, 245, 242))
    comp = "group4" if pil.mode == "1" else "tiff_deflate"
    pil.save(out, format="TIFF", save_all=True, append_images=[back], compression=comp,
             dpi=(dpi, dpi))
    truth["pages"] = 2
    return out.getvalue()


def generate_sheet(seed: int, container: str | None = None, **options) -> tuple[bytes, dict]:
    """One sheet as file bytes (JPEG/PNG/PDF/TIFF) and its truth dict."""
    image, truth = render_sheet(seed, **options)
    rng = random.Random(seed * 7919 + 17)
    if container is None:
        r = rng.random()
        if truth["scan"] == "photo":
            container = "pdf" if r < 0.1 else "jpg"
        elif truth["scan"] == "fax":
            container = "tiff" if r < 0.25 else "pdf" if r < 0.4 else "png"
        else:
            container = "pdf" if r < 0.12 else "tiff" if r < 0.17 else (
                "jpg" if truth["jpeg_quality"] else "png")
    data = encode(image, truth, container, rng)
    truth["source"] = f"sheet-{seed}.{container}"
    return data, truth


def write_sheet(out_dir: Path, seed: int, name: str | None = None, **options) -> Path:
    """Generate one sheet into ``out_dir``: the file and NAME.truth.json; returns the file."""
    data, truth = generate_sheet(seed, **options)
    stem = name or f"sheet-{seed}"
    path = out_dir / f"{stem}.{truth['format']}"
    truth["source"] = path.name
    path.write_bytes(data)
    (out_dir / f"{stem}.truth.json").write_text(json.dumps(truth, indent=1) + "\n")
    return path


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", required=True, help="output folder (created)")
    p.add_argument("--count", type=int, default=10)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--kinds", default=None,
                   help=f"comma-separated scan kinds to use ({', '.join(SCAN_KINDS)}); default: all")
    p.add_argument("--layout", choices=LAYOUTS, default=None)
    p.add_argument("--hand", choices=HANDS, default=None)
    p.add_argument("--mistake-rate", type=float, default=0.3)
    args = p.parse_args(argv)
    kinds = args.kinds.split(",") if args.kinds else list(SCAN_KINDS)
    bad = [k for k in kinds if k not in SCAN_KINDS]
    if bad:
        p.error(f"unknown scan kind(s) {', '.join(bad)}; choose from {', '.join(SCAN_KINDS)}")
    if args.count < 0:
        p.error("--count must be >= 0")
    out = Path(args.out)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        p.error(f"cannot create {out}: {exc.strerror or exc}")
    t0 = time.perf_counter()
    for i in range(args.count):
        seed = args.seed + i
        kind = kinds[random.Random(seed).randrange(len(kinds))] if args.kinds else None
        write_sheet(out, seed, layout=args.layout, hand=args.hand, scan=kind,
                    mistake_rate=args.mistake_rate)
    dt = time.perf_counter() - t0
    print(f"wrote {args.count} sheets to {out} in {dt:.1f} s "
          f"({dt / max(1, args.count):.2f} s/sheet)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
