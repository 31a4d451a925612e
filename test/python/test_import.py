"""Importing the package imports neither torch nor numpy.

How long the import takes is measured by bench/python_overhead.py, not here: a timed test
fails on a loaded machine without anything being wrong.
"""

from conftest import assert_isolated_ok


def test_import_does_not_import_torch_or_numpy():
    assert_isolated_ok("""
        import sys
        import executorch_runtime, executorch_runtime.runtime
        assert "torch" not in sys.modules
        assert "numpy" not in sys.modules, "numpy is imported lazily, on first use"
    """)

