"""One runtime's side of bench/llm/llm_bench.py: load a Llama .pte, then answer "round" requests.

    python llm_worker.py ours|upstream model.pte PROMPT_LEN DECODE_LEN VOCAB

Each line read from stdin runs one round: prefill PROMPT_LEN tokens in one call at position 0,
then DECODE_LEN greedy decode calls; the reply is one JSON line with the CPU seconds of each
phase and the tokens (so the driver can check both runtimes agree). Both runtimes run the same
loop, from Python, on the same file: the difference between them is the runtime.
"""

import json
import sys
import time

import numpy as np


def main() -> int:
    which, path = sys.argv[1], sys.argv[2]
    prompt_len, decode_len, vocab = (int(v) for v in sys.argv[3:6])
    t0 = time.process_time()
    if which == "ours":
        import executorch_runtime as et

        method = et.load(path).load_method("forward")

        def forward(tokens, pos):
            return np.asarray(method.execute((tokens, pos))[0])
    else:
        import torch

        torch.set_num_threads(1)
        from executorch.extension.pybindings import portable_lib  # noqa: F401
        from executorch.extension.llm.custom_ops import custom_ops  # noqa: F401
        from executorch.runtime import Runtime

        method = Runtime.get().load_program(path).load_method("forward")

        def forward(tokens, pos):
            return method.execute([torch.from_numpy(tokens), torch.from_numpy(pos)])[0].numpy()

    load_s = time.process_time() - t0
    rng = np.random.default_rng(0)
    prompt = rng.integers(1, vocab, size=(1, prompt_len), dtype=np.int64)
    print(json.dumps({"ready": True, "load_s": load_s}), flush=True)
    for line in sys.stdin:
        if line.strip() != "round":
            break
        t0 = time.process_time()
        logits = forward(prompt, np.array([0], dtype=np.int64))
        prefill_s = time.process_time() - t0
        tokens = []
        t0 = time.process_time()
        for i in range(decode_len):
            tok = int(logits.reshape(-1, logits.shape[-1])[-1].argmax())
            tokens.append(tok)
            logits = forward(np.array([[tok]], dtype=np.int64),
                             np.array([prompt_len + i], dtype=np.int64))
        decode_s = time.process_time() - t0
        print(json.dumps({"prefill_s": prefill_s, "decode_s": decode_s, "tokens": tokens}),
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
