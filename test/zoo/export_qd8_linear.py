#!/usr/bin/env python3
"""Export one 8da4w linear layer lowered to XNNPACK and record upstream's outputs, bit for bit.

Run it inside the zoo venv:

    python test/zoo/export_qd8_linear.py --out test/fixtures/xnnpack_qd8

The layer is what upstream's `export_llama -X -qmode 8da4w -G 32` makes of every linear layer
(torchao's Int8DynamicActivationIntxWeightConfig: int8 activations quantized per row at run
time, 4-bit weights in blocks of 32 with bf16 scales), here with a bias, 160 input channels (5
blocks) and 40 output channels (not a multiple of any kernel tile), and a dynamic row count (at
most 8). upstream's runtime runs it on a few inputs of 5 rows and of 1 row; the outputs are
written as little-endian float32 next to the inputs, and manifest.json lists them. The test
(test/python/test_qd8_linear.py) requires the same bits from ours: XNNPACK computes this layer
in integers and a fixed order of float operations, and a quantized network amplifies any ulp
of difference into whole quantization steps downstream.
"""

import argparse
import json
from pathlib import Path

import numpy as np

K, N, MAX_ROWS, GROUP = 160, 40, 8, 32
ROWS = [5, 1, 5, 1, 8]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=str(Path(__file__).resolve().parents[1] / "fixtures" /
                                         "xnnpack_qd8"))
    out = Path(ap.parse_args().out)
    out.mkdir(parents=True, exist_ok=True)
    import torch
    from torchao.quantization import Int8DynamicActivationIntxWeightConfig, quantize_
    from torchao.quantization.granularity import PerGroup
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.exir import to_edge_transform_and_lower

    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(K, N, bias=True)).eval()
    quantize_(model, Int8DynamicActivationIntxWeightConfig(
        weight_dtype=torch.int4, weight_granularity=PerGroup(GROUP),
        intx_choose_qparams_algorithm="affine"))
    rows = torch.export.Dim("rows", min=1, max=MAX_ROWS)
    ep = torch.export.export(model, (torch.randn(MAX_ROWS, K),), dynamic_shapes=({0: rows},))
    program = to_edge_transform_and_lower(ep, partitioner=[XnnpackPartitioner()]).to_executorch()
    (out / "linear_8da4w.pte").write_bytes(program.buffer)

    from executorch.extension.pybindings import portable_lib  # noqa: F401
    from executorch.runtime import Runtime
    method = Runtime.get().load_program(str(out / "linear_8da4w.pte")).load_method("forward")
    cases = []
    for i, m in enumerate(ROWS):
        # Rows of different ranges and signs, so the zero points differ (one row all positive).
        x = torch.randn(m, K) * (0.3 + 0.7 * i)
        if m > 1:
            x[1] = x[1].abs() + 0.1
        y = method.execute([x])[0].numpy()
        x.numpy().astype("<f4").tofile(out / f"input{i}.f32")
        y.astype("<f4").tofile(out / f"output{i}.f32")
        cases.append({"rows": m, "input": f"input{i}.f32", "output_upstream": f"output{i}.f32"})
    import executorch
    manifest = {"generator": "test/zoo/export_qd8_linear.py",
                "versions": {"torch": torch.__version__,
                             "executorch": getattr(executorch, "__version__", "unknown")},
                "program": "linear_8da4w.pte", "in_features": K, "out_features": N,
                "cases": cases}
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
