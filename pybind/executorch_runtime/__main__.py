"""python -m executorch_runtime: SDK locators and the ``run`` and ``generate`` commands.

    python -m executorch_runtime --includedir | --libdir | --cmakedir | --cflags | --libs
    python -m executorch_runtime run model.pte [--method NAME] [--input file.npy ...]
                                 [--iterations N] [--profile]
                                 [--verification Minimal|InternalConsistency]

``run`` is the Python twin of the C++ ``et_run`` tool: it lists the program's methods, runs
the chosen one (ones for every tensor input unless ``--input`` files are given; non-tensor
inputs get the value fixed at export), and prints each output's dtype, shape and leading
values, then the load and median execute times. ``--verification`` takes the name of a
``Verification`` member (default ``Minimal``). Errors print the runtime's error name and
message and exit with status 1.

    python -m executorch_runtime generate llama.pte --prompt 1,17,42 [--max-new-tokens N]
                                 [--temperature T] [--top-p P] [--seed S] [--stop ID ...]
    python -m executorch_runtime generate llama.pte --tokenizer tokenizer.model --text "Hi"

``generate`` runs ``executorch_runtime.llm.TextGenerator`` (the Python twin of the C++
``et_generate`` tool): new token ids (or text, with ``--tokenizer``) on stdout, speeds on stderr.
"""

import argparse
import os
import shlex
import statistics
import sys
import time


def _locators(args) -> int:
    import executorch_runtime as et

    inc, lib = et.get_include(), et.get_library_dir()
    if args.includedir:
        print(inc)
    elif args.libdir:
        print(lib)
    elif args.cmakedir:
        print(os.path.join(et.cmake_prefix_path(), "executorch"))
    elif args.cflags:
        print(f"-std=c++17 -I{shlex.quote(inc)}")
    elif args.libs:
        q = shlex.quote(lib)
        print(
            f"-L{q} -Wl,-rpath,{q} -Wl,--push-state,--no-as-needed "
            "-lexecutorch_kernels -lexecutorch -Wl,--pop-state"
        )
    return 0


def _fmt_values(a, limit=8) -> str:
    flat = a.reshape(-1)
    vals = ", ".join(
        str(bool(v)) if a.dtype.kind == "b" else f"{v:.6g}" if a.dtype.kind in "fc" else str(v)
        for v in flat[:limit].tolist()
    )
    return "[" + vals + (", ..." if flat.size > limit else "") + "]"


def _describe(value) -> str:
    if hasattr(value, "dtype") and hasattr(value, "shape"):
        return f"{value.dtype} {tuple(value.shape)} {_fmt_values(value)}"
    return f"{type(value).__name__} {value!r}"


def _byte_count(text: str) -> int:
    """A byte count with an optional K/M/G/T suffix (powers of 1024), as et_run takes it."""
    scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
    number, unit = (text[:-1], text[-1].upper()) if text[-1:].upper() in scale else (text, "")
    try:
        value = int(number) * scale.get(unit, 1)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a byte count: {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"not a positive byte count: {text!r}")
    return value


def _run(args) -> int:
    import numpy as np

    import executorch_runtime as et

    verification = et.Verification[args.verification]
    t0 = time.perf_counter()
    program = et.load(args.model, verification=verification, data_path=args.data)
    t_load = (time.perf_counter() - t0) * 1e3
    names = program.method_names
    print(f"program: {args.model}")
    print(f"methods: {', '.join(names)}")
    name = args.method or ("forward" if "forward" in names else names[0])
    t0 = time.perf_counter()
    method = program.load_method(name, profile=args.profile, max_memory=args.max_memory)
    t_method = (time.perf_counter() - t0) * 1e3
    meta = method.meta
    if args.input:
        inputs = [np.load(path, allow_pickle=False) for path in args.input]
    else:
        inputs = []
        for i, info in enumerate(meta.inputs):
            if info.kind == "Tensor":
                inputs.append(np.ones(info.shape, dtype=info.dtype))
            else:
                inputs.append(method._fixed_input(i))
    print(f"method: {name}")
    for i, info in enumerate(meta.inputs):
        desc = f"{info.dtype} {info.shape}" if info.kind == "Tensor" else info.kind
        print(f"  input {i}: {desc}")
    times = []
    outputs = []
    for _ in range(max(1, args.iterations)):
        t0 = time.perf_counter()
        outputs = method.execute(inputs)
        times.append((time.perf_counter() - t0) * 1e3)
    for i, out in enumerate(outputs):
        print(f"  output {i}: {_describe(out)}")
    print(f"load: program {t_load:.3f} ms, method {t_method:.3f} ms")
    print(
        f"execute: median {statistics.median(times):.3f} ms over {len(times)} iteration(s)"
        f" (min {min(times):.3f} ms, max {max(times):.3f} ms)"
    )
    if args.profile:
        _print_profile(method.profile_results(), sum(times) * 1e6)
    return 0


def _print_profile(rows, execute_ns: float) -> None:
    """The per-operator table: operator, calls, total and mean time, share of execute time."""
    rows = sorted(rows, key=lambda r: r[2], reverse=True)
    print("profile (per operator, all iterations):")
    print(f"  {'operator':<48} {'calls':>7} {'total ms':>10} {'mean us':>10} {'share':>7}")
    for name, calls, total_ns in rows:
        share = 100.0 * total_ns / execute_ns if execute_ns > 0 else 0.0
        mean_us = total_ns / calls / 1e3 if calls else 0.0
        print(f"  {name:<48} {calls:>7} {total_ns / 1e6:>10.3f} {mean_us:>10.2f} {share:>6.1f}%")


def _generate(argv) -> int:
    import executorch_runtime as et
    from executorch_runtime import llm

    p = argparse.ArgumentParser(prog="python -m executorch_runtime generate",
                                description="Generate tokens with an LLM program.")
    p.add_argument("model")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--prompt", help="prompt token ids, comma separated")
    src.add_argument("--text", help="prompt text (needs --tokenizer)")
    p.add_argument("--tokenizer", help="tokenizer file (pytorch_tokenizers or tokenizers)")
    p.add_argument("--max-new-tokens", type=int, default=32)
    p.add_argument("--temperature", type=float, default=0.0)
    p.add_argument("--top-p", type=float, default=1.0)
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--stop", type=int, action="append", default=None, metavar="ID",
                   help="stop after this token (repeatable; default: the program's eos ids)")
    args = p.parse_args(argv)
    try:
        tok = llm.load_tokenizer(args.tokenizer) if args.tokenizer else None
        if args.text is not None:
            if tok is None:
                p.error("--text needs --tokenizer")
            prompt = ([tok.bos_id] if tok.bos_id is not None else []) + tok.encode(args.text)
        else:
            prompt = [int(t) for t in args.prompt.split(",")]
        gen = llm.TextGenerator(args.model)
        res = gen.generate(prompt, args.max_new_tokens, temperature=args.temperature,
                           top_p=args.top_p, seed=args.seed, stop_tokens=args.stop)
    except et.Error as e:
        print(f"error: {e.code.name}: {e}", file=sys.stderr)
        return 1
    except (OSError, ValueError, ImportError) as e:
        print(f"error: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    print(tok.decode(res.tokens) if tok is not None else " ".join(map(str, res.tokens)))
    print(f"prefill: {len(res.prompt_tokens)} tokens, {res.prefill_tokens_per_second:.1f} "
          f"tokens/s; decode: {res.decode_tokens_per_second:.1f} tokens/s; "
          f"stop: {res.stop_reason}", file=sys.stderr)
    return 0


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "generate":
        return _generate(argv[1:])
    if argv and argv[0] == "run":
        import executorch_runtime as et

        p = argparse.ArgumentParser(prog="python -m executorch_runtime run",
                                    description="Run a method of a .pte program.")
        p.add_argument("model")
        p.add_argument("--method", default=None)
        p.add_argument("--input", action="append", default=[], metavar="FILE.npy")
        p.add_argument("--data", default=None, metavar="FILE.ptd",
                       help="external constants of the program")
        p.add_argument("--iterations", type=int, default=1)
        p.add_argument("--profile", action="store_true")
        p.add_argument("--max-memory", type=_byte_count, default=None, metavar="BYTES",
                       help="cap on the memory sized from the program (planned buffers, "
                            "unplanned outputs); K/M/G/T suffixes; default: half of RAM")
        p.add_argument("--verification", choices=[v.name for v in et.Verification],
                       default=et.Verification.Minimal.name,
                       help="how thoroughly the program is checked while loading")
        args = p.parse_args(argv[1:])
        try:
            return _run(args)
        except et.Error as e:
            print(f"error: {e.code.name}: {e}", file=sys.stderr)
            return 1
        except (OSError, ValueError, TypeError, KeyError) as e:
            print(f"error: {type(e).__name__}: {e}", file=sys.stderr)
            return 1
    p = argparse.ArgumentParser(prog="python -m executorch_runtime",
                                description="Locate the executorch_runtime C++ SDK, or `run` a "
                                            "program (see `run --help`).")
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--includedir", action="store_true", help="the include directory")
    g.add_argument("--libdir", action="store_true", help="the library directory")
    g.add_argument("--cmakedir", action="store_true",
                   help="the directory of executorch-config.cmake")
    g.add_argument("--cflags", action="store_true", help="compiler flags")
    g.add_argument("--libs", action="store_true", help="linker flags")
    return _locators(p.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
