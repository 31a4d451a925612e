#!/usr/bin/env python3
"""Writes the per-operator golden cases of the CPU kernel library.

Run in the zoo virtual environment (torch + executorch, created by `make zoo`):

    build/zoo-venv/bin/python test/kernels/gen_goldens.py [--out test/fixtures/kernels]

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
g.case(...) (one compared result) or g.case_multi(...) (several outs, or an
out list, all compared) with the argument helpers below (T, TL, Out, OutList,
I, F, B, NONE, IL, FL, BL, STR, DT). g.case(..., result_arg=k) compares
argument k after the call (an argument the op mutates, e.g. a KV cache);
g.case(..., out=[Out, Out], ret=k) compares only out k. For ops the executorch
package registers without a CPU eager kernel, a case file puts a reference
into EAGER_OVERRIDES; Out(eager_shape=...) preallocates the eager out for
kernels that do not resize it.

Each family of case files has its own fixture directory, so that case files
added in parallel never renumber each other's tensors:

    build/zoo-venv/bin/python test/kernels/gen_goldens.py --only <family> \
        --out test/fixtures/kernels_<family>

(cases_<family>.py -> test/fixtures/kernels_<family>/, also the default --out
with --only); the goldens test runs every test/fixtures/kernels*/index.json.
Without --only, cases_elementwise and cases_nn go to the original directory
test/fixtures/kernels.
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
    def __init__(self, kind, value):
        self.kind = kind
        self.value = value


def I(v):  # noqa: E743 - Int EValue
    return _Val("int", int(v))


def F(v):  # Double EValue
    return _Val("double", float(v))


def B(v):  # Bool EValue
    return _Val("bool", bool(v))


NONE = _Val("none", None)


def IL(v):  # int list
    return _Val("intlist", [int(x) for x in v])


def BL(v):  # bool list
    return _Val("boollist", [bool(x) for x in v])


def FL(v):  # float list
    return _Val("doublelist", [float(x) for x in v])


def STR(s):
    return _Val("string", str(s))


# ScalarType codes of the .pte format (an EValue Int in the runtime).
SCALAR_TYPE_CODES = {
    torch.uint8: 0, torch.int8: 1, torch.int16: 2, torch.int32: 3, torch.int64: 4,
    torch.float16: 5, torch.float32: 6, torch.float64: 7, torch.bool: 11, torch.bfloat16: 15,
    torch.uint16: 27,
}


def DT(dtype):  # ScalarType argument
    v = _Val("scalartype", SCALAR_TYPE_CODES[dtype])
    v.torch_value = dtype
    return v


class TL:
    """A tensor list argument (Tensor[]); with optional=True a Tensor?[] whose items may be
    None."""

    def __init__(self, items, optional=False):
        self.items = list(items)
        self.optional = optional


class OutList:
    """A list of out tensors (Tensor(a!)[] out), e.g. split_copy's."""

    def __init__(self, outs):
        self.outs = list(outs)


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

    def _enc_tensor(self, a):
        return {
            "kind": "tensor",
            "file": self._save(a.t),
            "dtype": DTYPE_NAMES[a.t.dtype],
            "dim_order": list(a.dim_order) if a.dim_order is not None else None,
        }

    @staticmethod
    def _enc_out(out):
        return {
            "kind": "out",
            "dtype": DTYPE_NAMES[out.dtype],
            "dim_order": list(out.dim_order) if out.dim_order is not None else None,
            "dynamic": bool(out.dynamic),
        }

    def _expect(self, result):
        return {"file": self._save(result), "dtype": DTYPE_NAMES[result.dtype],
                "shape": list(result.shape)}

    @staticmethod
    def _size_out(name, enc, out, result):
        shape = list(result.shape) if out.shape is None else list(out.shape)
        if out.dynamic and _numel(shape) < result.numel():
            raise ValueError("%s: a dynamic out's shape sets its capacity; it must hold "
                             "the result (%d elements)" % (name, result.numel()))
        enc["shape"] = shape
        enc["capacity"] = max(_numel(shape), result.numel())

    def case_multi(self, label, op, *args, outs, error=None, rtol=None, atol=None,
                   values=True, reference=None):
        """Adds a case of an op with several outs (a tuple return, e.g. topk.values) or one
        out list (outs=OutList([...]), e.g. split_copy). Every out is compared.

        values=False compares only dtypes and shapes (uninitialized or random results).
        reference: for an op eager PyTorch cannot run, a function of the arguments giving
        the result tensors (only with values=False: it defines shapes, not values)."""
        name = "%s/%s" % (op, label)
        entry = self.case(label, op, *args, out=None, error="_defer", ret=0)
        entry.pop("error")
        fn = self._torch_op(op)
        n_in = len(args)
        schema_args = fn._schema.arguments
        pos, kw = _schema_call_args(fn, self._last_torch_args)
        out_list = isinstance(outs, OutList)
        outs_seq = outs.outs if out_list else list(outs)
        first = len(entry["args"])
        if out_list:
            entry["args"].append({"kind": "outlist",
                                  "value": [self._enc_out(o) for o in outs_seq]})
            out_encs = entry["args"][-1]["value"]
        else:
            for o in outs_seq:
                entry["args"].append(self._enc_out(o))
            out_encs = entry["args"][first:]
        entry["ret"] = first
        if error is not None:
            entry["error"] = error
            for enc, o in zip(out_encs, outs_seq):
                if o.shape is None:
                    raise ValueError("error case %s needs Out(shape=...)" % name)
                enc["shape"] = list(o.shape)
                enc["capacity"] = _numel(o.shape)
            return entry
        out_tensors = [o.eager() for o in outs_seq]
        out_schema = schema_args[n_in:]
        if reference is not None:
            if values:
                raise ValueError("%s: a reference result defines only shapes (values=False)"
                                 % name)
            out_tensors = [t.to(o.dtype) for t, o in zip(reference(*self._last_torch_args),
                                                           outs_seq)]
        elif out_list:
            # Eager PyTorch's list-out variants do not resize their outs: size them from the
            # functional overload's results, then call the out variant itself.
            results = self._functional_op(op)(*pos, **kw)
            out_tensors = [torch.empty(t.shape, dtype=o.dtype) for t, o in zip(results, outs_seq)]
            kw[out_schema[0].name] = out_tensors
            fn(*pos, **kw)
        else:
            for sa, t in zip(out_schema, out_tensors):
                kw[sa.name] = t
            fn(*pos, **kw)
        results = []
        for k, (enc, o, t) in enumerate(zip(out_encs, outs_seq, out_tensors)):
            self._size_out(name, enc, o, t)
            r = self._expect(t)
            if out_list:
                r["arg"], r["item"] = first, k
            else:
                r["arg"], r["item"] = first + k, -1
            results.append(r)
        entry["results"] = results
        entry["expect"] = dict(results[0])
        dt = out_tensors[0].dtype
        entry["rtol"], entry["atol"] = _default_tol(dt, rtol, atol)
        if not values:
            entry["values"] = False
        return entry

    @staticmethod
    def _functional_op(op):
        """The functional overload of an out variant (split_copy.Tensor_out -> .Tensor)."""
        ns, rest = op.split("::")
        name, _, overload = rest.partition(".")
        base = overload[:-len("_out")] if overload.endswith("_out") else ""
        packet = getattr(getattr(torch.ops, ns), name)
        return getattr(packet, base or "default")

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
        of Outs of which only out[ret] (default 0) is compared (case_multi
        compares them all).
        result_arg: compare argument `result_arg` after the call (an argument
        the op mutates, e.g. a KV cache) instead of the out.
        error: expected failure ("InvalidArgument", ...); no torch call then.
        """
        if isinstance(out, (list, tuple)) or result_arg is not None:
            outs = list(out) if isinstance(out, (list, tuple)) else [out]
            return self._case_outs(label, op, args, outs, error, rtol, atol, ret or 0,
                                   result_arg)
        name = "%s/%s" % (op, label)
        if name in self.names:
            raise ValueError("duplicate case " + name)
        self.names.add(name)
        enc_args = []
        torch_args = []
        for a in args:
            if isinstance(a, T):
                enc_args.append(self._enc_tensor(a))
                torch_args.append(a.t.clone())
            elif isinstance(a, TL):
                enc_args.append({
                    "kind": "opttensorlist" if a.optional else "tensorlist",
                    "value": [None if x is None else self._enc_tensor(x) for x in a.items],
                })
                torch_args.append([None if x is None else x.t.clone() for x in a.items])
            elif isinstance(a, _Val):
                v = a.value
                if a.kind == "double":
                    v = repr(float(v))  # strings keep inf/nan exact
                elif a.kind == "doublelist":
                    v = [repr(x) for x in v]
                enc_args.append({"kind": a.kind, "value": v})
                torch_args.append(getattr(a, "torch_value", a.value))
            else:
                raise TypeError("argument of case %s: %r" % (name, a))
        self._last_torch_args = torch_args
        entry = {"name": name, "op": op, "args": enc_args}
        if error == "_defer":  # case_multi adds the outs
            entry["error"] = error
            entry["source"] = self.current_file
            self.cases.append(entry)
            return entry
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
            entry["rtol"], entry["atol"] = _default_tol(result.dtype, rtol, atol)
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
        """case() with a list of outs or a compared mutated argument: one compared result."""
        name = "%s/%s" % (op, label)
        entry = self.case(label, op, *args, out=None, error="_defer", ret=0)
        entry.pop("error")
        torch_args = self._last_torch_args
        first = len(entry["args"])
        entry["args"].extend(self._enc_out(o) for o in outs)
        entry["ret"] = first + ret
        if error is not None:
            entry["error"] = error
            for enc, o in zip(entry["args"][first:], outs):
                if o.shape is None:
                    raise ValueError("error case %s needs Out(shape=...)" % name)
                enc["shape"] = list(o.shape)
                enc["capacity"] = _numel(o.shape)
            return entry
        fn = self._torch_op(op)
        pos, kw = _schema_call_args(fn, torch_args)
        out_tensors = [o.eager() for o in outs]
        for sa, t in zip(fn._schema.arguments[first:], out_tensors):
            kw[sa.name] = t
        fn(*pos, **kw)
        for enc, o, t in zip(entry["args"][first:], outs, out_tensors):
            self._size_out(name, enc, o, t)
        if result_arg is not None:
            entry["result_arg"] = result_arg
            result = torch_args[result_arg]
        else:
            result = out_tensors[ret]
        entry["expect"] = self._expect(result)
        entry["rtol"], entry["atol"] = _default_tol(result.dtype, rtol, atol)
        return entry


def _schema_call_args(fn, torch_args):
    """The positional and keyword-only arguments of a call of overload fn."""
    pos, kw = [], {}
    for sa, v in zip(fn._schema.arguments, torch_args):
        if sa.kwarg_only:
            kw[sa.name] = v
        else:
            pos.append(v)
    return pos, kw


def _default_tol(dt, rtol, atol):
    default_tol = {
        torch.float32: (1e-5, 1e-5),
        torch.float64: (1e-10, 1e-12),
        torch.float16: (1e-3, 1e-3),
        torch.bfloat16: (1e-2, 1e-2),
    }.get(dt, (0.0, 0.0))
    return (default_tol[0] if rtol is None else rtol, default_tol[1] if atol is None else atol)


def _numel(shape):
    n = 1
    for s in shape:
        n *= int(s)
    return n


def main():
    # Case files `import gen_goldens`: make that this very module.
    sys.modules.setdefault("gen_goldens", sys.modules[__name__])
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", help="the fixture directory (default: test/fixtures/kernels, "
                    "or test/fixtures/kernels_<ONLY> with --only)")
    ap.add_argument("--only", help="run only cases_<ONLY>.py")
    args = ap.parse_args()
    family_dir = "kernels_" + args.only if args.only else "kernels"
    outdir = os.path.abspath(args.out or os.path.join(HERE, "..", "fixtures", family_dir))
    if os.path.isdir(outdir):
        shutil.rmtree(outdir)
    os.makedirs(outdir)
    torch.manual_seed(0)
    g = Gen(outdir)
    files = sorted(glob.glob(os.path.join(HERE, "cases_*.py")))
    if args.only:
        files = [f for f in files if os.path.basename(f) == "cases_%s.py" % args.only]
    else:
        # The families of the original directory; every later one has its own (--only).
        files = [f for f in files if os.path.basename(f) in ("cases_elementwise.py",
                                                               "cases_nn.py")]
    for path in files:
        modname = os.path.splitext(os.path.basename(path))[0]
        spec = importlib.util.spec_from_file_location(modname, path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[modname] = mod
        spec.loader.exec_module(mod)
        g.current_file = os.path.basename(path)
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
