"""Write a cell network (ocr/models/cellnet*.npz) as an ONNX graph for OpenCV's dnn module.

Run in the training venv (needs the ``onnx`` package; `make model` does it):

    .venv-train/bin/python -m train.export_onnx ocr/models/cellnet.npz     # -> ocr/models/cellnet.onnx

The graph is the exported network exactly (BatchNorm already folded into the convolutions):
five 3x3 convolutions with ReLU and max-pooling, the height folded into the channels, two 1-D
convolutions along the frames (as 1 x k 2-D convolutions) and the linear output as a 1 x 1
convolution.  Input (B, 1, 32, W) with B and W free; output the raw logits (B, classes, 1, W/4);
the temperature and the log-softmax stay in ocr/cellnet.py, so both paths share them.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def _checked_model(graph: onnx.GraphProto) -> onnx.ModelProto:
    """The graph as a model OpenCV's dnn module reads (opset 13, IR version 8), checked by onnx."""
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="rubberscan")
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def build(npz: Path) -> onnx.ModelProto:
    z = np.load(npz)
    nodes, inits = [], []
    x = "input"

    def const(name: str, arr: np.ndarray) -> str:
        inits.append(numpy_helper.from_array(np.ascontiguousarray(arr), name))
        return name

    for i in range(int(z["n_convs"])):
        w = z[f"conv{i}_w"]
        kh, kw = w.shape[2:]
        out = f"c{i}"
        nodes.append(helper.make_node("Conv", [x, const(f"conv{i}_w", w), const(f"conv{i}_b", z[f"conv{i}_b"])],
                                      [out], kernel_shape=[kh, kw], pads=[kh // 2, kw // 2, kh // 2, kw // 2]))
        nodes.append(helper.make_node("Relu", [out], [out + "r"]))
        x = out + "r"
        ph, pw = (int(v) for v in z[f"conv{i}_pool"])
        if ph > 1 or pw > 1:
            nodes.append(helper.make_node("MaxPool", [x], [f"p{i}"], kernel_shape=[ph, pw], strides=[ph, pw]))
            x = f"p{i}"
    channels = int(z["head0_w"].shape[1])  # conv channels x remaining height, torch's (C, H) order
    nodes.append(helper.make_node("Reshape", [x, const("fold", np.array([0, channels, 1, -1], np.int64))], ["folded"]))
    x = "folded"
    for i in range(int(z["n_head"])):
        w = z[f"head{i}_w"]
        k = w.shape[3]
        nodes.append(helper.make_node("Conv", [x, const(f"head{i}_w", w), const(f"head{i}_b", z[f"head{i}_b"])],
                                      [f"h{i}"], kernel_shape=[1, k], pads=[0, k // 2, 0, k // 2]))
        nodes.append(helper.make_node("Relu", [f"h{i}"], [f"h{i}r"]))
        x = f"h{i}r"
    ow = z["out_w"]
    nodes.append(helper.make_node("Conv", [x, const("out_w", ow[:, :, None, None]), const("out_b", z["out_b"])],
                                  ["logits"], kernel_shape=[1, 1]))
    graph = helper.make_graph(
        nodes, "cellnet",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, ["batch", 1, 32, "width"])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", ow.shape[0], 1, "frames"])],
        inits,
    )
    return _checked_model(graph)


def build_digits(npz: Path) -> onnx.ModelProto:
    """The digit network (ocr/digitnet.py): 3x3 convolutions with ReLU and 2x2 max-pooling, then
    the fully connected layers.  Input (B, 1, WIN, WIN); output the raw logits (B, 10)."""
    z = np.load(npz)
    nodes, inits = [], []
    x = "input"
    for i in range(int(z["n_convs"])):
        w, b = z[f"conv{i}_w"], z[f"conv{i}_b"]
        inits += [numpy_helper.from_array(w, f"conv{i}_w"), numpy_helper.from_array(b, f"conv{i}_b")]
        nodes += [helper.make_node("Conv", [x, f"conv{i}_w", f"conv{i}_b"], [f"c{i}"], kernel_shape=[3, 3],
                                   pads=[1, 1, 1, 1]),
                  helper.make_node("Relu", [f"c{i}"], [f"r{i}"]),
                  helper.make_node("MaxPool", [f"r{i}"], [f"p{i}"], kernel_shape=[2, 2], strides=[2, 2])]
        x = f"p{i}"
    nodes.append(helper.make_node("Flatten", [x], ["flat"], axis=1))
    x = "flat"
    n_fcs = int(z["n_fcs"])
    for i in range(n_fcs):
        inits += [numpy_helper.from_array(z[f"fc{i}_w"], f"fc{i}_w"), numpy_helper.from_array(z[f"fc{i}_b"], f"fc{i}_b")]
        out = "logits" if i == n_fcs - 1 else f"f{i}"
        nodes.append(helper.make_node("Gemm", [x, f"fc{i}_w", f"fc{i}_b"], [out], transB=1))
        if i < n_fcs - 1:
            nodes.append(helper.make_node("Relu", [out], [out + "r"]))
            out += "r"
        x = out
    graph = helper.make_graph(
        nodes, "digitnet",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, ["batch", 1, "win", "win"])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", int(z[f"fc{n_fcs - 1}_w"].shape[0])])],
        inits,
    )
    return _checked_model(graph)


def main(argv: list[str]) -> int:
    for arg in argv or ["ocr/models/cellnet.npz"]:
        npz = Path(arg)
        out = npz.with_suffix(".onnx")
        with np.load(npz) as z:
            digits = "n_fcs" in z.files
        onnx.save(build_digits(npz) if digits else build(npz), out)
        print(f"wrote {out} ({out.stat().st_size // 1024} KiB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
