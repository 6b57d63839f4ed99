"""The geometry tests' shared sheets (geometry_samples.py) are importable from every folder below."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
