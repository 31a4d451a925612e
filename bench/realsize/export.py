#!/usr/bin/env python3
"""Exports the real-size models (bench/realsize/models.py) for the benchmark's real-size section.
Run in the zoo venv (torch + executorch 1.5.1); bench/harness/bench.py --realsize runs it.

    python bench/realsize/export.py --out build/bench/realsize [--only resnet18 ...]

Per model it writes, under --out:
  <model>.pte              portable: to_edge + to_executorch (no delegate)
  <model>_xnnpack.pte      fp32, to_edge_transform_and_lower with XnnpackPartitioner
  <model>_xnnpack_q8.pte   CNNs only: PT2E static int8 (XNNPACKQuantizer, per-channel weights,
                           calibrated on random images), then XnnpackPartitioner
  <model>.in0.npy, <model>.out<i>.npy         the input and the eager outputs (fp32 goldens)
  <model>_xnnpack_q8.out0.npy                 the converted PT2E module's output (int8 golden)
and manifest.json listing them with their tolerances. The files are build outputs, never committed.

Tolerances are normwise relative errors: a runtime's output may differ from the golden by
`rel * max|golden|` (given to the harness as atol, with rtol = rel): fp32 programs against eager
torch, the int8 ones, looser, against the converted PT2E module (the int8 kernels round
differently from its quantize/dequantize emulation, and a one-step difference early on spreads:
upstream's XNNPACK output for MobileNetV2 is 0.15 of the peak away from the converted module's,
which is itself 0.29 away from fp32 with these random weights; a wrong program is off by ~1).

Caching: each model's entry carries a hash of models.py, the export functions here and the
torch/executorch versions (config_hash); a model whose hash and files are unchanged is not exported again.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

FP32_REL_TOL = 1e-3
Q8_REL_TOL = 0.25


def executorch_version() -> str:
    from importlib.metadata import version

    return version("executorch")


def config_hash() -> str:
    """What decides the exported files: the models, the functions below that export them and the
    torch/executorch versions (the tolerances are refreshed without re-exporting, refresh_tolerances) (not this file's other text, so a comment edit
    does not re-export)."""
    import inspect

    import torch

    h = hashlib.sha256((HERE / "models.py").read_bytes())
    for fn in (save_outputs, tolerance, lower, export_model):
        h.update(inspect.getsource(fn).encode())
    h.update(f"torch={torch.__version__} executorch={executorch_version()}".encode())
    return h.hexdigest()[:16]


def save_outputs(out, prefix: Path, np, torch):
    outs = out if isinstance(out, (tuple, list)) else (out,)
    files = []
    for i, o in enumerate(outs):
        p = prefix.with_name(f"{prefix.name}.out{i}.npy")
        np.save(p, o.detach().contiguous().numpy())
        files.append(p.name)
    return files


def tolerance(golden_files, out_dir: Path, rel: float, np):
    """atol = rel * max|golden| over all outputs (normwise relative error), rtol = rel."""
    peak = max(float(np.abs(np.load(out_dir / f)).max()) for f in golden_files)
    return {"atol": rel * peak, "rtol": rel, "rel": rel}


def lower(ep, xnnpack: bool):
    from executorch.exir import to_edge, to_edge_transform_and_lower

    if xnnpack:
        from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner

        edge = to_edge_transform_and_lower(ep, partitioner=[XnnpackPartitioner()])
    else:
        edge = to_edge(ep)
    return edge.to_executorch().buffer


def export_model(name: str, out_dir: Path, chash: str):
    import numpy as np
    import torch

    import models as M

    t0 = time.time()
    model, args = M.build(name)
    is_cnn = M.MODELS[name][1]
    np.save(out_dir / f"{name}.in0.npy", args[0].numpy())
    with torch.no_grad():
        goldens = save_outputs(model(*args), out_dir / name, np, torch)
        ep = torch.export.export(model, args)
    fp32_tol = tolerance(goldens, out_dir, FP32_REL_TOL, np)
    entry = {"name": name, "description": M.MODELS[name][2], "hash": chash, "inputs": [f"{name}.in0.npy"],
             "params": sum(p.numel() for p in model.parameters()), "variants": {}}
    for variant, xnn in (("portable", False), ("xnnpack", True)):
        pte = f"{name}.pte" if variant == "portable" else f"{name}_xnnpack.pte"
        (out_dir / pte).write_bytes(lower(ep, xnn))
        entry["variants"][variant] = {"pte": pte, "goldens": goldens, **fp32_tol}
    if is_cnn:
        from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import (
            XNNPACKQuantizer, get_symmetric_quantization_config)
        from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

        quantizer = XNNPACKQuantizer().set_global(get_symmetric_quantization_config(is_per_channel=True))
        prepared = prepare_pt2e(torch.export.export(model, args).module(), quantizer)
        with torch.no_grad():
            for cal in M.calibration_inputs(name):
                prepared(*cal)
            prepared(*args)
            converted = convert_pt2e(prepared)
            q_goldens = save_outputs(converted(*args), out_dir / f"{name}_xnnpack_q8", np, torch)
            qep = torch.export.export(converted, args)
        pte = f"{name}_xnnpack_q8.pte"
        (out_dir / pte).write_bytes(lower(qep, True))
        entry["variants"]["xnnpack_q8"] = {"pte": pte, "goldens": q_goldens,
                                           **tolerance(q_goldens, out_dir, Q8_REL_TOL, np)}
    for v in entry["variants"].values():
        v["bytes"] = (out_dir / v["pte"]).stat().st_size
    entry["export_seconds"] = round(time.time() - t0, 1)
    return entry


def refresh_tolerances(entry, out_dir: Path) -> None:
    """The tolerances of the current constants, also for a cached entry."""
    import numpy as np

    for name, v in entry["variants"].items():
        v.update(tolerance(v["goldens"], out_dir, Q8_REL_TOL if name.endswith("_q8") else FP32_REL_TOL, np))


def up_to_date(entry, out_dir: Path, chash: str) -> bool:
    if not entry or entry.get("hash") != chash:
        return False
    files = list(entry["inputs"])
    for v in entry["variants"].values():
        files += [v["pte"]] + v["goldens"]
    return all((out_dir / f).exists() for f in files)


def main() -> int:
    import models as M

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--only", nargs="*", help="only these models (default: all of models.MODELS)")
    a = ap.parse_args()
    out_dir = Path(a.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    mpath = out_dir / "manifest.json"
    manifest = json.loads(mpath.read_text()) if mpath.exists() else {}
    models = manifest.setdefault("models", {})
    chash = config_hash()
    import torch

    manifest["versions"] = {"torch": torch.__version__, "executorch": executorch_version()}
    for name in a.only or list(M.MODELS):
        if up_to_date(models.get(name), out_dir, chash):
            refresh_tolerances(models[name], out_dir)
            print(f"realsize export: {name}: up to date ({chash})", flush=True)
            continue
        print(f"realsize export: {name} ...", flush=True)
        models[name] = export_model(name, out_dir, chash)
        mpath.write_text(json.dumps(manifest, indent=1))  # after each model: an interrupted run keeps the rest
        print(f"realsize export: {name}: {', '.join(models[name]['variants'])} "
              f"({models[name]['export_seconds']} s)", flush=True)
    mpath.write_text(json.dumps(manifest, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
