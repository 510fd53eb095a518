"""The engine is a pure-Python package: it must import nothing from Django."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_engine_imports_nothing_from_django():
    code = (
        "import sys, engine; "
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in {'django', 'rest_framework', 'channels'}); "
        "print(','.join(bad))"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == ""
