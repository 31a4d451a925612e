"""Shared fixtures of the executorch_runtime tests (run by `make check-python`).

Environment (set by mk/test-python.mk): PYTHONPATH points at the staged package,
ET_PY_PLUGIN at the test plugin .so, ET_PY_EXT at the extension, ET_PY_ZOO at the zoo.
"""

import json
import os
import subprocess
import sys
import textwrap

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
ZOO = os.environ.get("ET_PY_ZOO", os.path.join(ROOT, "test", "fixtures", "zoo"))


def zoo_path(name):
    return os.path.join(ZOO, name)


def manifest():
    with open(zoo_path("manifest.json")) as f:
        return json.load(f)


def run_isolated(code, *, python=sys.executable, timeout=120, env=None):
    """Runs `code` in a fresh interpreter with faulthandler on; a crash fails the caller's
    test instead of killing pytest. Returns the CompletedProcess."""
    full_env = dict(os.environ)
    full_env.update(env or {})
    return subprocess.run(
        [python, "-X", "faulthandler", "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=full_env,
    )


def assert_isolated_ok(code, **kw):
    r = run_isolated(code, **kw)
    assert r.returncode == 0, f"exit {r.returncode}\nstdout:\n{r.stdout}\nstderr:\n{r.stderr}"
    return r


@pytest.fixture(scope="session")
def et():
    import executorch_runtime

    return executorch_runtime


@pytest.fixture(scope="session")
def plugin_path():
    path = os.environ.get("ET_PY_PLUGIN")
    if not path or not os.path.exists(path):
        pytest.skip("test plugin not built (run through `make check-python`)")
    return path


@pytest.fixture(scope="session")
def ext_path(et):
    return et._C.__file__
