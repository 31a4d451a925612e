#!/usr/bin/env python3
"""Writes the per-operator golden cases of the CPU kernel library.

Run in the zoo virtual environment (torch + executorch, created by `make zoo`):

    build/zoo-venv/bin/python test/kernels/gen_goldens.py [--out test/fixtures/kernels]
    build/zoo-venv/bin/python test/kernels/gen_goldens.py --only quantized   # its own dir

Every case names an operator by its registry key ("aten::add.out") and lists
its schema arguments in order. The expected result comes from eager PyTorch
calling that exact overload (torch.ops.<ns>.<op>.<overload>) with the same
arguments and an out tensor of the requested dtype, so type promotion with
an authoritative out dtype, broadcasting and rounding are PyTorch's.

Output: one .npy per tensor (logical values, C order; bfloat16 is stored as
raw uint16 with dtype "bfloat16" in the index) and index.json, read by the
GoogleTest runner test/unit/kernels_elementwise/goldens_test.cpp through the
kernel registry. `make check` never needs torch.

Case files: cases_*.py next to this script; each defines cases(g) and calls
g.case(...) with the argument helpers below (T, Out, I, F, B, NONE, IL, STR,
DT). A case file that sets FIXTURE_DIR = "kernels_<family>" writes its own
directory test/fixtures/kernels_<family> (with --only <family>) and is left
out of the default run.
"""
import argparse
import glob
import importlib.util
import json
import os
import shutil
import sys

import numpy as np
import torch

try:  # registers torch.ops.dim_order_ops.*
    import executorch.exir.passes.dim_order_ops_registry  # noqa: F401
except Exception:  # pragma: no cover - only the dim_order cases need it
    pass

HERE = os.path.dirname(os.path.abspath(__file__))

DTYPE_NAMES = {
    torch.float32: "float32",
    torch.float64: "float64",
    torch.float16: "float16",
    torch.bfloat16: "bfloat16",
    torch.int64: "int64",
    torch.int32: "int32",
    torch.int16: "int16",
    torch.int8: "int8",
    torch.uint8: "uint8",
    torch.bool: "bool",
}

CHANNELS_LAST = (0, 2, 3, 1)

# Registry key -> a callable with the op's `_schema` that computes the eager
# result, for out variants the executorch package registers without a CPU
# kernel (a case file fills it in).
EAGER_OVERRIDES = {}


# ---------------------------------------------------------------------------
# Argument helpers used by the case files

class T:
    """A tensor argument; dim_order gives its memory layout in the runtime."""

    def __init__(self, t, dim_order=None):
        self.t = t
        self.dim_order = dim_order


class Out:
    """The out tensor: its dtype, layout and allocation.

    shape: the allocated (initial) shape; default is the expected result's.
    dynamic: allocate as DYNAMIC_BOUND; numel(shape) is its capacity, so the
    kernel must resize it to the result's shape.
    """

    def __init__(self, dtype=torch.float32, dim_order=None, shape=None, dynamic=False,
                 eager_shape=None):
        self.dtype = dtype
        self.dim_order = dim_order
        self.shape = shape
        self.dynamic = dynamic
        # The shape of the out the eager call gets (default: empty, resized by
        # the op). Kernels built in ExecuTorch's ATen mode (the executorch
        # package's custom-op libraries) need it allocated at the result's shape.
        self.eager_shape = eager_shape

    def eager(self):
        return torch.empty(self.eager_shape if self.eager_shape is not None else 0,
                           dtype=self.dtype)


class _Val:
    def __init__(self, kind, value, torch_value=None):
        self.kind = kind
        self.value = value
        self.torch_value = value if torch_value is None else torch_value


def I(v):  # noqa: E743 - Int EValue
    return _Val("int", int(v))


def F(v):  # Double EValue
    return _Val("double", float(v))


def B(v):  # Bool EValue
    return _Val("bool", bool(v))


NONE = _Val("none", None)


def IL(v):  # int list
    return _Val("intlist", [int(x) for x in v])


def STR(s):
    return _Val("string", str(s))


# ExecuTorch ScalarType codes (runtime/core/portable_type/scalar_type.h).
SCALAR_TYPE_CODES = {
    torch.uint8: 0, torch.int8: 1, torch.int16: 2, torch.int32: 3, torch.int64: 4,
    torch.float16: 5, torch.float32: 6, torch.float64: 7, torch.bool: 11,
    torch.bfloat16: 15, torch.uint16: 27,
}


def DT(dtype):
    """A ScalarType argument: an Int EValue in the program, a torch.dtype for eager."""
    return _Val("int", SCALAR_TYPE_CODES[dtype], torch_value=dtype)


def scalar(v):
    """A Python number as the matching Scalar EValue."""
    if isinstance(v, bool):
        return B(v)
    if isinstance(v, int):
        return I(v)
    return F(v)


# ---------------------------------------------------------------------------

class Gen:
    def __init__(self, outdir):
        self.outdir = outdir
        self.cases = []
        self.names = set()
        self.nfiles = 0
        self.current_file = None

    def _save(self, t):
        t = t.detach().contiguous()
        name = "t%05d.npy" % self.nfiles
        self.nfiles += 1
        if t.dtype == torch.bfloat16:
            arr = t.view(torch.int16).numpy().view(np.uint16)
        else:
            arr = t.numpy()
        np.save(os.path.join(self.outdir, name), arr, allow_pickle=False)
        return name

    def _encode_args(self, name, args):
        """The index entries of the arguments and their eager values."""
        enc_args = []
        torch_args = []
        for a in args:
            if isinstance(a, T):
                enc_args.append({
                    "kind": "tensor",
                    "file": self._save(a.t),
                    "dtype": DTYPE_NAMES[a.t.dtype],
                    "dim_order": list(a.dim_order) if a.dim_order is not None else None,
                })
                torch_args.append(a.t.clone())
            elif isinstance(a, _Val):
                v = a.value
                if a.kind == "double":
                    v = repr(float(v))  # strings keep inf/nan exact
                enc_args.append({"kind": a.kind, "value": v})
                torch_args.append(a.torch_value)
            else:
                raise TypeError("argument of case %s: %r" % (name, a))
        return enc_args, torch_args

    @staticmethod
    def _torch_op(op):
        if op in EAGER_OVERRIDES:
            return EAGER_OVERRIDES[op]
        ns, rest = op.split("::")
        name, _, overload = rest.partition(".")
        packet = getattr(getattr(torch.ops, ns), name)
        return getattr(packet, overload or "default")

    def case(self, label, op, *args, out=None, error=None, rtol=None, atol=None, ret=None,
             result_arg=None):
        """Adds one case.

        op: the registry key, e.g. "aten::add.out". args: the schema
        arguments before the out (T / scalar helpers); out: an Out (None for
        an in-place op, whose result is argument `ret`, default 0), or a list
        of Outs for an op with several out arguments (the compared one is
        out[ret], default 0).
        result_arg: compare argument `result_arg` after the call (an
        argument the op mutates, e.g. a KV cache) instead of the result.
        error: expected failure ("InvalidArgument", ...); no torch call then.
        """
        if isinstance(out, (list, tuple)):
            return self._case_outs(label, op, args, list(out), error, rtol, atol, ret or 0,
                                   result_arg)
        if result_arg is not None:
            return self._case_outs(label, op, args, [out], error, rtol, atol, 0, result_arg)
        name = "%s/%s" % (op, label)
        if name in self.names:
            raise ValueError("duplicate case " + name)
        self.names.add(name)
        enc_args, torch_args = self._encode_args(name, args)
        entry = {"name": name, "op": op, "args": enc_args}
        if error is not None:
            entry["error"] = error
        if out is not None:
            enc_out = {
                "kind": "out",
                "dtype": DTYPE_NAMES[out.dtype],
                "dim_order": list(out.dim_order) if out.dim_order is not None else None,
                "dynamic": bool(out.dynamic),
            }
            entry["ret"] = len(entry["args"])
            entry["args"].append(enc_out)
        else:
            entry["ret"] = 0 if ret is None else ret
        if error is None:
            fn = self._torch_op(op)
            pos, kw = _schema_call_args(fn, torch_args)
            if out is not None:
                o = out.eager()
                fn(*pos, **kw, out=o)
                result = o
            else:
                result = fn(*pos, **kw)
                result = torch_args[entry["ret"]] if not isinstance(result, torch.Tensor) else result
            entry["expect"] = {
                "file": self._save(result),
                "dtype": DTYPE_NAMES[result.dtype],
                "shape": list(result.shape),
            }
            if out is not None:
                shape = list(result.shape) if out.shape is None else list(out.shape)
                if out.dynamic and _numel(shape) < result.numel():
                    raise ValueError("%s: a dynamic out's shape sets its capacity; it must hold "
                                     "the result (%d elements)" % (name, result.numel()))
                entry["args"][-1]["shape"] = shape
                entry["args"][-1]["capacity"] = max(_numel(shape), result.numel())
            default_tol = _default_tol(result.dtype)
            entry["rtol"] = default_tol[0] if rtol is None else rtol
            entry["atol"] = default_tol[1] if atol is None else atol
        else:
            if out is not None:
                if out.shape is None:
                    raise ValueError("error case %s needs Out(shape=...)" % name)
                entry["args"][-1]["shape"] = list(out.shape)
                entry["args"][-1]["capacity"] = _numel(out.shape)
        entry["source"] = self.current_file
        self.cases.append(entry)
        return entry

    def _case_outs(self, label, op, args, outs, error, rtol, atol, ret, result_arg):
        """case() for several out arguments or a compared mutated argument."""
        name = "%s/%s" % (op, label)
        if name in self.names:
            raise ValueError("duplicate case " + name)
        self.names.add(name)
        enc_args, torch_args = self._encode_args(name, args)
        entry = {"name": name, "op": op, "args": enc_args, "source": self.current_file}
        if error is not None:
            entry["error"] = error
        first_out = len(entry["args"])
        for o in outs:
            entry["args"].append({
                "kind": "out",
                "dtype": DTYPE_NAMES[o.dtype],
                "dim_order": list(o.dim_order) if o.dim_order is not None else None,
                "dynamic": bool(o.dynamic),
            })
        entry["ret"] = first_out + ret
        if error is not None:
            for o, enc in zip(outs, entry["args"][first_out:]):
                if o.shape is None:
                    raise ValueError("error case %s needs Out(shape=...)" % entry["name"])
                enc["shape"] = list(o.shape)
                enc["capacity"] = _numel(o.shape)
            self.cases.append(entry)
            return entry
        fn = self._torch_op(op)
        pos, kw = _schema_call_args(fn, torch_args)
        out_tensors = [o.eager() for o in outs]
        for sa, o in zip(fn._schema.arguments[first_out:], out_tensors):
            kw[sa.name] = o
        fn(*pos, **kw)
        for o, t, enc in zip(outs, out_tensors, entry["args"][first_out:]):
            shape = list(t.shape) if o.shape is None else list(o.shape)
            enc["shape"] = shape
            enc["capacity"] = max(_numel(shape), t.numel())
        if result_arg is not None:
            entry["result_arg"] = result_arg
            result = torch_args[result_arg]
        else:
            result = out_tensors[ret]
        entry["expect"] = {
            "file": self._save(result),
            "dtype": DTYPE_NAMES[result.dtype],
            "shape": list(result.shape),
        }
        default_tol = _default_tol(result.dtype)
        entry["rtol"] = default_tol[0] if rtol is None else rtol
        entry["atol"] = default_tol[1] if atol is None else atol
        self.cases.append(entry)
        return entry


def _schema_call_args(fn, values):
    """Positional and keyword arguments of a call of `fn` with its schema arguments' values."""
    pos, kw = [], {}
    for sa, v in zip(fn._schema.arguments, values):
        if sa.kwarg_only:
            kw[sa.name] = v
        else:
            pos.append(v)
    return pos, kw


def _default_tol(dtype):
    """(rtol, atol) of a result dtype: exact for integers."""
    return {
        torch.float32: (1e-5, 1e-5),
        torch.float64: (1e-10, 1e-12),
        torch.float16: (1e-3, 1e-3),
        torch.bfloat16: (1e-2, 1e-2),
    }.get(dtype, (0.0, 0.0))


def _numel(shape):
    n = 1
    for s in shape:
        n *= int(s)
    return n


def main():
    # Case files `import gen_goldens`: make that this very module.
    sys.modules.setdefault("gen_goldens", sys.modules[__name__])
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", help="the fixture directory (default: test/fixtures/kernels, or "
                    "the FIXTURE_DIR of the --only case file)")
    ap.add_argument("--only", help="run only cases_<ONLY>.py")
    args = ap.parse_args()
    files = sorted(glob.glob(os.path.join(HERE, "cases_*.py")))
    if args.only:
        files = [f for f in files if os.path.basename(f) == "cases_%s.py" % args.only]
    modules = []
    for path in files:
        modname = os.path.splitext(os.path.basename(path))[0]
        spec = importlib.util.spec_from_file_location(modname, path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[modname] = mod
        spec.loader.exec_module(mod)
        modules.append((os.path.basename(path), mod))
    # A case file with a FIXTURE_DIR has a fixture directory of its own
    # (test/fixtures/<FIXTURE_DIR>): only --only writes it.
    fixture_dir = "kernels"
    if args.only:
        fixture_dir = getattr(modules[0][1], "FIXTURE_DIR", "kernels") if modules else "kernels"
    else:
        modules = [(f, m) for f, m in modules if not hasattr(m, "FIXTURE_DIR")]
    outdir = os.path.abspath(args.out or os.path.join(HERE, "..", "fixtures", fixture_dir))
    if os.path.isdir(outdir):
        shutil.rmtree(outdir)
    os.makedirs(outdir)
    torch.manual_seed(0)
    g = Gen(outdir)
    for filename, mod in modules:
        g.current_file = filename
        torch.manual_seed(0)
        mod.cases(g)
    index = {
        "format_version": 1,
        "generator": "test/kernels/gen_goldens.py",
        "torch": torch.__version__,
        "cases": g.cases,
    }
    with open(os.path.join(outdir, "index.json"), "w") as f:
        json.dump(index, f, indent=1, sort_keys=True)
        f.write("\n")
    print("wrote %d cases, %d tensors to %s" % (len(g.cases), g.nfiles, outdir))


if __name__ == "__main__":
    main()
