"""Shared helpers of the cases_<family>.py files (gen_goldens.py): dtype
aliases, dtype groups and random inputs."""
import torch

f32, f64, f16, bf16 = torch.float32, torch.float64, torch.float16, torch.bfloat16
i64, i32, i16, i8, u8, b8 = torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8, torch.bool
ALL = (f32, f64, f16, bf16, i64, i32, i16, i8, u8, b8)
REAL_H = (f32, f64, f16, bf16, i64, i32, i16, i8, u8)
INTS = (i64, i32, i16, i8, u8)


def name(dt):
    """The short dtype name used in case labels ("float32")."""
    return str(dt).split(".")[-1]


def r(*shape, dtype=f32):
    """Random values: normal floats, integers in [-50, 50) ([0, 50) for uint8), random bools."""
    if dtype == b8:
        return torch.rand(shape) > 0.5
    if dtype.is_floating_point:
        return torch.randn(shape).to(dtype)
    lo = 0 if dtype == u8 else -50
    return torch.randint(lo, 50, shape, dtype=dtype)
