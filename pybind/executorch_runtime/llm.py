"""Text generation with decoder-only language models exported for ExecuTorch.

Works on token ids, so it needs no tokenizer::

    import executorch_runtime.llm as llm
    gen = llm.TextGenerator("llama.pte")
    print(gen.generate([1, 17, 42], max_new_tokens=32).tokens)

The program is expected in the shape upstream's LLM export recipe
(``executorch.examples.models.llama.export_llama``) writes: a ``forward`` method taking
``(tokens: int64[1, n], input_pos: int64[1])`` and returning the logits of the last position
(``[1, vocab]``) or of every position (``[1, n, vocab]``), plus constant methods describing the
model (``get_max_seq_len``, ``use_kv_cache``, ``enable_dynamic_shape``, ``get_eos_ids``, ...).
Whatever metadata a program lacks is taken from ``forward``'s input shapes.

With a KV cache the prompt is prefilled at position 0 (in one call when the program accepts a
dynamic token count, else one token per call) and every new token is decoded in one call at the
next position. Without a KV cache the whole sequence is fed each step.

Sampling: ``temperature == 0`` is greedy (argmax; ties go to the lowest id). Otherwise logits
are divided by the temperature, softmaxed in float64 and cut to the smallest set of most likely
tokens whose probability reaches ``top_p``, then one token is drawn with
``numpy.random.default_rng(seed)``: the same seed gives the same tokens.

``load_tokenizer(path)`` adapts a tokenizer file when ``pytorch_tokenizers`` (upstream's,
tiktoken/sentencepiece/HF json) or Hugging Face ``tokenizers`` is installed; neither is required.
"""

from __future__ import annotations

import dataclasses
import os
import time
import typing

from . import _C
from . import load as _load

__all__ = ["GenerationResult", "TextGenerator", "load_tokenizer"]


@dataclasses.dataclass
class GenerationResult:
    """What ``TextGenerator.generate`` produced.

    ``tokens`` are the new tokens only (the prompt is not repeated). ``stop_reason`` is
    ``"stop_token"`` (the last token is a stop token, kept in ``tokens``), ``"max_new_tokens"`` or
    ``"max_seq_len"`` (the model's context is full).
    """

    prompt_tokens: typing.List[int]
    tokens: typing.List[int]
    stop_reason: str
    prefill_seconds: float
    decode_seconds: float

    @property
    def prefill_tokens_per_second(self) -> float:
        n = len(self.prompt_tokens)
        return n / self.prefill_seconds if self.prefill_seconds > 0 else float("inf")

    @property
    def decode_tokens_per_second(self) -> float:
        # The first new token comes out of the prefill call; each later one costs a decode call.
        n = max(len(self.tokens) - 1, 0)
        return n / self.decode_seconds if self.decode_seconds > 0 else float("inf")


def _constant(program, name, default):
    if name not in program.method_names:
        return default
    outs = program.load_method(name).execute(())
    return outs[0] if len(outs) == 1 else list(outs)


class TextGenerator:
    """Runs the prefill/decode loop of one loaded program.

    ``program`` is a path, bytes, or an ``executorch_runtime.Program``. ``max_memory`` is passed to
    ``load_method``. The KV cache lives in the method's planned memory, so one generator holds one
    conversation: each ``generate`` call starts again at position 0.
    """

    def __init__(self, program, *, method: str = "forward", max_memory: typing.Optional[int] = None):
        if isinstance(program, _C.Program):
            self.program = program
        else:
            self.program = _load(program)
        self._method = self.program.load_method(method, max_memory=max_memory)
        meta = self._method.meta
        inputs = meta.inputs
        import numpy as np

        if (len(inputs) not in (1, 2) or inputs[0].kind.lower() != "tensor" or len(inputs[0].shape) != 2
                or inputs[0].dtype != np.int64):
            raise ValueError(
                f"method '{method}' takes {len(inputs)} input(s); a text generator needs "
                "(tokens: int64[1, n]) or (tokens: int64[1, n], input_pos: int64[1])")
        self._token_capacity = int(inputs[0].shape[1])
        self.use_kv_cache = bool(_constant(self.program, "use_kv_cache", len(inputs) == 2))
        if self.use_kv_cache and len(inputs) != 2:
            raise ValueError(f"method '{method}' has no input_pos input but the program says it "
                             "uses a KV cache")
        self.dynamic_tokens = bool(_constant(self.program, "enable_dynamic_shape", False))
        self.max_seq_len = int(_constant(self.program, "get_max_seq_len", self._token_capacity))
        self.max_context_len = int(_constant(self.program, "get_max_context_len",
                                             self.max_seq_len))
        self.vocab_size = _constant(self.program, "get_vocab_size", None)
        eos = _constant(self.program, "get_eos_ids", [])
        self.eos_ids = [int(e) for e in (eos if isinstance(eos, list) else [eos])]
        bos = _constant(self.program, "get_bos_id", None)
        self.bos_id = None if bos is None else int(bos)

    def _forward(self, tokens, pos):
        import numpy as np

        t = np.asarray([tokens], dtype=np.int64)
        args = (t, np.asarray([pos], dtype=np.int64)) if self.use_kv_cache else (t,)
        logits = np.asarray(self._method.execute(args)[0])
        if logits.ndim == 3:  # [1, n, vocab]: full logits, keep the last position
            logits = logits[0, -1]
        return logits.reshape(-1)

    def _prefill(self, prompt):
        if not self.use_kv_cache:
            return self._forward(prompt, 0)
        if self.dynamic_tokens and len(prompt) <= self._token_capacity:
            return self._forward(prompt, 0)
        logits = None
        for pos, tok in enumerate(prompt):
            logits = self._forward([tok], pos)
        return logits

    def generate(
        self,
        prompt_tokens: typing.Sequence[int],
        max_new_tokens: int,
        *,
        temperature: float = 0.0,
        top_p: float = 1.0,
        seed: typing.Optional[int] = None,
        stop_tokens: typing.Optional[typing.Iterable[int]] = None,
        on_token: typing.Optional[typing.Callable[[int], None]] = None,
    ) -> GenerationResult:
        """Continue ``prompt_tokens`` by up to ``max_new_tokens`` tokens.

        ``stop_tokens`` default to the program's ``get_eos_ids`` (none if it has no such
        method); pass ``()`` to never stop early. ``on_token`` is called with each new token as
        soon as it is chosen (for streaming).
        """
        import numpy as np

        prompt = [int(t) for t in prompt_tokens]
        if not prompt:
            raise ValueError("prompt_tokens is empty: the model needs at least one token")
        if max_new_tokens < 0:
            raise ValueError(f"max_new_tokens is {max_new_tokens}; it must be >= 0")
        if not 0.0 < top_p <= 1.0:
            raise ValueError(f"top_p is {top_p}; it must be in (0, 1]")
        if temperature < 0.0:
            raise ValueError(f"temperature is {temperature}; it must be >= 0")
        if len(prompt) > self.max_seq_len:
            raise ValueError(f"the prompt has {len(prompt)} tokens; the model holds at most "
                             f"{self.max_seq_len}")
        if not self.use_kv_cache and len(prompt) > self._token_capacity:
            raise ValueError(f"the prompt has {len(prompt)} tokens; forward takes at most "
                             f"{self._token_capacity}")
        stops = set(self.eos_ids if stop_tokens is None else (int(t) for t in stop_tokens))
        rng = np.random.default_rng(seed)
        limit = self.max_seq_len if self.use_kv_cache else self._token_capacity

        start = time.perf_counter()
        logits = self._prefill(prompt)
        prefill_seconds = time.perf_counter() - start

        out: typing.List[int] = []
        reason = "max_new_tokens"
        start = time.perf_counter()
        while len(out) < max_new_tokens:
            tok = self._sample(logits, temperature, top_p, rng)
            out.append(tok)
            if on_token is not None:
                on_token(tok)
            if tok in stops:
                reason = "stop_token"
                break
            if len(out) == max_new_tokens:
                break
            pos = len(prompt) + len(out) - 1  # position of the token just chosen
            if pos >= limit:
                reason = "max_seq_len"
                break
            if self.use_kv_cache:
                logits = self._forward([tok], pos)
            else:
                logits = self._forward(prompt + out, 0)
        decode_seconds = time.perf_counter() - start
        return GenerationResult(prompt, out, reason, prefill_seconds, decode_seconds)

    @staticmethod
    def _sample(logits, temperature, top_p, rng) -> int:
        import numpy as np

        if temperature == 0.0:
            return int(np.argmax(logits))
        z = logits.astype(np.float64) / temperature
        z -= z.max()
        p = np.exp(z)
        p /= p.sum()
        order = np.argsort(-p, kind="stable")
        cumulative = np.cumsum(p[order])
        keep = int(np.searchsorted(cumulative, top_p) + 1)  # smallest prefix reaching top_p
        kept = order[:keep]
        q = p[kept] / p[kept].sum()
        return int(kept[rng.choice(len(kept), p=q)])


class _Tokenizer:
    """encode(text) -> ids, decode(ids) -> text, over whichever library loaded the file."""

    def __init__(self, encode, decode, bos_id, eos_id):
        self.encode = encode
        self.decode = decode
        self.bos_id = bos_id
        self.eos_id = eos_id


def load_tokenizer(path: typing.Union[str, os.PathLike]) -> _Tokenizer:
    """A tokenizer for ``path`` through ``pytorch_tokenizers`` or Hugging Face ``tokenizers``.

    Raises ``ImportError`` naming both packages when neither is installed.
    """
    path = os.fspath(path)
    try:
        from pytorch_tokenizers import get_tokenizer
    except ImportError:
        get_tokenizer = None
    if get_tokenizer is not None:
        tok = get_tokenizer(path)
        return _Tokenizer(lambda s: list(tok.encode(s, bos=False, eos=False)),
                          lambda ids: tok.decode(list(ids)),
                          getattr(tok, "bos_id", None), getattr(tok, "eos_id", None))
    try:
        from tokenizers import Tokenizer
    except ImportError:
        raise ImportError("load_tokenizer needs 'pytorch_tokenizers' or 'tokenizers' "
                          "(pip install one of them)") from None
    tok = Tokenizer.from_file(path)
    return _Tokenizer(lambda s: tok.encode(s).ids, lambda ids: tok.decode(list(ids)), None, None)
