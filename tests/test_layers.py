"""The packages depend on each other one way only: scoring <- ocr <- batch -> report, batch <-
review (the web app), and report and scoring on no one else (read from the imports in the
source, so a new one cannot slip in)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# package -> the first-party packages it must not import
FORBIDDEN = {
    "scoring": {"ocr", "batch", "report", "cli", "samples", "bench", "train", "tests"},
    "report": {"ocr", "batch", "cli", "samples", "bench", "train", "tests"},
    "ocr": {"batch", "report", "cli", "samples", "bench", "train", "tests"},
    "batch": {"cli", "samples", "bench", "train", "tests", "review"},
    "review": {"cli", "samples", "bench", "train", "tests"},
}


def imports(path: Path) -> set[str]:
    """The top-level names of every module ``path`` imports (at any depth of the code)."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            out.add(node.module.split(".")[0])
    return out


def test_each_package_imports_only_the_layers_below_it():
    wrong = [f"{path.relative_to(ROOT)} imports {name}"
             for package, banned in FORBIDDEN.items()
             for path in sorted((ROOT / package).rglob("*.py"))
             for name in sorted(imports(path) & banned)]
    assert wrong == []


def test_the_check_sees_an_import(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from batch.ledger import Ledger\n    import ocr.load\n")
    assert imports(module) == {"batch", "ocr"}
