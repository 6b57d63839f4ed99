"""Running the reader's networks: each ONNX graph through ONNX Runtime where it is installed, else
OpenCV's dnn module (:func:`onnx_net`), the cell networks' checked against a NumPy implementation
of the same layers (the fallback); and an ONNX file's metadata without the onnx package.  The
networks themselves are ocr/cellnet.py, ocr/digitnet.py and ocr/ppocr.py.
"""

from __future__ import annotations

import hashlib
import os

import cv2
import numpy as np


def digest(data: bytes) -> str:
    """The first 12 hex digits of the SHA-256 of a weights file's bytes (which network read a sheet)."""
    return hashlib.sha256(data).hexdigest()[:12]


def conv2d(x: np.ndarray, w: np.ndarray, b: np.ndarray, relu: bool = True) -> np.ndarray:
    """'same' convolution by im2col, channels last.  x: (B, H, W, C); w: (O, C, kh, kw)."""
    bsz, h, wd, c = x.shape
    o, _, kh, kw = w.shape
    ph, pw = kh // 2, kw // 2
    xp = np.pad(x, ((0, 0), (ph, ph), (pw, pw), (0, 0)))
    cols = np.concatenate([xp[:, dy:dy + h, dx:dx + wd, :] for dy in range(kh) for dx in range(kw)], axis=3)
    wm = w.transpose(2, 3, 1, 0).reshape(kh * kw * c, o)
    out = cols.reshape(bsz * h * wd, kh * kw * c) @ wm
    out += b
    if relu:
        np.maximum(out, 0, out=out)
    return out.reshape(bsz, h, wd, o)


def pool(x: np.ndarray, ph: int, pw: int) -> np.ndarray:
    """Max-pool with window = stride = (ph, pw), channels last, odd edges dropped."""
    bsz, h, w, c = x.shape
    h2, w2 = h // ph, w // pw
    x = x[:, :h2 * ph, :w2 * pw].reshape(bsz, h2, ph, w2, pw, c)
    return x.max(axis=(2, 4))


def log_softmax(z: np.ndarray, axis: int = -1) -> np.ndarray:
    z = z - z.max(axis=axis, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=axis, keepdims=True))


def checked_dnn(cache: dict, onnx: bytes | None, run_dnn, run_numpy):
    """The network's ONNX graph made runnable once per process (kept in ``cache`` by pid: a forked
    batch worker makes its own) by :func:`onnx_net`, or None: no graph, RUBBERSCAN_CELLNET=numpy,
    or it does not load, or ``run_dnn(net)`` (a probe input through it) differs from
    ``run_numpy()`` (the same through the NumPy path)."""
    pid = os.getpid()
    if pid not in cache:
        cache[pid] = None
        if onnx is not None and os.environ.get("RUBBERSCAN_CELLNET", "").lower() != "numpy":
            _onnxruntime()  # outside the try: a bad RUBBERSCAN_RUNTIME, or one missing, is an error
            try:
                net = onnx_net(onnx)
                if np.allclose(run_dnn(net), run_numpy(), atol=1e-3):
                    cache[pid] = net
            except Exception:  # noqa: BLE001 - cv2.error, or ONNX Runtime's (plain Exceptions)
                pass
    return cache[pid]


class OrtNet:
    """An ONNX Runtime session behind OpenCV's dnn interface (``setInput``, ``forward``), so the
    callers run either alike."""

    def __init__(self, session) -> None:
        self.session, self.name, self.x = session, session.get_inputs()[0].name, None

    def setInput(self, x: np.ndarray) -> None:  # noqa: N802 - OpenCV's name
        self.x = x

    def forward(self) -> np.ndarray:
        return self.session.run(None, {self.name: self.x})[0]


def _onnxruntime():
    """The onnxruntime module, or None where it is not installed or RUBBERSCAN_RUNTIME=opencv."""
    wanted = os.environ.get("RUBBERSCAN_RUNTIME", "").strip().lower()
    if wanted not in ("", "onnxruntime", "opencv"):
        raise ValueError(f"RUBBERSCAN_RUNTIME must be onnxruntime or opencv, not {wanted!r}")
    if wanted == "opencv":
        return None
    try:
        import onnxruntime
    except ImportError:
        if wanted == "onnxruntime":
            raise
        return None
    return onnxruntime


def onnx_net(onnx: bytes):
    """The graph as an ONNX Runtime session on one thread (the batch runs one worker per core),
    or OpenCV's dnn network where onnxruntime is not installed or RUBBERSCAN_RUNTIME=opencv.
    ONNX Runtime gives the same outputs (to 3e-4) for less CPU: ~21 against ~33 ms a PP-OCR cell
    crop, 12 against 33 ms a batch of 64 digit windows, 29 against 52 ms for 64 cells through a
    cell network."""
    ort = _onnxruntime()
    if ort is None:
        return cv2.dnn.readNetFromONNX(np.frombuffer(onnx, np.uint8))
    options = ort.SessionOptions()
    options.intra_op_num_threads = options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.log_severity_level = 3
    return OrtNet(ort.InferenceSession(onnx, options, providers=["CPUExecutionProvider"]))


def _varint(b: bytes, i: int) -> tuple[int, int]:
    r = s = 0
    while True:
        c = b[i]
        i += 1
        r |= (c & 0x7F) << s
        s += 7
        if c < 0x80:
            return r, i


def _fields(b: bytes):
    """The top-level (field number, value) pairs of a protobuf message (enough to reach ONNX metadata)."""
    i = 0
    while i < len(b):
        key, i = _varint(b, i)
        kind = key & 7
        if kind == 0:
            v, i = _varint(b, i)
        elif kind == 2:
            n, i = _varint(b, i)
            v, i = b[i:i + n], i + n
        elif kind == 1:
            v, i = b[i:i + 8], i + 8
        elif kind == 5:
            v, i = b[i:i + 4], i + 4
        else:
            raise ValueError(f"not an ONNX model (protobuf wire type {kind})")
        yield key >> 3, v


def onnx_metadata(model: bytes) -> dict[str, str]:
    """An ONNX model's ``metadata_props`` (ModelProto field 14) without the onnx package."""
    out = {}
    for number, value in _fields(model):
        if number == 14:
            entry = dict(_fields(value))
            out[bytes(entry.get(1, b"")).decode()] = bytes(entry.get(2, b"")).decode()
    return out
