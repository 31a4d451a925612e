#!/usr/bin/env python3
"""Export the model zoo with the upstream ExecuTorch exporter and write eager-PyTorch goldens.

Run it inside the zoo venv (`make zoo` does this):

    python test/zoo/export_zoo.py --out test/fixtures/zoo            # export + upstream check
    python test/zoo/export_zoo.py --out test/fixtures/zoo --only mlp  # a subset (manifest merged)
    python test/zoo/export_zoo.py --out test/fixtures/zoo --verify-only

Phase 1 (export): for every program in PROGRAMS, seed torch, build the module(s), run eager
PyTorch on the call inputs (in call order, so stateful programs see their state evolve), export
with torch.export -> to_edge (or to_edge_transform_and_lower with a partitioner) ->
to_executorch, and write `<name>.pte` (+ `.ptd`), the inputs/outputs as .npy and the manifest.

Phase 2 (verify): load each .pte in upstream's Python runtime, feed the .npy inputs, and record
in the manifest whether the outputs match the goldens within the program's tolerance.
"""

from __future__ import annotations

import argparse
import copy
import dataclasses
import json
import logging
import platform
import shutil
import sys
import tempfile
import traceback
import zlib
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional

import numpy as np
import torch
from torch.export import Dim
from torch.utils import _pytree as pytree

sys.path.insert(0, str(Path(__file__).resolve().parent))
import models as M  # noqa: E402

MANIFEST_FORMAT = 1


# --------------------------------------------------------------------------------------------
# Program specs


@dataclasses.dataclass
class MethodSpec:
    module: torch.nn.Module
    example_args: tuple
    calls: List[tuple]  # inputs for each golden call, run in order on one eager instance
    dynamic_shapes: Any = None
    stateful: bool = False


@dataclasses.dataclass
class Build:
    methods: Dict[str, MethodSpec]
    atol: float = 1e-5
    rtol: float = 1e-5
    constant_methods: Optional[Dict[str, Any]] = None
    backend_config: Optional[Dict[str, Any]] = None  # ExecutorchBackendConfig kwargs
    memory_planning: Optional[Dict[str, Any]] = None  # MemoryPlanningPass kwargs
    partitioner: Optional[str] = None  # "xnnpack"
    init_buffers: Optional[List[str]] = None  # mutable buffers whose initial value is serialized
    # "static" / "dynamic": PT2E-quantize every method with XNNPACKQuantizer (per-channel weights;
    # static activations, or dynamic per-row ones) before the goldens and the export, so the goldens
    # are the quantized reference model's outputs.
    quantize: Optional[str] = None


@dataclasses.dataclass
class ProgramSpec:
    name: str
    kind: str  # "model", "feature" or "delegated"
    description: str
    features: List[str]
    build: Callable[[], Build]
    seed_name: Optional[str] = None  # share a seed (and so weights/inputs) with another program


def _f(*shape):
    return torch.randn(*shape)


def build_mlp():
    m = M.MLP().eval()
    x = _f(4, 16)
    return Build({"forward": MethodSpec(m, (x,), [(x,)])})


def build_cnn():
    m = M.SmallCNN().eval()
    x = _f(1, 3, 16, 16)
    return Build({"forward": MethodSpec(m, (x,), [(x,)])})


def build_mobilenet_v2():
    m = M.MobileNetV2Tiny()
    M.randomize_batchnorm(m)
    m.eval()
    x = _f(1, 3, 32, 32)
    return Build({"forward": MethodSpec(m, (x,), [(x,)])}, atol=1e-4, rtol=1e-4)


def build_resnet18():
    m = M.ResNet18Tiny()
    M.randomize_batchnorm(m)
    m.eval()
    x = _f(1, 3, 32, 32)
    return Build({"forward": MethodSpec(m, (x,), [(x,)])}, atol=1e-4, rtol=1e-4)


def build_conv_bn_act():
    m = M.ConvBnActTiny()
    M.randomize_batchnorm(m)
    m.eval()
    x = _f(1, 3, 32, 32) * 3.0  # wide enough to reach both ends of hardswish's clamp
    return Build({"forward": MethodSpec(m, (x,), [(x,)])}, atol=1e-4, rtol=1e-4)


def build_vit_tiny():
    m = M.ViTTiny().eval()
    x = _f(1, 3, 32, 32)
    return Build({"forward": MethodSpec(m, (x,), [(x,)])}, atol=1e-4, rtol=1e-4)


def build_bert_tiny():
    m = M.BertTinyWrapper().eval()
    ids = torch.randint(0, 128, (1, 8), dtype=torch.int64)
    mask = torch.tensor([[1, 1, 1, 1, 1, 1, 0, 0]], dtype=torch.int64)
    return Build({"forward": MethodSpec(m, (ids, mask), [(ids, mask)])}, atol=1e-4, rtol=1e-4)


def build_llama_tiny():
    m = M.LlamaTiny().eval()
    t1 = torch.randint(0, 64, (1, 3), dtype=torch.int64)
    t2 = torch.randint(0, 64, (1, 3), dtype=torch.int64)
    p1 = torch.arange(0, 3, dtype=torch.int64)
    p2 = torch.arange(3, 6, dtype=torch.int64)
    return Build({"forward": MethodSpec(m, (t1, p1), [(t1, p1), (t2, p2)], stateful=True)}, atol=1e-4, rtol=1e-4,
                 init_buffers=["k_cache", "v_cache"])


def build_llama_custom_ops():
    import executorch.extension.llm.custom_ops.custom_ops  # noqa: F401 - registers llama::

    m = M.LlamaTinyCustomOps().eval()
    t1 = torch.randint(0, 64, (1, 3), dtype=torch.int64)
    t2 = torch.randint(0, 64, (1, 3), dtype=torch.int64)
    p1 = torch.arange(0, 3, dtype=torch.int64)
    p2 = torch.arange(3, 6, dtype=torch.int64)
    # Only cache rows written by this or an earlier call are read (causal from start_pos), so
    # the caches' initial contents do not matter.
    return Build({"forward": MethodSpec(m, (t1, p1), [(t1, p1), (t2, p2)], stateful=True)}, atol=1e-4,
                 rtol=1e-4)


def build_hf_llama_tiny():
    m = M.HFLlamaTinyWrapper().eval()
    ids = torch.randint(0, 64, (1, 6), dtype=torch.int64)
    return Build({"forward": MethodSpec(m, (ids,), [(ids,)])}, atol=1e-4, rtol=1e-4)


def build_gru():
    m = M.GRUNet().eval()
    x, h0 = _f(1, 5, 8), _f(1, 1, 16)
    return Build({"forward": MethodSpec(m, (x, h0), [(x, h0)])}, atol=1e-5, rtol=1e-4)


def build_identity():
    x, y = _f(2, 3), _f(4)
    return Build({"forward": MethodSpec(M.Identity(), (x, y), [(x, y)])})


def build_dtype_io():
    x = _f(2, 3) * 3
    i = torch.randint(-5, 5, (2, 3), dtype=torch.int64)
    b = torch.rand(2, 3) > 0.5
    h = torch.randint(-100, 100, (2, 3), dtype=torch.int32)
    return Build({"forward": MethodSpec(M.DtypeIO(), (x, i, b, h), [(x, i, b, h)])})


def build_lstm():
    m = M.LSTMNet().eval()
    x = _f(1, 5, 8)
    return Build({"forward": MethodSpec(m, (x,), [(x,)])}, atol=1e-5, rtol=1e-4)


def build_multi_method():
    x, y = _f(2, 4), _f(2, 4)
    return Build({
        "forward": MethodSpec(M.AddScaled(), (x, y), [(x, y)]),
        "scale": MethodSpec(M.Scale(), (x,), [(x,)]),
        "project": MethodSpec(M.Project().eval(), (y,), [(y,)]),
    })


def build_prim_inputs():
    x, y = _f(2, 3), _f(2, 3)
    args = (x, y, 3, 0.5, True)
    return Build({"forward": MethodSpec(M.PrimInputs(), args, [args])})


def build_stateful():
    x1, x2 = _f(2, 3), _f(2, 3)
    return Build({"forward": MethodSpec(M.Stateful(), (x1,), [(x1,), (x2,), (x1,)], stateful=True)},
                 init_buffers=["acc", "steps"])


def build_dynamic_shape():
    n = Dim("n", min=1, max=8)
    x_ex, x_small, x_big = _f(4, 4), _f(3, 4), _f(8, 4)
    return Build({"forward": MethodSpec(M.DynamicLinear().eval(), (x_ex,), [(x_small,), (x_big,)],
                                        dynamic_shapes={"x": {0: n}})})


def build_constant_methods():
    x = _f(2, 2)
    consts = {
        "get_int": 7,
        "get_float": 0.25,
        "get_bool": True,
        "get_tensor": torch.arange(6, dtype=torch.float32).reshape(2, 3),
    }
    return Build({"forward": MethodSpec(M.AddOne(), (x,), [(x,)])}, constant_methods=consts)


def build_external_constants():
    x = _f(3, 8)
    return Build({"forward": MethodSpec(M.LinearConst().eval(), (x,), [(x,)])},
                 backend_config={"external_constants": lambda node: "external_constants"})


def build_add_f16():
    x, y = _f(2, 3).half(), _f(2, 3).half()
    return Build({"forward": MethodSpec(M.AddHalf(), (x, y), [(x, y)])}, atol=1e-3, rtol=1e-3)


def build_unplanned_io():
    x, y = _f(2, 4), _f(2, 4)
    return Build({"forward": MethodSpec(M.MulAdd(), (x, y), [(x, y)])},
                 memory_planning={"alloc_graph_input": False, "alloc_graph_output": False})


def build_unplanned_io_dynamic():
    n = Dim("n", min=1, max=3)
    x_ex, x1, x3 = _f(2, 4), _f(1, 4), _f(3, 4)
    return Build({"forward": MethodSpec(M.CatOnes(), (x_ex,), [(x1,), (x3,)], dynamic_shapes={"x": {0: n}})},
                 memory_planning={"alloc_graph_input": False, "alloc_graph_output": False})


def build_cond():
    m = M.CondModule().eval()
    x = _f(2, 4)
    calls, seen = [], set()
    with torch.no_grad():
        for scale in (1.0, -1.0, 3.0, -3.0, 10.0, -10.0):
            cand = x * scale
            branch = bool(m.lin(cand).sum() > 0)
            if branch not in seen:
                seen.add(branch)
                calls.append((cand,))
    assert seen == {True, False}, "could not find inputs for both cond branches"
    return Build({"forward": MethodSpec(m, (x,), calls)}, atol=1e-5, rtol=1e-5)


def build_cnn_pt2e_q8():
    """cnn quantized with PT2E (XNNPACKQuantizer, int8, per-channel weights) and NOT lowered:
    the program keeps quantized_decomposed quantize/dequantize ops around float conv/linear.
    The module exported and run for the goldens is the converted PT2E module."""
    import executorch.kernels.quantized  # noqa: F401 - the .out variants to_executorch needs
    from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import (
        XNNPACKQuantizer, get_symmetric_quantization_config)
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

    m = M.SmallCNN().eval()
    x = _f(1, 3, 16, 16)
    quantizer = XNNPACKQuantizer().set_global(get_symmetric_quantization_config(is_per_channel=True))
    prepared = prepare_pt2e(torch.export.export(m, (x,)).module(), quantizer)
    with torch.no_grad():
        for _ in range(8):
            prepared(_f(1, 3, 16, 16))
        prepared(x)
    converted = convert_pt2e(prepared)
    x2 = _f(1, 3, 16, 16)
    return Build({"forward": MethodSpec(converted, (x,), [(x,), (x2,)])}, atol=1e-4, rtol=1e-4)


def _xnn(build_fn, quantize=None, atol=None):
    def b():
        bld = build_fn()
        bld.partitioner = "xnnpack"
        bld.quantize = quantize
        if atol is not None:
            bld.atol = bld.rtol = atol
        return bld
    return b


def _xnn_half(build_fn, atol):
    """build_fn's model in half precision (model.half(), float16 inputs) lowered with
    XnnpackPartitioner: fp16 values, constants and delegate arguments. The goldens are eager
    PyTorch's float16 outputs, so the tolerance covers two fp16 implementations."""
    def b():
        bld = build_fn()
        bld.partitioner = "xnnpack"
        for ms in bld.methods.values():
            ms.module = ms.module.half()
            ms.example_args = tuple(a.half() for a in ms.example_args)
            ms.calls = [tuple(a.half() for a in c) for c in ms.calls]
        bld.atol = bld.rtol = atol
        return bld
    return b


def quantize_methods(bld: Build) -> None:
    """Replaces each method's module by its PT2E-quantized reference model (bld.quantize)."""
    from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import (
        XNNPACKQuantizer, get_symmetric_quantization_config)
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

    quantizer = XNNPACKQuantizer().set_global(get_symmetric_quantization_config(
        is_per_channel=True, is_dynamic=bld.quantize == "dynamic"))
    for ms in bld.methods.values():
        with torch.no_grad():
            m = torch.export.export(ms.module, ms.example_args).module()
            m = prepare_pt2e(m, quantizer)
            for args in ms.calls:  # calibration on the recorded inputs
                m(*copy.deepcopy(args))
            ms.module = convert_pt2e(m)


PROGRAMS: List[ProgramSpec] = [
    ProgramSpec("mlp", "model", "Linear-ReLU-Linear-ReLU-Linear on [4, 16]", ["linear"], build_mlp),
    ProgramSpec("cnn", "model", "conv-relu-maxpool x2, flatten, linear on [1, 3, 16, 16]",
                ["conv2d", "max_pool2d"], build_cnn),
    ProgramSpec("mobilenet_v2", "model",
                "MobileNetV2-shaped: depthwise convs, inverted residuals, ReLU6, batch norm, adaptive avg pool, dropout",
                ["conv2d", "depthwise", "batch_norm", "adaptive_avg_pool"], build_mobilenet_v2),
    ProgramSpec("conv_bn_act", "model",
                "conv + batch norm + hardswish / SiLU / hardsigmoid blocks, squeeze-excitation gate, "
                "GEMM + hardswish head, on [1, 3, 32, 32]",
                ["conv2d", "depthwise", "batch_norm", "activations"], build_conv_bn_act),
    ProgramSpec("resnet18", "model", "ResNet-18-shaped, widths 8/16/32/64, on [1, 3, 32, 32]",
                ["conv2d", "batch_norm", "max_pool2d", "residual"], build_resnet18),
    ProgramSpec("vit_tiny", "model",
                "ViT-tiny: 8x8 patchify conv, cls token, 2 pre-LN blocks, F.scaled_dot_product_attention, GELU",
                ["conv2d", "layer_norm", "sdpa", "gelu"], build_vit_tiny),
    ProgramSpec("bert_tiny", "model",
                "transformers BertModel, tiny config (2 layers, hidden 32), eager attention, with attention mask",
                ["embedding", "layer_norm", "attention_mask", "int64_inputs"], build_bert_tiny),
    ProgramSpec("llama_tiny", "model",
                "Llama-style decoder: RMSNorm, RoPE, GQA, SiLU-gated MLP, KV cache in mutable buffers indexed by input_pos;"
                " goldens for two consecutive 3-token calls",
                ["kv_cache", "mutable_buffers", "index_put", "sdpa", "stateful"], build_llama_tiny),
    ProgramSpec("llama_custom_ops", "model",
                "llama_tiny with the attention upstream's LLM export emits: llama::update_cache into"
                " [1, max_seq, kv_heads, head_dim] cache buffers at input_pos[0], llama::custom_sdpa (causal, GQA);"
                " goldens for two consecutive 3-token calls",
                ["kv_cache", "mutable_buffers", "llm_custom_ops", "stateful", "item"], build_llama_custom_ops),
    ProgramSpec("lstm", "model", "nn.LSTM(8, 16, num_layers=2, batch_first=True) on [1, 5, 8]",
                ["lstm"], build_lstm),
    ProgramSpec("gru", "model", "nn.GRU(8, 16, batch_first=True) on [1, 5, 8] with an explicit h0 input",
                ["gru"], build_gru),
    ProgramSpec("hf_llama_tiny", "model",
                "transformers LlamaForCausalLM, tiny config (2 layers, hidden 32, GQA 4/2), SDPA, no KV cache,"
                " 6 tokens -> logits",
                ["embedding", "rope", "sdpa", "hf_masks"], build_hf_llama_tiny),
    ProgramSpec("multi_method", "feature", "three methods in one program: forward, scale, project",
                ["multiple_methods"], build_multi_method),
    ProgramSpec("prim_inputs", "feature",
                "forward(x, y, n: int, alpha: float, flag: bool); prim inputs are baked in at export",
                ["int_input", "double_input", "bool_input"], build_prim_inputs),
    ProgramSpec("stateful", "feature",
                "float accumulator + int32 step counter in mutable buffers; goldens for three consecutive calls",
                ["mutable_buffers", "stateful", "int32"], build_stateful),
    ProgramSpec("dynamic_shape", "feature",
                "input [n, 4] with n in [1, 8] (DYNAMIC_BOUND); goldens at n=3 and n=8",
                ["dynamic_shape"], build_dynamic_shape),
    ProgramSpec("constant_methods", "feature",
                "forward(x) = x + 1 plus constant methods get_int/get_float/get_bool/get_tensor (no instructions)",
                ["constant_methods"], build_constant_methods),
    ProgramSpec("external_constants", "feature", "Linear + constant buffer with all constants in external_constants.ptd",
                ["external_data"], build_external_constants),
    ProgramSpec("add_f16", "feature", "float16 add", ["float16"], build_add_f16),
    ProgramSpec("unplanned_io", "feature",
                "x * y + x with alloc_graph_input=False, alloc_graph_output=False (caller provides I/O buffers)",
                ["unplanned_io"], build_unplanned_io),
    ProgramSpec("unplanned_io_dynamic", "feature",
                "cat((x, ones(1, 4))) * 2 with x [n, 4], n in [1, 3], and unplanned I/O; goldens at n=1 and n=3",
                ["unplanned_io", "dynamic_shape"], build_unplanned_io_dynamic),
    ProgramSpec("identity", "feature", "returns its two inputs unchanged: no instructions, outputs alias inputs",
                ["no_instructions", "io_alias"], build_identity),
    ProgramSpec("dtype_io", "feature", "float32/int64/bool/int32 inputs; bool/int64/float32/int32 outputs, casts",
                ["dtypes", "casts"], build_dtype_io),
    ProgramSpec("cond", "feature", "torch.cond on sign of sum(linear(x)); calls exercise both branches",
                ["control_flow"], build_cond),
    ProgramSpec("cnn_pt2e_q8", "model",
                "cnn PT2E-quantized (XNNPACKQuantizer: int8 activations, per-channel int8 weights), not"
                " delegated: quantize_per_tensor / dequantize_per_tensor / dequantize_per_channel stay in the graph",
                ["pt2e_quantized", "quantized_ops", "conv2d", "linear"], build_cnn_pt2e_q8),
    ProgramSpec("mlp_xnnpack", "delegated", "mlp lowered with XnnpackPartitioner (same weights and goldens as mlp)",
                ["delegate"], _xnn(build_mlp), seed_name="mlp"),
    ProgramSpec("cnn_xnnpack", "delegated", "cnn lowered with XnnpackPartitioner (same weights and goldens as cnn)",
                ["delegate"], _xnn(build_cnn), seed_name="cnn"),
    ProgramSpec("mobilenet_v2_xnnpack", "delegated",
                "mobilenet_v2 lowered with XnnpackPartitioner (same weights and goldens as mobilenet_v2)",
                ["delegate", "depthwise"], _xnn(build_mobilenet_v2), seed_name="mobilenet_v2"),
    ProgramSpec("cnn_xnnpack_q8", "delegated",
                "cnn statically quantized (XNNPACKQuantizer: qint8 activations, per-channel qcint8 weights), "
                "lowered with XnnpackPartitioner; goldens from the quantized reference model",
                ["delegate", "quantized"], _xnn(build_cnn, "static", atol=2e-2), seed_name="cnn"),
    ProgramSpec("mlp_xnnpack_dq8", "delegated",
                "mlp with dynamically quantized linears (qdint8 activations per row, per-channel qcint8 "
                "weights), lowered with XnnpackPartitioner; goldens from the quantized reference model "
                "(whose per-row parameters differ from XNNPACK's by about 1e-3 at the outputs)",
                ["delegate", "quantized"], _xnn(build_mlp, "dynamic", atol=5e-3), seed_name="mlp"),
    ProgramSpec("mlp_xnnpack_f16", "delegated",
                "mlp in half precision (model.half(), float16 input) lowered with XnnpackPartitioner: fp16 "
                "values, constants and arguments; goldens from eager float16",
                ["delegate", "float16"], _xnn_half(build_mlp, 1e-2), seed_name="mlp"),
    ProgramSpec("cnn_xnnpack_f16", "delegated",
                "cnn in half precision lowered with XnnpackPartitioner (fp16 activations, fp32 conv weights, "
                "fp16 linear weights); goldens from eager float16",
                ["delegate", "float16"], _xnn_half(build_cnn, 1e-2), seed_name="cnn"),
    ProgramSpec("vit_tiny_xnnpack", "delegated",
                "vit_tiny lowered with XnnpackPartitioner: several delegates with portable ops between",
                ["delegate", "gelu", "sdpa"], _xnn(build_vit_tiny), seed_name="vit_tiny"),
    # The other model families lowered the same way (fp32): whatever XnnpackPartitioner takes
    # from each runs in XnnpackBackend, the rest on the portable kernels.
    ProgramSpec("conv_bn_act_xnnpack", "delegated",
                "conv_bn_act lowered with XnnpackPartitioner (batch norms fused into the convolutions "
                "by the exporter, hardswish / SiLU / hardsigmoid)",
                ["delegate", "activations"], _xnn(build_conv_bn_act), seed_name="conv_bn_act"),
    ProgramSpec("resnet18_xnnpack", "delegated",
                "resnet18 lowered with XnnpackPartitioner (same weights and goldens as resnet18)",
                ["delegate", "residual"], _xnn(build_resnet18), seed_name="resnet18"),
    ProgramSpec("bert_tiny_xnnpack", "delegated",
                "bert_tiny lowered with XnnpackPartitioner: linears, layer norm and attention math in "
                "delegates, embeddings and masks on the portable kernels",
                ["delegate", "attention_mask"], _xnn(build_bert_tiny), seed_name="bert_tiny"),
    ProgramSpec("llama_tiny_xnnpack", "delegated",
                "llama_tiny lowered with XnnpackPartitioner; its KV cache stays in mutable buffers "
                "outside the delegates; goldens for two consecutive 3-token calls",
                ["delegate", "kv_cache", "stateful"], _xnn(build_llama_tiny), seed_name="llama_tiny"),
    ProgramSpec("hf_llama_tiny_xnnpack", "delegated",
                "hf_llama_tiny lowered with XnnpackPartitioner",
                ["delegate", "rope", "sdpa"], _xnn(build_hf_llama_tiny), seed_name="hf_llama_tiny"),
    ProgramSpec("lstm_xnnpack", "delegated",
                "lstm lowered with XnnpackPartitioner (the gates' linears delegated)",
                ["delegate", "lstm"], _xnn(build_lstm), seed_name="lstm"),
    ProgramSpec("gru_xnnpack", "delegated",
                "gru lowered with XnnpackPartitioner (the gates' linears delegated)",
                ["delegate", "gru"], _xnn(build_gru), seed_name="gru"),
    # Static PT2E int8 twins of the MLP and the other CNN families.
    ProgramSpec("mlp_xnnpack_q8", "delegated",
                "mlp statically quantized (XNNPACKQuantizer: qint8 activations, per-channel qcint8 "
                "weights), lowered with XnnpackPartitioner; goldens from the quantized reference model",
                ["delegate", "quantized"], _xnn(build_mlp, "static", atol=2e-2), seed_name="mlp"),
    ProgramSpec("mobilenet_v2_xnnpack_q8", "delegated",
                "mobilenet_v2 statically quantized (XNNPACKQuantizer, per-channel), lowered with "
                "XnnpackPartitioner; goldens from the quantized reference model",
                ["delegate", "quantized", "depthwise"], _xnn(build_mobilenet_v2, "static", atol=5e-2),
                seed_name="mobilenet_v2"),
    ProgramSpec("resnet18_xnnpack_q8", "delegated",
                "resnet18 statically quantized (XNNPACKQuantizer, per-channel), lowered with "
                "XnnpackPartitioner; goldens from the quantized reference model",
                ["delegate", "quantized", "residual"], _xnn(build_resnet18, "static", atol=5e-2),
                seed_name="resnet18"),
]


# --------------------------------------------------------------------------------------------
# Helpers


def seed_everything(name: str) -> int:
    seed = zlib.crc32(name.encode()) & 0x7FFFFFFF
    torch.manual_seed(seed)
    np.random.seed(seed % (2**32))
    import random

    random.seed(seed)
    return seed


def op_key(op) -> str:
    return f"{op.name}.{op.overload}" if op.overload else op.name


def describe_value(v, path_base: str, out_dir: Path, write: bool) -> Dict[str, Any]:
    """Describe one flattened input/output leaf; tensors are written as .npy files."""
    if isinstance(v, torch.Tensor):
        arr = v.detach().contiguous().numpy()
        rel = f"{path_base}.npy"
        if write:
            (out_dir / rel).parent.mkdir(parents=True, exist_ok=True)
            np.save(out_dir / rel, arr, allow_pickle=False)
        return {"kind": "tensor", "dtype": str(arr.dtype), "shape": list(arr.shape), "file": rel}
    if isinstance(v, bool):
        return {"kind": "bool", "value": v}
    if isinstance(v, int):
        return {"kind": "int", "value": v}
    if isinstance(v, float):
        return {"kind": "double", "value": v}
    if v is None:
        return {"kind": "none"}
    raise TypeError(f"unsupported value type {type(v)}")


def inspect_pte(pte_bytes: bytes) -> Dict[str, Any]:
    """Read operator names, backend ids and instruction counts from the serialized program."""
    from executorch.exir._serialize._program import deserialize_pte_binary

    pte = deserialize_pte_binary(pte_bytes)
    prog = getattr(pte, "program", pte)
    plans = {}
    for plan in prog.execution_plan:
        kinds: Dict[str, int] = {}
        n = 0
        for chain in plan.chains:
            for ins in chain.instructions:
                k = type(ins.instr_args).__name__
                kinds[k] = kinds.get(k, 0) + 1
                n += 1
        external, initialized = [], []
        for vi, ev in enumerate(plan.values):
            t = ev.val
            if not hasattr(t, "data_buffer_idx"):
                continue
            info = getattr(t, "extra_tensor_info", None)
            if info is not None and int(info.location) == 1:  # TensorDataLocation.EXTERNAL
                external.append(info.fully_qualified_name)
            if t.allocation_info is not None and t.data_buffer_idx > 0:
                # memory-planned tensor with an initial value in the mutable data segment
                initialized.append(vi)
        plans[plan.name] = {
            "operators": [op_key(op) for op in plan.operators],
            "backend_ids": [d.id for d in plan.delegates],
            "num_instructions": n,
            "instruction_kinds": dict(sorted(kinds.items())),
            "num_inputs": len(plan.inputs),
            "num_outputs": len(plan.outputs),
            "non_const_buffer_sizes": list(plan.non_const_buffer_sizes),
            "external_tensors": sorted(n for n in external if n),
            "initialized_mutable_values": initialized,
        }
    named = getattr(pte, "named_data", None)
    named_keys = sorted(getattr(named, "pte_data", {}) or {}) if named is not None else []
    return {
        "program_version": prog.version,
        "mutable_data_buffers": len(getattr(pte, "mutable_data", None) or []),
        "named_data_keys": named_keys,
        "plans": plans,
    }


# --------------------------------------------------------------------------------------------
# Export


def export_program(spec: ProgramSpec, out_dir: Path) -> Dict[str, Any]:
    from executorch.exir import EdgeCompileConfig, ExecutorchBackendConfig, to_edge, to_edge_transform_and_lower
    from executorch.exir.passes import MemoryPlanningPass

    seed = seed_everything(spec.seed_name or spec.name)
    bld = spec.build()
    if bld.quantize:
        quantize_methods(bld)

    # ---- eager goldens (run on a copy, in call order, so state evolves as in the runtime)
    methods_meta: Dict[str, Any] = {}
    data_dir = f"data/{spec.name}"
    for mname, ms in bld.methods.items():
        eager = copy.deepcopy(ms.module)
        calls = []
        with torch.no_grad():
            for ci, args in enumerate(ms.calls):
                in_leaves, _ = pytree.tree_flatten(args)
                ins = [describe_value(v, f"{data_dir}/{mname}.call{ci}.in{i}", out_dir, True)
                       for i, v in enumerate(in_leaves)]
                out = eager(*copy.deepcopy(args))
                out_leaves, _ = pytree.tree_flatten(out)
                outs = [describe_value(v, f"{data_dir}/{mname}.call{ci}.out{i}", out_dir, True)
                        for i, v in enumerate(out_leaves)]
                calls.append({"inputs": ins, "outputs": outs})
        methods_meta[mname] = {"name": mname, "kind": "compute", "stateful": ms.stateful,
                               "dynamic_shapes": ms.dynamic_shapes is not None, "calls": calls}
    for cname, value in (bld.constant_methods or {}).items():
        out_leaves, _ = pytree.tree_flatten(value)
        outs = [describe_value(v, f"{data_dir}/{cname}.call0.out{i}", out_dir, True)
                for i, v in enumerate(out_leaves)]
        methods_meta[cname] = {"name": cname, "kind": "constant", "stateful": False, "dynamic_shapes": False,
                               "calls": [{"inputs": [], "outputs": outs}]}

    # ---- export
    eps = {}
    with torch.no_grad():
        for mname, ms in bld.methods.items():
            eps[mname] = torch.export.export(copy.deepcopy(ms.module), ms.example_args,
                                             dynamic_shapes=ms.dynamic_shapes)
    if bld.init_buffers:
        # Serialize the initial values of these mutable buffers (mutable_data_segments); without this the
        # exporter keeps only their shape and dtype and the initial contents are unspecified.
        from executorch.exir.passes.init_mutable_pass import InitializedMutableBufferPass

        cfg_passes = [InitializedMutableBufferPass(bld.init_buffers)]
    else:
        cfg_passes = []
    cfg_kwargs = dict(bld.backend_config or {})
    if cfg_passes:
        cfg_kwargs["passes"] = cfg_passes
    if bld.memory_planning:
        cfg_kwargs["memory_planning_pass"] = MemoryPlanningPass(**bld.memory_planning)
    if bld.partitioner == "xnnpack":
        from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner

        edge = to_edge_transform_and_lower(eps, partitioner=[XnnpackPartitioner()],
                                           constant_methods=bld.constant_methods)
    else:
        edge = to_edge(eps, constant_methods=bld.constant_methods, compile_config=EdgeCompileConfig())
    et = edge.to_executorch(ExecutorchBackendConfig(**cfg_kwargs))

    pte_bytes = et.buffer
    pte_name = f"{spec.name}.pte"
    (out_dir / pte_name).write_bytes(pte_bytes)
    data_files = []
    if getattr(et, "_tensor_data", None):  # external data (.ptd) produced by the serializer
        with tempfile.TemporaryDirectory() as td:
            et.write_tensor_data_to_file(td)
            for f in sorted(Path(td).iterdir()):
                shutil.copyfile(f, out_dir / f.name)
                data_files.append(f.name)

    info = inspect_pte(pte_bytes)
    methods = []
    for mname, meta in methods_meta.items():
        plan = info["plans"].get(mname)
        if plan is None:
            raise RuntimeError(f"method {mname} missing from exported program")
        meta.update(plan)
        methods.append(meta)
    ops = sorted({o for m in methods for o in m["operators"]})
    backends = sorted({b for m in methods for b in m["backend_ids"]})
    return {
        "name": spec.name,
        "kind": spec.kind,
        "description": spec.description,
        "features": spec.features,
        "file": pte_name,
        "data_files": data_files,
        "size_bytes": len(pte_bytes),
        "seed": seed,
        "delegated": bool(backends),
        "backend_ids": backends,
        "operators": ops,
        "program_version": info["program_version"],
        "mutable_data_buffers": info["mutable_data_buffers"],
        "named_data_keys_in_pte": info["named_data_keys"],
        "tolerance": {"atol": bld.atol, "rtol": bld.rtol},
        "export_config": {
            "partitioner": bld.partitioner,
            "memory_planning": bld.memory_planning or {},
            "backend_config": {k: (v if isinstance(v, (bool, int, float, str)) else "callable")
                               for k, v in (bld.backend_config or {}).items()},
            "constant_methods": sorted((bld.constant_methods or {}).keys()),
            "initialized_mutable_buffers": bld.init_buffers or [],
        },
        "methods": methods,
    }


# --------------------------------------------------------------------------------------------
# Upstream runtime check


def _load_value(d: Dict[str, Any], out_dir: Path):
    k = d["kind"]
    if k == "tensor":
        return torch.from_numpy(np.load(out_dir / d["file"], allow_pickle=False))
    if k in ("int", "double", "bool"):
        return d["value"]
    if k == "none":
        return None
    raise ValueError(k)


def _compare(actual, expected_desc, out_dir: Path, atol: float, rtol: float):
    """Returns (ok, max_abs_err or None, note)."""
    exp = _load_value(expected_desc, out_dir)
    if expected_desc["kind"] == "tensor":
        if not isinstance(actual, torch.Tensor):
            return False, None, f"expected tensor, got {type(actual).__name__}"
        a = actual.detach().numpy()
        e = exp.numpy()
        if a.dtype != e.dtype:
            return False, None, f"dtype {a.dtype} != {e.dtype}"
        if list(a.shape) != list(e.shape):
            return False, None, f"shape {list(a.shape)} != {list(e.shape)}"
        if a.size == 0:
            return True, 0.0, ""
        if a.dtype == np.bool_ or np.issubdtype(a.dtype, np.integer):
            err = float(np.max(np.abs(a.astype(np.int64) - e.astype(np.int64))))
            return err == 0, err, ""
        a64, e64 = a.astype(np.float64), e.astype(np.float64)
        err = float(np.max(np.abs(a64 - e64)))
        ok = bool(np.allclose(a64, e64, atol=atol, rtol=rtol, equal_nan=True))
        return ok, err, ""
    ok = actual == exp and type(actual) is type(exp)
    return ok, 0.0 if ok else None, "" if ok else f"{actual!r} != {exp!r}"


def verify_program(prog_meta: Dict[str, Any], out_dir: Path) -> None:
    from executorch.runtime import Runtime

    rt = Runtime.get()
    tol = prog_meta["tolerance"]
    data_path = str(out_dir / prog_meta["data_files"][0]) if prog_meta["data_files"] else None
    try:
        program = rt.load_program(str(out_dir / prog_meta["file"]), data_path=data_path)
    except Exception as e:  # noqa: BLE001
        msg = f"load_program: {type(e).__name__}: {e}"
        for m in prog_meta["methods"]:
            m["upstream_runtime"] = {"status": "error", "error": msg}
        return
    for m in prog_meta["methods"]:
        res: Dict[str, Any] = {"status": "match", "max_abs_error": 0.0, "calls": []}
        try:
            method = program.load_method(m["name"])
            if method is None:
                raise RuntimeError("load_method returned None")
            for call in m["calls"]:
                inputs = [_load_value(d, out_dir) for d in call["inputs"]]
                outs = list(method.execute(inputs))
                if len(outs) != len(call["outputs"]):
                    raise RuntimeError(f"{len(outs)} outputs, expected {len(call['outputs'])}")
                call_ok, call_err, notes = True, 0.0, []
                for a, d in zip(outs, call["outputs"]):
                    ok, err, note = _compare(a, d, out_dir, tol["atol"], tol["rtol"])
                    call_ok &= ok
                    if err is not None:
                        call_err = max(call_err, err)
                    if note:
                        notes.append(note)
                entry = {"match": call_ok, "max_abs_error": call_err}
                if notes:
                    entry["notes"] = notes
                res["calls"].append(entry)
                res["max_abs_error"] = max(res["max_abs_error"], call_err)
                if not call_ok:
                    res["status"] = "mismatch"
        except Exception as e:  # noqa: BLE001
            res = {"status": "error", "error": f"{type(e).__name__}: {e}", "calls": res["calls"]}
        m["upstream_runtime"] = res


# --------------------------------------------------------------------------------------------
# Manifest


def versions() -> Dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    out = {"python": platform.python_version()}
    for pkg in ("torch", "executorch", "transformers", "numpy", "flatbuffers", "torchao"):
        try:
            out[pkg] = version(pkg)
        except PackageNotFoundError:
            out[pkg] = None
    return out


def finalize(manifest: Dict[str, Any]) -> Dict[str, Any]:
    progs = sorted(manifest["programs"], key=lambda p: [s.name for s in PROGRAMS].index(p["name"])
                   if p["name"] in [s.name for s in PROGRAMS] else 1 << 30)
    manifest["programs"] = progs
    manifest["operator_union"] = sorted({o for p in progs if not p["delegated"] for o in p["operators"]})
    manifest["operator_union_delegated"] = sorted({o for p in progs if p["delegated"] for o in p["operators"]})
    manifest["backend_ids"] = sorted({b for p in progs for b in p["backend_ids"]})
    summary = {}
    for p in progs:
        st = [m.get("upstream_runtime", {}).get("status", "unchecked") for m in p["methods"]]
        summary[p["name"]] = "match" if all(s == "match" for s in st) else ",".join(sorted(set(st)))
    manifest["upstream_runtime_summary"] = summary
    return manifest


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=str(Path(__file__).resolve().parents[1] / "fixtures" / "zoo"))
    ap.add_argument("--only", nargs="*", help="export only these programs (merged into the manifest)")
    ap.add_argument("--verify-only", action="store_true", help="re-run the upstream-runtime check only")
    ap.add_argument("--no-verify", action="store_true")
    ap.add_argument("--list", action="store_true")
    args = ap.parse_args()

    if args.list:
        for s in PROGRAMS:
            print(f"{s.name:22s} {s.kind:9s} {s.description}")
        return 0

    logging.getLogger().setLevel(logging.ERROR)
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(1)
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    man_path = out_dir / "manifest.json"
    old = json.loads(man_path.read_text()) if man_path.exists() else None

    if args.verify_only:
        if old is None:
            print("no manifest to verify", file=sys.stderr)
            return 1
        manifest = old
    else:
        wanted = [s for s in PROGRAMS if not args.only or s.name in args.only]
        unknown = set(args.only or []) - {s.name for s in PROGRAMS}
        if unknown:
            print(f"unknown programs: {sorted(unknown)}", file=sys.stderr)
            return 2
        if args.only and old is not None:
            keep = [p for p in old["programs"] if p["name"] not in args.only]
            failures = [f for f in old.get("failures", []) if f["name"] not in args.only]
        else:
            # Full regeneration: start from an empty directory so no stale file survives.
            for child in out_dir.iterdir():
                if child.is_dir():
                    shutil.rmtree(child)
                else:
                    child.unlink()
            keep, failures = [], []
        for spec in wanted:
            if args.only:
                shutil.rmtree(out_dir / "data" / spec.name, ignore_errors=True)
            print(f"  GEN     {out_dir.name}/{spec.name}.pte", flush=True)
            try:
                keep.append(export_program(spec, out_dir))
            except Exception as e:  # noqa: BLE001
                tb = traceback.format_exc(limit=3)
                print(f"  FAIL    {spec.name}: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}", flush=True)
                failures.append({"name": spec.name, "stage": "export", "error": f"{type(e).__name__}: {e}",
                                 "traceback_tail": tb.strip().splitlines()[-6:]})
        manifest = {
            "format_version": MANIFEST_FORMAT,
            "generator": "test/zoo/export_zoo.py",
            "versions": versions(),
            "notes": [
                "Inputs/outputs are flattened pytree leaves in order; tensors are .npy files relative to this manifest.",
                "For a method with several calls, run the calls in order on ONE loaded method: stateful programs "
                "carry state from call to call; for the others each call is independent.",
                "Prim (int/double/bool) inputs were baked in at export: the runtime must be given the same value.",
                "Compare floats with numpy.allclose(actual, expected, atol, rtol); integers and bools exactly.",
                "upstream_runtime records what executorch's own Python runtime produced on the same files.",
            ],
            "programs": keep,
            "failures": failures,
        }

    if not args.no_verify:
        for p in manifest["programs"]:
            if args.only and p["name"] not in args.only and not args.verify_only:
                continue
            verify_program(p, out_dir)
            st = sorted({m["upstream_runtime"]["status"] for m in p["methods"]})
            print(f"  CHECK   {p['name']}: upstream runtime {'/'.join(st)}", flush=True)
    finalize(manifest)
    man_path.write_text(json.dumps(manifest, indent=1, sort_keys=False) + "\n")

    bad = {k: v for k, v in manifest["upstream_runtime_summary"].items() if v != "match"}
    total = sum(f.stat().st_size for f in out_dir.rglob("*") if f.is_file())
    print(f"  zoo: {len(manifest['programs'])} programs, {len(manifest['failures'])} export failures, "
          f"{len(manifest['operator_union'])} ops in union, {total / 1e6:.2f} MB; "
          f"upstream runtime mismatches/errors: {bad if bad else 'none'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
