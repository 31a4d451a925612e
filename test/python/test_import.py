"""Importing the package is cheap and imports neither torch nor numpy."""

import re

from conftest import assert_isolated_ok, run_isolated


def test_import_does_not_import_torch_or_numpy():
    assert_isolated_ok("""
        import sys
        import executorch_runtime, executorch_runtime.runtime
        assert "torch" not in sys.modules
        assert "numpy" not in sys.modules, "numpy is imported lazily, on first use"
    """)


def test_import_time_under_100ms():
    best = None
    for _ in range(5):
        r = run_isolated("import executorch_runtime")
        assert r.returncode == 0, r.stderr
        r = run_isolated("import executorch_runtime", env={"PYTHONPROFILEIMPORTTIME": "1"})
        total = 0
        for line in r.stderr.splitlines():
            m = re.match(r"import time:\s+\d+\s+\|\s+(\d+)\s+\|\s?(\S+)$", line.rstrip())
            if m and m.group(2) == "executorch_runtime":
                total = int(m.group(1))
        best = total if best is None else min(best, total)
    assert 0 < best < 100_000, f"import executorch_runtime took {best} us"
