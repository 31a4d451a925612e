"""An 8da4w linear layer lowered to XNNPACK gives upstream's outputs bit for bit.

test/fixtures/xnnpack_qd8 (test/zoo/export_qd8_linear.py) holds the program and upstream's
outputs for a few inputs (5 rows and 1 row, through the graph's dynamic row count). XNNPACK
runs this layer on integers with a fixed order of float operations; a float emulation differs
by an ulp here and there, which a deep quantized network turns into whole quantization steps
(about 1% of the logits of an 8-layer Llama), so equality is required here, not a tolerance.
"""

import json
import os

import numpy as np
import pytest

import executorch_runtime as et

from conftest import ROOT

QD8_DIR = os.path.join(ROOT, "test", "fixtures", "xnnpack_qd8")


def _manifest():
    with open(os.path.join(QD8_DIR, "manifest.json")) as f:
        return json.load(f)


CASES = _manifest()["cases"]


@pytest.fixture(scope="module")
def method():
    return et.load(os.path.join(QD8_DIR, _manifest()["program"])).load_method("forward")


@pytest.mark.parametrize("case", CASES, ids=[c["input"] for c in CASES])
def test_outputs_equal_upstreams(method, case):
    m = _manifest()
    x = np.fromfile(os.path.join(QD8_DIR, case["input"]), dtype="<f4")
    x = x.reshape(case["rows"], m["in_features"])
    want = np.fromfile(os.path.join(QD8_DIR, case["output_upstream"]), dtype="<f4")
    want = want.reshape(case["rows"], m["out_features"])
    got = np.asarray(method.execute((x,))[0])
    assert got.shape == want.shape
    differing = int(np.count_nonzero(got != want))
    assert differing == 0, (
        f"{differing} of {want.size} outputs differ from upstream's, by up to "
        f"{np.abs(got - want).max():.3g}")
