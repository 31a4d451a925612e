"""The license: LICENSE at the repository root, declared in the wheel's core metadata 2.4
(License-Expression, License-File) and shipped in .dist-info/licenses/ by pkg/build_wheel.py.
(`make check-wheel`'s layout check verifies the same on the built wheel.)"""

import argparse
import csv
import importlib.util
import io
import os
import re
import zipfile

import pytest

from conftest import ROOT

LICENSE = os.path.join(ROOT, "LICENSE")


@pytest.fixture(scope="module")
def build_wheel():
    spec = importlib.util.spec_from_file_location("build_wheel",
                                                  os.path.join(ROOT, "pkg", "build_wheel.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _wheel_mk_value(var):
    with open(os.path.join(ROOT, "mk", "wheel.mk")) as f:
        m = re.search(r"^" + var + r"\s*:?=\s*(.*)$", f.read(), re.M)
    assert m, f"mk/wheel.mk does not set {var}"
    return m.group(1).strip()


def _args(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text("# readme\n")
    return argparse.Namespace(
        readme=str(readme), version="1.0.0", python_tag="cp311",
        license_expression=_wheel_mk_value("WHL_LICENSE_EXPRESSION"),
        license_file=[os.path.join(ROOT, f) for f in _wheel_mk_value("WHL_LICENSE_FILES").split()])


def test_license_is_bsd3():
    text = open(LICENSE).read()
    assert text.startswith("BSD 3-Clause License\n")
    assert "Copyright (c) 2026, the executorch-runtime authors" in text
    assert re.findall(r"^(\d)\. ", text, re.M) == ["1", "2", "3"]
    assert "Neither the name of the copyright holder nor the names of its" in text
    assert "EVEN IF ADVISED OF THE POSSIBILITY OF SUCH DAMAGE." in text


def test_metadata_declares_license(build_wheel, tmp_path):
    md = build_wheel.metadata(_args(tmp_path))
    headers = md.split("\n\n", 1)[0].splitlines()
    assert headers[0] == "Metadata-Version: 2.4"
    assert "License-Expression: BSD-3-Clause" in headers
    assert "License-File: LICENSE" in headers
    # 2.4 forbids the free-text License field next to License-Expression.
    assert not [h for h in headers if h.startswith("License:")]


def test_wheel_ships_license_file(build_wheel, tmp_path):
    stage = tmp_path / "stage" / "executorch_runtime"
    stage.mkdir(parents=True)
    (stage / "__init__.py").write_text("")
    out = tmp_path / "x.whl"
    build_wheel.zip_tree(str(tmp_path / "stage"), str(out), "linux_x86_64", _args(tmp_path))
    di = "executorch_runtime-1.0.0.dist-info"
    with zipfile.ZipFile(out) as z:
        assert z.read(f"{di}/licenses/LICENSE") == open(LICENSE, "rb").read()
        rows = list(csv.reader(io.StringIO(z.read(f"{di}/RECORD").decode())))
        assert f"{di}/licenses/LICENSE" in [r[0] for r in rows]
        assert "License-File: LICENSE" in z.read(f"{di}/METADATA").decode().splitlines()
