"""executorch_runtime.llm: the generation loop on a Llama written by upstream's export_llama.

test/fixtures/llm/manifest.json (test/zoo/export_llm.py) holds the prompt and the greedy
continuation upstream's runtime produced for the same .pte; ours must give the same tokens.
"""

import json
import os
import sys

import numpy as np
import pytest

import executorch_runtime as et
import executorch_runtime.llm as llm

from conftest import ROOT

LLM_DIR = os.path.join(ROOT, "test", "fixtures", "llm")


def _manifest():
    with open(os.path.join(LLM_DIR, "manifest.json")) as f:
        return json.load(f)


PROGRAMS = _manifest()["programs"]


@pytest.fixture(scope="module", params=[p["name"] for p in PROGRAMS])
def case(request):
    entry = next(p for p in PROGRAMS if p["name"] == request.param)
    gen = llm.TextGenerator(os.path.join(LLM_DIR, entry["file"]))
    return entry, gen


def test_metadata_comes_from_the_constant_methods(case):
    entry, gen = case
    m = _manifest()
    assert gen.use_kv_cache is True
    assert gen.dynamic_tokens is True
    assert gen.max_seq_len == m["max_seq_len"]
    assert gen.vocab_size == m["params"]["vocab_size"]


def test_greedy_matches_upstream_token_for_token(case):
    entry, gen = case
    want = entry["expected_tokens_upstream"]
    res = gen.generate(entry["prompt"], len(want), stop_tokens=())
    assert res.tokens == want
    assert res.stop_reason == "max_new_tokens"
    assert res.prompt_tokens == entry["prompt"]
    assert res.prefill_tokens_per_second > 0 and res.decode_tokens_per_second > 0


# Ours and upstream's logits differ by rounding only (about 1e-6 measured; the 8da4w program's
# quantized linear layers are bit-equal to upstream's XNNPACK, test_qd8_linear.py).
LOGIT_TOLERANCE = 1e-4


def test_logits_match_upstream_at_every_step(case):
    # Teacher-forced on upstream's tokens: the prefill call (the whole prompt, below the
    # XNNPACK graphs' dynamic bound) and each decode call (one token) give upstream's logits.
    entry, _ = case
    want_tokens = entry["expected_tokens_upstream"]
    want = np.fromfile(os.path.join(LLM_DIR, entry["logits_upstream"]), dtype="<f4")
    want = want.reshape(len(want_tokens), -1)
    method = et.load(os.path.join(LLM_DIR, entry["file"])).load_method("forward")
    tokens, pos = entry["prompt"], 0
    for step, token in enumerate(want_tokens):
        out = np.asarray(method.execute((np.asarray([tokens], dtype=np.int64),
                                         np.asarray([pos], dtype=np.int64)))[0])
        got = out.reshape(-1, out.shape[-1])[-1]
        np.testing.assert_allclose(got, want[step], rtol=0, atol=LOGIT_TOLERANCE,
                                   err_msg=f"step {step}")
        pos += len(tokens)
        tokens = [token]


def test_a_second_generate_starts_over(case):
    entry, gen = case
    want = entry["expected_tokens_upstream"][:5]
    assert gen.generate(entry["prompt"], 5, stop_tokens=()).tokens == want
    assert gen.generate(entry["prompt"], 5, stop_tokens=()).tokens == want


def test_token_by_token_prefill_gives_the_same_continuation(case):
    entry, gen = case
    # Prefilling one token per call must fill the KV cache exactly like the one-call prefill.
    gen.dynamic_tokens = False
    try:
        res = gen.generate(entry["prompt"], 6, stop_tokens=())
    finally:
        gen.dynamic_tokens = True
    assert res.tokens == entry["expected_tokens_upstream"][:6]


def test_stop_token_ends_generation_and_is_kept(case):
    entry, gen = case
    want = entry["expected_tokens_upstream"]
    stop = want[3]
    first = want.index(stop)
    res = gen.generate(entry["prompt"], len(want), stop_tokens=[stop])
    assert res.tokens == want[: first + 1]
    assert res.stop_reason == "stop_token"


def test_streaming_callback_sees_every_token(case):
    entry, gen = case
    seen = []
    res = gen.generate(entry["prompt"], 4, stop_tokens=(), on_token=seen.append)
    assert seen == res.tokens


def test_context_full_stops_generation(case):
    entry, gen = case
    m = _manifest()
    prompt = (entry["prompt"] * 10)[: m["max_seq_len"] - 2]
    res = gen.generate(prompt, 50, stop_tokens=())
    assert res.stop_reason == "max_seq_len"
    # Positions max_seq_len-2 and -1 are decoded; the token after that has no room.
    assert len(res.tokens) == 3


def test_sampling_is_reproducible_with_a_seed(case):
    entry, gen = case
    a = gen.generate(entry["prompt"], 8, temperature=1.5, top_p=0.9, seed=7, stop_tokens=())
    b = gen.generate(entry["prompt"], 8, temperature=1.5, top_p=0.9, seed=7, stop_tokens=())
    assert a.tokens == b.tokens
    draws = {tuple(gen.generate(entry["prompt"], 8, temperature=1.5, seed=s,
                                stop_tokens=()).tokens) for s in range(6)}
    assert len(draws) > 1, "different seeds never changed the sampled tokens"


def test_top_p_keeps_only_the_nucleus():
    logits = np.log(np.array([0.5, 0.3, 0.15, 0.05], dtype=np.float32))
    rng = np.random.default_rng(0)
    picks = {llm.TextGenerator._sample(logits, 1.0, 0.8, rng) for _ in range(300)}
    assert picks == {0, 1}
    picks = {llm.TextGenerator._sample(logits, 1.0, 1.0, rng) for _ in range(2000)}
    assert picks == {0, 1, 2, 3}
    assert llm.TextGenerator._sample(logits, 0.0, 0.5, rng) == 0


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(prompt_tokens=[], max_new_tokens=1), "prompt_tokens is empty"),
        (dict(prompt_tokens=[1], max_new_tokens=-1), "max_new_tokens"),
        (dict(prompt_tokens=[1], max_new_tokens=1, top_p=0.0), "top_p"),
        (dict(prompt_tokens=[1], max_new_tokens=1, temperature=-1.0), "temperature"),
        (dict(prompt_tokens=[1] * 65, max_new_tokens=1), "at most 64"),
    ],
)
def test_bad_arguments_are_value_errors(case, kwargs, message):
    _, gen = case
    with pytest.raises(ValueError, match=message):
        gen.generate(**kwargs)


def test_a_program_that_is_not_an_llm_is_refused():
    from conftest import zoo_path

    with pytest.raises(ValueError, match="text generator needs"):
        llm.TextGenerator(zoo_path("mlp.pte"))


def test_generator_takes_a_loaded_program(case):
    entry, _ = case
    program = et.load(os.path.join(LLM_DIR, entry["file"]))
    gen = llm.TextGenerator(program)
    assert gen.program is program
    assert gen.generate(entry["prompt"], 3, stop_tokens=()).tokens == \
        entry["expected_tokens_upstream"][:3]


def test_load_tokenizer_names_the_missing_packages(monkeypatch):
    monkeypatch.setitem(sys.modules, "pytorch_tokenizers", None)
    monkeypatch.setitem(sys.modules, "tokenizers", None)
    with pytest.raises(ImportError, match="pytorch_tokenizers.*tokenizers"):
        llm.load_tokenizer("tokenizer.model")


def test_generate_command_prints_the_continuation(case):
    import subprocess

    entry, _ = case
    want = entry["expected_tokens_upstream"][:6]
    r = subprocess.run([sys.executable, "-m", "executorch_runtime", "generate",
                        os.path.join(LLM_DIR, entry["file"]),
                        "--prompt", ",".join(map(str, entry["prompt"])),
                        "--max-new-tokens", "6"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == [str(t) for t in want]
    assert "tokens/s" in r.stderr


def test_generate_command_reports_a_bad_prompt():
    import subprocess

    r = subprocess.run([sys.executable, "-m", "executorch_runtime", "generate",
                        os.path.join(LLM_DIR, PROGRAMS[0]["file"]), "--prompt", "1,x"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 1
    assert "ValueError" in r.stderr
