#!/usr/bin/env python3
"""The dispatch micro-benchmark's programs: x + y applied N times in a chain (N tiny adds).

    build/zoo-venv/bin/python bench/harness/make_chain.py [--out bench/harness/data] [N ...]

Exports `add_chain_<N>.pte` with the upstream exporter (to_edge + to_executorch, default memory
planning: N `aten::add.out` kernel calls on [4]-element float tensors) and writes its inputs and
eager output as .npy next to it. The files are committed, so the benchmark of our runtime needs
no torch; the harness's eager column re-creates the module here with build(N).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import torch

SEED = 1234
DEFAULT_NS = (1, 1000)


class Chain(torch.nn.Module):
    def __init__(self, n: int) -> None:
        super().__init__()
        self.n = n

    def forward(self, x, y):
        for _ in range(self.n):
            x = x + y
        return x


def build(n: int):
    torch.manual_seed(SEED)
    x = torch.randn(4)
    y = torch.randn(4) * 1e-3
    return Chain(n).eval(), (x, y)


def export(n: int, out: Path) -> None:
    from executorch.exir import to_edge

    m, args = build(n)
    with torch.no_grad():
        golden = m(*args)
        ep = torch.export.export(m, args)
    et = to_edge(ep).to_executorch()
    out.mkdir(parents=True, exist_ok=True)
    (out / f"add_chain_{n}.pte").write_bytes(et.buffer)
    for i, a in enumerate(args):
        np.save(out / f"add_chain_{n}.in{i}.npy", a.numpy(), allow_pickle=False)
    np.save(out / f"add_chain_{n}.out0.npy", golden.numpy(), allow_pickle=False)
    print(f"  GEN     {out}/add_chain_{n}.pte ({len(et.buffer)} bytes)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", default=str(Path(__file__).resolve().parent / "data"))
    ap.add_argument("n", nargs="*", type=int, default=list(DEFAULT_NS))
    a = ap.parse_args()
    torch.set_num_threads(1)
    for n in a.n:
        export(n, Path(a.out))


if __name__ == "__main__":
    main()
