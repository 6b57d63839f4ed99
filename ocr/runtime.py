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


def _spans(b):
    """The top-level fields of a protobuf message: (field number, value, the field as written);
    a value is an int (varint) or a memoryview of its bytes (nothing copied)."""
    b = memoryview(b)
    i = 0
    while i < len(b):
        start = i
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
        yield key >> 3, v, b[start:i]


def _fields(b):
    """The top-level (field number, value) pairs of a protobuf message (enough to reach ONNX metadata)."""
    for number, value, _ in _spans(b):
        yield number, value


def onnx_metadata(model: bytes) -> dict[str, str]:
    """An ONNX model's ``metadata_props`` (ModelProto field 14) without the onnx package."""
    out = {}
    for number, value in _fields(model):
        if number == 14:
            entry = dict(_fields(value))
            out[bytes(entry.get(1, b"")).decode()] = bytes(entry.get(2, b"")).decode()
    return out


def _key(number: int, kind: int) -> bytes:
    return _encode_varint(number << 3 | kind)


def _encode_varint(v: int) -> bytes:
    out = bytearray()
    while True:
        low, v = v & 0x7F, v >> 7
        out.append(low | (0x80 if v else 0))
        if not v:
            return bytes(out)


def _field(number: int, value) -> bytes:
    """One protobuf field as written: a varint (int) or length-delimited (bytes) value."""
    if isinstance(value, int):
        return _key(number, 0) + _encode_varint(value)
    return _key(number, 2) + _encode_varint(len(value)) + bytes(value)


def _strings(msg: bytes, number: int) -> list[str]:
    return [bytes(v).decode() for n, v in _fields(msg) if n == number]


def _tensor(msg: bytes) -> np.ndarray:
    """A float TensorProto's values in its shape (dims: field 1, data_type 2, float_data 4, raw_data 9)."""
    dims: list[int] = []
    data = None
    for n, v in _fields(msg):
        if n == 1:
            if isinstance(v, int):
                dims.append(v)
            else:  # packed
                i = 0
                while i < len(v):
                    d, i = _varint(v, i)
                    dims.append(d)
        elif n == 2 and v != 1:
            raise ValueError("not a float tensor")
        elif n in (4, 9):
            data = np.frombuffer(bytes(v), "<f4")
    if data is None:
        raise ValueError("a tensor without its values")
    return data.reshape(dims).copy()


def split_softmax_head(model: bytes) -> tuple[bytes, np.ndarray, np.ndarray]:
    """An ONNX model whose one output is softmax(x @ W + b), split without the onnx package into
    the model that ends at x (the last MatMul's input) and W, b: a reader that needs the
    probabilities of a few of many classes (renormalised among themselves) computes only their
    columns -- a text recogniser's last layer over 18,710 characters is ~13 % of its CPU."""
    graph = next(v for n, v, _ in _spans(model) if n == 7)
    entries = list(_spans(graph))
    nodes = [(k, v) for k, (n, v, _) in enumerate(entries) if n == 1]
    inits = {_strings(v, 8)[0]: (k, v) for k, (n, v, _) in enumerate(entries) if n == 5}
    outputs = [(k, v) for k, (n, v, _) in enumerate(entries) if n == 12]
    if len(outputs) != 1:
        raise ValueError("the model has more than one output")
    ins = {k: _strings(v, 1) for k, v in nodes}
    ops = {k: next((bytes(x).decode() for n, x in _fields(v) if n == 4), "") for k, v in nodes}
    producer = {o: k for k, v in nodes for o in _strings(v, 2)}

    k = producer[_strings(outputs[0][1], 1)[0]]
    if ops[k] != "Softmax":
        raise ValueError("the model's output is no softmax")
    dropped, weights = [k], []
    for layer in ("Add", "MatMul"):  # walked back from the softmax, through any Identity
        k = producer[ins[k][0]] if layer == "Add" else producer[next(i for i in ins[k] if i not in inits)]
        while ops[k] == "Identity":
            dropped.append(k)
            k = producer[ins[k][0]]
        if ops[k] != layer:
            raise ValueError(f"expected {layer} before the softmax, found {ops[k]}")
        dropped.append(k)
        held = [i for i in ins[k] if i in inits]
        if len(held) != 1:
            raise ValueError(f"the head's {layer} without its one weight tensor")
        weights.append(held[0])
    feature = next(i for i in ins[k] if i not in inits)
    bias, matrix = (_tensor(inits[n][1]) for n in weights)
    still_used = {i for j, v in nodes if j not in dropped for i in ins[j]}
    dropped += [inits[n][0] for n in weights if n not in still_used]
    # the new output's type: the old one's, its last dimension the features' (OpenCV needs a shape)
    tensor = next(v for n, v in _fields(next(v for n, v in _fields(outputs[0][1]) if n == 2)) if n == 1)
    shape = next(v for n, v in _fields(tensor) if n == 2)
    dims = [raw for n, _, raw in _spans(shape) if n == 1][:-1] + [_field(1, _field(1, matrix.shape[0]))]
    typed = _field(1, _field(1, 1) + _field(2, b"".join(dims)))  # TypeProto{tensor_type{FLOAT, shape}}
    kept = [_field(12, _field(1, feature.encode()) + _field(2, typed)) if n == 12 else raw
            for j, (n, _, raw) in enumerate(entries) if j not in dropped]
    graph = b"".join(kept)
    trunk = b"".join(_field(7, graph) if n == 7 else raw for n, _, raw in _spans(model))
    return trunk, matrix, bias
