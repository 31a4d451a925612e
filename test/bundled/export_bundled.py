#!/usr/bin/env python3
"""Export a few zoo models as upstream BundledProgram files (`.bpte`) with several test cases.

Run it in the zoo venv (torch + the upstream `executorch` package); `make check` never needs it,
the outputs are committed under test/fixtures/bundled/:

    build/zoo-venv/bin/python test/bundled/export_bundled.py            # --out test/fixtures/bundled

Each program is built from the modules of test/zoo/models.py, exported with torch.export ->
to_edge -> to_executorch, and bundled with upstream's own writer
(`executorch.devtools.BundledProgram` + `serialize_from_bundled_program_to_flatbuffer`), so the
files are exactly what upstream tools produce. The expected outputs are those of eager PyTorch on
the same inputs. One program (`mlp_wrong`) carries a deliberately wrong expected output in one test
case, so readers can be checked to report a mismatch. Everything is seeded from the program name,
so a re-run writes the same bytes.

manifest.json records, per file, every method with its number of test cases, the cases that
must fail verification, and the tolerance the cases were made for.
"""

from __future__ import annotations

import argparse
import copy
import dataclasses
import json
import platform
import sys
import zlib
from pathlib import Path
from typing import Callable, Dict, List, Tuple

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "zoo"))
import models as M  # noqa: E402

MANIFEST_FORMAT = 1
RTOL = 1e-5
ATOL = 1e-6


@dataclasses.dataclass
class MethodCases:
    module: torch.nn.Module
    cases: List[tuple]  # the inputs of every test case; the first is also the export example


@dataclasses.dataclass
class Spec:
    name: str
    description: str
    build: Callable[[], Dict[str, MethodCases]]
    # (method, case index) whose expected output is perturbed on purpose
    wrong: List[Tuple[str, int]] = dataclasses.field(default_factory=list)
    seed_name: str | None = None


def _f(*shape):
    return torch.randn(*shape)


def build_mlp():
    return {"forward": MethodCases(M.MLP().eval(), [(_f(4, 16),) for _ in range(4)])}


def build_cnn():
    return {"forward": MethodCases(M.SmallCNN().eval(), [(_f(1, 3, 16, 16),) for _ in range(3)])}


def build_multi_method():
    return {
        "forward": MethodCases(M.AddScaled(), [(_f(2, 4), _f(2, 4)) for _ in range(2)]),
        "scale": MethodCases(M.Scale(), [(_f(2, 4),) for _ in range(2)]),
        "project": MethodCases(M.Project().eval(), [(_f(2, 4),) for _ in range(3)]),
    }


def build_prim_inputs():
    # Int, Double and Bool inputs are fixed at export: every case repeats the traced values.
    return {"forward": MethodCases(M.PrimInputs(), [(_f(2, 3), _f(2, 3), 3, 0.5, True) for _ in range(2)])}


def build_dtype_io():
    def case():
        return (_f(2, 3) * 3, torch.randint(-5, 5, (2, 3), dtype=torch.int64), torch.rand(2, 3) > 0.5,
                torch.randint(-100, 100, (2, 3), dtype=torch.int32))

    return {"forward": MethodCases(M.DtypeIO(), [case() for _ in range(2)])}


def build_mlp_wrong():
    return {"forward": MethodCases(M.MLP().eval(), [(_f(4, 16),) for _ in range(3)])}


SPECS = [
    Spec("mlp", "Linear-ReLU-Linear-ReLU-Linear on [4, 16], 4 cases", build_mlp),
    Spec("cnn", "conv-relu-maxpool x2, flatten, linear on [1, 3, 16, 16], 3 cases", build_cnn),
    Spec("multi_method", "forward (2 cases), scale (2), project (3)", build_multi_method),
    Spec("prim_inputs", "tensor plus Int, Double and Bool inputs, 2 cases", build_prim_inputs),
    Spec("dtype_io", "float32, int64, bool and int32 inputs and outputs, 2 cases", build_dtype_io),
    Spec("mlp_wrong", "mlp with 3 cases; case 1's expected output is off by 0.5 in one element",
         build_mlp_wrong, wrong=[("forward", 1)]),
]


def seed_everything(name: str) -> int:
    seed = zlib.crc32(name.encode()) & 0x7FFFFFFF
    torch.manual_seed(seed)
    return seed


def flat_outputs(out) -> tuple:
    return tuple(out) if isinstance(out, (tuple, list)) else (out,)


def export_one(spec: Spec, out_dir: Path) -> dict:
    from executorch.devtools import BundledProgram
    from executorch.devtools.bundled_program.config import MethodTestCase, MethodTestSuite
    from executorch.devtools.bundled_program.serialize import serialize_from_bundled_program_to_flatbuffer
    from executorch.exir import to_edge

    seed = seed_everything(spec.seed_name or spec.name)
    methods = spec.build()
    exported = {}
    suites = []
    for mname, mc in methods.items():
        with torch.no_grad():
            exported[mname] = torch.export.export(copy.deepcopy(mc.module), mc.cases[0])
            cases = []
            for ci, args in enumerate(mc.cases):
                expected = [t.clone() for t in flat_outputs(mc.module(*copy.deepcopy(args)))]
                if (mname, ci) in spec.wrong:
                    expected[0].view(-1)[0] += 0.5
                cases.append(MethodTestCase(inputs=list(args), expected_outputs=expected))
        suites.append(MethodTestSuite(method_name=mname, test_cases=cases))
    program = to_edge(exported).to_executorch()
    bundled = BundledProgram(program, suites)
    data = serialize_from_bundled_program_to_flatbuffer(bundled)
    (out_dir / f"{spec.name}.bpte").write_bytes(data)
    return {
        "name": spec.name,
        "file": f"{spec.name}.bpte",
        "description": spec.description,
        "seed": seed,
        "size_bytes": len(data),
        "methods": [{"name": m, "test_cases": len(mc.cases)} for m, mc in methods.items()],
        "failing_cases": [{"method": m, "case": c} for m, c in spec.wrong],
    }


def upstream_check(entry: dict, out_dir: Path) -> Dict[str, List[bool]]:
    """Runs every case in upstream's own Python runtime: which cases pass, per method."""
    from executorch.extension.pybindings.portable_lib import _load_bundled_program_from_buffer
    from executorch.extension.pybindings.portable_lib import _load_for_executorch_from_bundled_program

    bundle = _load_bundled_program_from_buffer((out_dir / entry["file"]).read_bytes())
    module = _load_for_executorch_from_bundled_program(bundle)
    del module
    result = {}
    for m in entry["methods"]:
        passed = []
        for i in range(m["test_cases"]):
            try:
                bundle.verify_result_with_bundled_expected_output(m["name"], i, RTOL, ATOL)
                passed.append(True)
            except Exception:  # noqa: BLE001 (upstream raises a bare RuntimeError on mismatch)
                passed.append(False)
        result[m["name"]] = passed
    return result


def versions() -> Dict[str, str]:
    from importlib.metadata import version

    return {"python": platform.python_version(), "torch": version("torch"), "executorch": version("executorch")}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=str(Path(__file__).resolve().parents[1] / "fixtures" / "bundled"))
    ap.add_argument("--no-upstream-check", action="store_true")
    args = ap.parse_args()
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(1)
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    for old in out_dir.glob("*.bpte"):
        old.unlink()
    programs = []
    for spec in SPECS:
        print(f"  GEN     {out_dir.name}/{spec.name}.bpte", flush=True)
        entry = export_one(spec, out_dir)
        if not args.no_upstream_check:
            try:
                entry["upstream_runtime"] = upstream_check(entry, out_dir)
            except Exception as e:  # noqa: BLE001 (recorded, not fatal: the files are still upstream's)
                entry["upstream_runtime"] = f"not run: {type(e).__name__}: {e}"
        programs.append(entry)
    manifest = {
        "format_version": MANIFEST_FORMAT,
        "generator": "test/bundled/export_bundled.py",
        "versions": versions(),
        "tolerance": {"rtol": RTOL, "atol": ATOL},
        "notes": [
            "Each .bpte is upstream's BundledProgram flatbuffer (identifier BP08) holding one .pte.",
            "Every case passes within the tolerance except those listed in failing_cases.",
            "upstream_runtime: per method, whether upstream's own Python runtime passed each case.",
        ],
        "programs": programs,
    }
    (out_dir / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
