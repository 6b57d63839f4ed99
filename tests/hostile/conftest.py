"""The hostile-input set: one test per defect found by trying the tool as a careless or hostile
user would (issue 31), kept apart so the set can grow.  The batch test doubles live in tests/."""

from __future__ import annotations

import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))
