"""The reader is a one-way chain of small modules: each imports only the modules before it in
CHAIN, and nothing private (a name starting with "_") of another module."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# network runtime, CTC decoding, cell preparation, the networks, the ensemble, the sheet's reading,
# crops given on their own
CHAIN = ("settings", "runtime", "ctc", "prep", "cellnet", "digitnet", "ppocr", "ensemble", "read",
         "crop", "cellread")


def ocr_imports(path: Path) -> list[tuple[str, list[str]]]:
    """(module of ocr/, the names imported from it) for every ``ocr`` import in ``path``."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("ocr."):
            out.append((node.module.split(".")[1], [a.name for a in node.names]))
        elif isinstance(node, ast.Import):
            out += [(a.name.split(".")[1], []) for a in node.names if a.name.startswith("ocr.")]
    return out


def test_the_reader_modules_import_one_way_and_nothing_private():
    wrong = []
    for k, name in enumerate(CHAIN):
        for module, names in ocr_imports(ROOT / "ocr" / f"{name}.py"):
            if module in CHAIN and CHAIN.index(module) >= k:
                wrong.append(f"ocr/{name}.py imports ocr.{module}, which comes after it")
            wrong += [f"ocr/{name}.py imports ocr.{module}.{n}" for n in names if n.startswith("_")]
    assert wrong == []


def test_nothing_imports_a_private_name_of_the_reader():
    wrong = [f"{path.relative_to(ROOT)} imports ocr.{module}.{n}"
             for folder in ("ocr", "batch", "bench", "train")
             for path in sorted((ROOT / folder).rglob("*.py"))
             for module, names in ocr_imports(path) if module in CHAIN
             for n in names if n.startswith("_")]
    assert wrong == []


def test_the_check_sees_a_backward_import(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from ocr.cellnet import _digest, CellNet\n    import ocr.read\n")
    assert ocr_imports(module) == [("cellnet", ["_digest", "CellNet"]), ("read", [])]
