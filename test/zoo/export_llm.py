#!/usr/bin/env python3
"""Export a tiny Llama with upstream's own LLM recipe and record upstream's greedy continuation.

Run it inside the zoo venv (`make zoo-llm` does this):

    python test/zoo/export_llm.py --out test/fixtures/llm

For each variant below this runs `python -m executorch.examples.models.llama.export_llama`
exactly as a user would (tiny params.json, random weights, KV cache, the fused
`llama::sdpa_with_kv_cache` path), then runs the .pte in upstream's Python runtime on a fixed
prompt: one prefill call with the whole prompt at position 0, then one decode call per token,
greedy. The prompt, the continuation and, per step, the gap between the best and second-best
logit are written to manifest.json, and each step's last-position logits to NAME.logits.f32; the
tests replay the same loop on our runtime and require the same tokens (and logits within a
stated tolerance). Steps whose top-2 gap is tiny could flip on rounding alone, so the script
refuses to write a continuation with a gap below MIN_MARGIN (re-run to draw new weights).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

# Small enough to commit (about 0.5 MB), big enough to exercise grouped-query attention
# (4 query heads share 2 KV heads) and a KV cache longer than the prompt.
PARAMS = {
    "dim": 64,
    "n_layers": 2,
    "n_heads": 4,
    "n_kv_heads": 2,
    "vocab_size": 256,
    "multiple_of": 32,
    "norm_eps": 1e-5,
}
MAX_SEQ_LEN = 64
PROMPT = [1, 17, 42, 7, 99, 3, 200, 18, 64, 5]
NEW_TOKENS = 24
MIN_MARGIN = 1e-3

VARIANTS = {
    # fp32, portable kernels plus the llama:: custom operators (no delegate).
    "llama_portable": ["-kv", "--use_sdpa_with_kv_cache", "-d", "fp32"],
    # The same model with its linear layers (and what else the partitioner takes) lowered to
    # XNNPACK: the delegate graph has a dynamic sequence length (prefill and decode calls).
    "llama_xnnpack": ["-kv", "--use_sdpa_with_kv_cache", "-X", "-d", "fp32"],
    # ... with 8-bit dynamically quantized activations and 4-bit grouped weights.
    "llama_xnnpack_8da4w": ["-kv", "--use_sdpa_with_kv_cache", "-X", "-d", "fp32",
                            "-qmode", "8da4w", "-G", "32"],
}


def write_checkpoint(path: Path, params: dict, max_seq_len: int) -> None:
    """Seeded random weights in the recipe's own parameter names.

    Without a checkpoint export_llama leaves tensors that have no reset_parameters() (the norm
    weights) uninitialized, so the program would compute on garbage.
    """
    import torch
    from executorch.examples.models.llama.llama_transformer import construct_transformer
    from executorch.examples.models.llama.model_args import ModelArgs

    torch.manual_seed(0)
    model = construct_transformer(ModelArgs(max_seq_len=max_seq_len, max_context_len=max_seq_len,
                                            **params))
    state = {k: v.detach().clone() for k, v in model.named_parameters()}
    torch.save(state, path)


def export(name: str, extra_args: list, out_dir: Path, params_dict: dict = PARAMS,
           max_seq_len: int = MAX_SEQ_LEN):
    """Runs export_llama on seeded random weights; returns (the .pte path, the command)."""
    with tempfile.TemporaryDirectory() as tmp:
        params = Path(tmp) / "params.json"
        params.write_text(json.dumps(params_dict))
        checkpoint = Path(tmp) / "checkpoint.pth"
        write_checkpoint(checkpoint, params_dict, max_seq_len)
        pte = Path(tmp) / f"{name}.pte"
        cmd = [sys.executable, "-m", "executorch.examples.models.llama.export_llama",
               "-p", str(params), "-c", str(checkpoint), "--max_seq_length", str(max_seq_len),
               "--max_context_length", str(max_seq_len), "--output_name", str(pte)] + extra_args
        subprocess.run(cmd, check=True, cwd=tmp, stdout=subprocess.DEVNULL)
        dest = out_dir / f"{name}.pte"
        dest.write_bytes(pte.read_bytes())
        return dest, cmd[1:]


def greedy_upstream(pte: Path):
    import torch
    # Upstream's runtime knows the llama:: kernels only once its custom-ops library is loaded,
    # after the pybindings (upstream examples/models/llama/runner/native.py does the same).
    from executorch.extension.pybindings import portable_lib  # noqa: F401
    from executorch.extension.llm.custom_ops import custom_ops  # noqa: F401
    from executorch.runtime import Runtime

    method = Runtime.get().load_program(str(pte)).load_method("forward")
    tokens = torch.tensor([PROMPT], dtype=torch.long)
    logits = method.execute([tokens, torch.tensor([0], dtype=torch.long)])[0]
    out, margins, rows = [], [], []
    pos = len(PROMPT)
    for _ in range(NEW_TOKENS):
        row = logits.reshape(-1, logits.shape[-1])[-1].numpy().astype(np.float64)
        rows.append(row.astype(np.float32))
        top2 = np.sort(row)[-2:]
        margins.append(float(top2[1] - top2[0]))
        nxt = int(row.argmax())
        out.append(nxt)
        logits = method.execute([torch.tensor([[nxt]], dtype=torch.long),
                                 torch.tensor([pos], dtype=torch.long)])[0]
        pos += 1
    return out, margins, np.stack(rows)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=str(Path(__file__).resolve().parents[1] / "fixtures" / "llm"))
    args = ap.parse_args()
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    import executorch
    import torch

    manifest = {
        "generator": "test/zoo/export_llm.py",
        "versions": {"torch": torch.__version__,
                     "executorch": getattr(executorch, "__version__", "unknown")},
        "params": PARAMS,
        "max_seq_len": MAX_SEQ_LEN,
        "programs": [],
    }
    for name, extra in VARIANTS.items():
        pte, cmd = export(name, extra, out_dir)
        tokens, margins, logits = greedy_upstream(pte)
        # The last-position logits of each greedy step (prefill, then one per decode call), as
        # little-endian float32 [NEW_TOKENS, vocab]: tests that cannot expect bit-equal tokens
        # (emulated dynamic quantization) compare against these with a tolerance.
        logits_file = out_dir / f"{name}.logits.f32"
        logits.astype("<f4").tofile(logits_file)
        if min(margins) < MIN_MARGIN:
            print(f"{name}: top-2 logit gap {min(margins):.2e} < {MIN_MARGIN}; re-run",
                  file=sys.stderr)
            return 1
        manifest["programs"].append({
            "name": name,
            "file": pte.name,
            "export_command": " ".join(["python"] + [os.path.basename(c) if c.endswith(".json")
                                                     else c for c in cmd]),
            "prompt": PROMPT,
            "expected_tokens_upstream": tokens,
            "min_top2_logit_gap": min(margins),
            "logits_upstream": logits_file.name,
        })
        print(f"  LLM     {name}: {pte.stat().st_size} bytes, continuation {tokens}")
    (out_dir / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
