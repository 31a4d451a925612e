"""Real-size models for the benchmark's real-size section (bench/realsize/export.py exports them,
bench/harness/worker.py re-creates them for the eager column).

torchvision's compiled ops need a CUDA build of torch, so the architectures are written here
following torchvision's published structure (layer counts, channel widths, kernel sizes,
activations, squeeze-excitation placement); dropout and stochastic depth are no-ops in eval mode
and are left out. Weights are random; `build()` makes them realistic enough that the logits do not
collapse: BatchNorm affine params are drawn at random and its running statistics are then
measured on random images (so every layer's output is normalised as after training), instead
of the identity statistics of a fresh module, which would let the activations of a 50-layer
network shrink towards 1e-9.
"""

from __future__ import annotations

import math
from typing import Callable, Dict, List, Optional, Tuple

import torch
import torch.nn as nn
import torch.nn.functional as F


def make_divisible(v: float, divisor: int = 8) -> int:
    """torchvision's channel rounding: nearest multiple of `divisor`, never below 90% of v."""
    new_v = max(divisor, int(v + divisor / 2) // divisor * divisor)
    if new_v < 0.9 * v:
        new_v += divisor
    return new_v


class ConvBNAct(nn.Sequential):
    def __init__(self, cin: int, cout: int, k: int = 3, stride: int = 1, groups: int = 1,
                 act: Optional[Callable[[], nn.Module]] = nn.ReLU) -> None:
        layers: List[nn.Module] = [nn.Conv2d(cin, cout, k, stride, (k - 1) // 2, groups=groups, bias=False),
                                   nn.BatchNorm2d(cout)]
        if act is not None:
            layers.append(act())
        super().__init__(*layers)


class SqueezeExcite(nn.Module):
    """Global average pool, two 1x1 convolutions, a gate that scales the channels."""

    def __init__(self, channels: int, squeeze: int, act: Callable[[], nn.Module],
                 gate: Callable[[], nn.Module]) -> None:
        super().__init__()
        self.fc1 = nn.Conv2d(channels, squeeze, 1)
        self.act = act()
        self.fc2 = nn.Conv2d(squeeze, channels, 1)
        self.gate = gate()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        s = F.adaptive_avg_pool2d(x, 1)
        return x * self.gate(self.fc2(self.act(self.fc1(s))))


# ---- MobileNetV2 ---------------------------------------------------------------------------


class InvertedResidualV2(nn.Module):
    def __init__(self, cin: int, cout: int, stride: int, expand: int) -> None:
        super().__init__()
        hidden = cin * expand
        layers: List[nn.Module] = []
        if expand != 1:
            layers.append(ConvBNAct(cin, hidden, 1, act=nn.ReLU6))
        layers += [ConvBNAct(hidden, hidden, 3, stride, groups=hidden, act=nn.ReLU6),
                   ConvBNAct(hidden, cout, 1, act=None)]
        self.conv = nn.Sequential(*layers)
        self.residual = stride == 1 and cin == cout

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.conv(x) if self.residual else self.conv(x)


class MobileNetV2(nn.Module):
    SETTINGS = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1),
                (6, 160, 3, 2), (6, 320, 1, 1)]  # expand t, channels c, repeats n, stride s

    def __init__(self, num_classes: int = 1000) -> None:
        super().__init__()
        layers: List[nn.Module] = [ConvBNAct(3, 32, 3, 2, act=nn.ReLU6)]
        cin = 32
        for t, c, n, s in self.SETTINGS:
            for i in range(n):
                layers.append(InvertedResidualV2(cin, c, s if i == 0 else 1, t))
                cin = c
        layers.append(ConvBNAct(cin, 1280, 1, act=nn.ReLU6))
        self.features = nn.Sequential(*layers)
        self.classifier = nn.Linear(1280, num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.adaptive_avg_pool2d(self.features(x), 1)
        return self.classifier(torch.flatten(x, 1))


# ---- MobileNetV3-Small -----------------------------------------------------------------------


class InvertedResidualV3(nn.Module):
    def __init__(self, cin: int, k: int, exp: int, cout: int, se: bool, act: Callable[[], nn.Module],
                 stride: int) -> None:
        super().__init__()
        layers: List[nn.Module] = []
        if exp != cin:
            layers.append(ConvBNAct(cin, exp, 1, act=act))
        layers.append(ConvBNAct(exp, exp, k, stride, groups=exp, act=act))
        if se:
            layers.append(SqueezeExcite(exp, make_divisible(exp // 4), nn.ReLU, nn.Hardsigmoid))
        layers.append(ConvBNAct(exp, cout, 1, act=None))
        self.block = nn.Sequential(*layers)
        self.residual = stride == 1 and cin == cout

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.block(x) if self.residual else self.block(x)


class MobileNetV3Small(nn.Module):
    RE, HS = nn.ReLU, nn.Hardswish
    # kernel, expanded channels, out channels, squeeze-excite, activation, stride
    SETTINGS = [(3, 16, 16, True, RE, 2), (3, 72, 24, False, RE, 2), (3, 88, 24, False, RE, 1),
                (5, 96, 40, True, HS, 2), (5, 240, 40, True, HS, 1), (5, 240, 40, True, HS, 1),
                (5, 120, 48, True, HS, 1), (5, 144, 48, True, HS, 1), (5, 288, 96, True, HS, 2),
                (5, 576, 96, True, HS, 1), (5, 576, 96, True, HS, 1)]

    def __init__(self, num_classes: int = 1000) -> None:
        super().__init__()
        layers: List[nn.Module] = [ConvBNAct(3, 16, 3, 2, act=nn.Hardswish)]
        cin = 16
        for k, exp, cout, se, act, s in self.SETTINGS:
            layers.append(InvertedResidualV3(cin, k, exp, cout, se, act, s))
            cin = cout
        layers.append(ConvBNAct(cin, 576, 1, act=nn.Hardswish))
        self.features = nn.Sequential(*layers)
        self.classifier = nn.Sequential(nn.Linear(576, 1024), nn.Hardswish(), nn.Linear(1024, num_classes))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.adaptive_avg_pool2d(self.features(x), 1)
        return self.classifier(torch.flatten(x, 1))


# ---- ResNet-18 -------------------------------------------------------------------------------


class BasicBlock(nn.Module):
    def __init__(self, cin: int, cout: int, stride: int) -> None:
        super().__init__()
        self.conv1 = ConvBNAct(cin, cout, 3, stride)
        self.conv2 = ConvBNAct(cout, cout, 3, act=None)
        self.down = ConvBNAct(cin, cout, 1, stride, act=None) if stride != 1 or cin != cout else None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        idt = x if self.down is None else self.down(x)
        return F.relu(self.conv2(self.conv1(x)) + idt)


class ResNet18(nn.Module):
    def __init__(self, num_classes: int = 1000) -> None:
        super().__init__()
        self.stem = ConvBNAct(3, 64, 7, 2)
        blocks: List[nn.Module] = []
        cin = 64
        for cout, stride in ((64, 1), (128, 2), (256, 2), (512, 2)):
            blocks += [BasicBlock(cin, cout, stride), BasicBlock(cout, cout, 1)]
            cin = cout
        self.layers = nn.Sequential(*blocks)
        self.fc = nn.Linear(512, num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.max_pool2d(self.stem(x), 3, 2, 1)
        x = F.adaptive_avg_pool2d(self.layers(x), 1)
        return self.fc(torch.flatten(x, 1))


# ---- EfficientNet-B0 -------------------------------------------------------------------------


class MBConv(nn.Module):
    def __init__(self, cin: int, cout: int, k: int, stride: int, expand: int) -> None:
        super().__init__()
        hidden = make_divisible(cin * expand)
        layers: List[nn.Module] = []
        if hidden != cin:
            layers.append(ConvBNAct(cin, hidden, 1, act=nn.SiLU))
        layers += [ConvBNAct(hidden, hidden, k, stride, groups=hidden, act=nn.SiLU),
                   SqueezeExcite(hidden, max(1, cin // 4), nn.SiLU, nn.Sigmoid),
                   ConvBNAct(hidden, cout, 1, act=None)]
        self.block = nn.Sequential(*layers)
        self.residual = stride == 1 and cin == cout  # stochastic depth: identity in eval

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.block(x) if self.residual else self.block(x)


class EfficientNetB0(nn.Module):
    # expand, kernel, stride, in, out, repeats
    SETTINGS = [(1, 3, 1, 32, 16, 1), (6, 3, 2, 16, 24, 2), (6, 5, 2, 24, 40, 2), (6, 3, 2, 40, 80, 3),
                (6, 5, 1, 80, 112, 3), (6, 5, 2, 112, 192, 4), (6, 3, 1, 192, 320, 1)]

    def __init__(self, num_classes: int = 1000) -> None:
        super().__init__()
        layers: List[nn.Module] = [ConvBNAct(3, 32, 3, 2, act=nn.SiLU)]
        for e, k, s, cin, cout, n in self.SETTINGS:
            for i in range(n):
                layers.append(MBConv(cin if i == 0 else cout, cout, k, s if i == 0 else 1, e))
        layers.append(ConvBNAct(320, 1280, 1, act=nn.SiLU))
        self.features = nn.Sequential(*layers)
        self.classifier = nn.Linear(1280, num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.adaptive_avg_pool2d(self.features(x), 1)
        return self.classifier(torch.flatten(x, 1))


# ---- Transformers ----------------------------------------------------------------------------


class SelfAttention(nn.Module):
    """Multi-head self-attention written out (matmul, softmax), as in the reference ViT/BERT."""

    def __init__(self, dim: int, heads: int) -> None:
        super().__init__()
        self.heads, self.head_dim = heads, dim // heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, n, d = x.shape
        qkv = self.qkv(x).reshape(b, n, 3, self.heads, self.head_dim).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        att = torch.softmax(q @ k.transpose(-2, -1) * (1.0 / math.sqrt(self.head_dim)), dim=-1)
        return self.proj((att @ v).transpose(1, 2).reshape(b, n, d))


class PreNormBlock(nn.Module):
    """ViT encoder block: x + attn(LN(x)), then x + MLP(LN(x))."""

    def __init__(self, dim: int, heads: int, mlp: int, eps: float) -> None:
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(dim, eps=eps), nn.LayerNorm(dim, eps=eps)
        self.attn = SelfAttention(dim, heads)
        self.mlp = nn.Sequential(nn.Linear(dim, mlp), nn.GELU(), nn.Linear(mlp, dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class PostNormBlock(PreNormBlock):
    """BERT encoder layer: LN(x + attn(x)), then LN(x + MLP(x))."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.ln1(x + self.attn(x))
        return self.ln2(x + self.mlp(x))


class ViTTiny16(nn.Module):
    """ViT-Ti/16: 16x16 patches, width 192, 12 blocks of 3 heads, MLP 768, class token head."""

    def __init__(self, image: int = 224, dim: int = 192, depth: int = 12, heads: int = 3, mlp: int = 768,
                 num_classes: int = 1000) -> None:
        super().__init__()
        self.patch = nn.Conv2d(3, dim, 16, 16)
        n = (image // 16) ** 2
        self.cls = nn.Parameter(torch.randn(1, 1, dim) * 0.02)
        self.pos = nn.Parameter(torch.randn(1, n + 1, dim) * 0.02)
        self.blocks = nn.Sequential(*[PreNormBlock(dim, heads, mlp, 1e-6) for _ in range(depth)])
        self.ln = nn.LayerNorm(dim, eps=1e-6)
        self.head = nn.Linear(dim, num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.patch(x).flatten(2).transpose(1, 2)
        x = torch.cat([self.cls.expand(x.shape[0], -1, -1), x], dim=1) + self.pos
        return self.head(self.ln(self.blocks(x))[:, 0])


class BertEncoder(nn.Module):
    """BERT-Mini-style encoder: 4 post-norm layers, hidden 256, 4 heads, FFN 1024, WordPiece-size
    vocabulary, sequence 128; returns the sequence output and the tanh pooler output."""

    def __init__(self, vocab: int = 30522, seq: int = 128, dim: int = 256, depth: int = 4, heads: int = 4,
                 ffn: int = 1024) -> None:
        super().__init__()
        self.tok = nn.Embedding(vocab, dim)
        self.pos = nn.Embedding(seq, dim)
        self.ln = nn.LayerNorm(dim, eps=1e-12)
        self.layers = nn.Sequential(*[PostNormBlock(dim, heads, ffn, 1e-12) for _ in range(depth)])
        self.pool = nn.Linear(dim, dim)
        self.register_buffer("positions", torch.arange(seq).unsqueeze(0), persistent=False)

    def forward(self, ids: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        x = self.ln(self.tok(ids) + self.pos(self.positions[:, : ids.shape[1]]))
        x = self.layers(x)
        return x, torch.tanh(self.pool(x[:, 0]))


# ---- Registry --------------------------------------------------------------------------------

IMAGE = (1, 3, 224, 224)
SEQ = 128

# name -> (constructor, is a CNN (gets the int8 variant), description)
MODELS: Dict[str, Tuple[Callable[[], nn.Module], bool, str]] = {
    "mobilenet_v2": (MobileNetV2, True, "MobileNetV2 1.0, 224x224, 1000 classes (3.5 M params)"),
    "mobilenet_v3_small": (MobileNetV3Small, True, "MobileNetV3-Small, 224x224, 1000 classes (2.5 M params)"),
    "resnet18": (ResNet18, True, "ResNet-18, 224x224, 1000 classes (11.7 M params)"),
    "efficientnet_b0": (EfficientNetB0, True, "EfficientNet-B0, 224x224, 1000 classes (5.3 M params)"),
    "vit_tiny": (ViTTiny16, False, "ViT-Tiny/16, 224x224, 1000 classes (5.7 M params)"),
    "bert_mini": (BertEncoder, False, "BERT-style encoder: 4 layers, hidden 256, 4 heads, seq 128 (11 M params)"),
}


def seed_for(name: str) -> int:
    return sum(ord(c) * (i + 1) for i, c in enumerate(name)) % (2**31)


def calibrate_batchnorm(model: nn.Module, batches: int = 2) -> None:
    """Random BatchNorm affine params, then running statistics measured on random images."""
    bns = [m for m in model.modules() if isinstance(m, nn.BatchNorm2d)]
    if not bns:
        return
    with torch.no_grad():
        for m in bns:
            m.weight.copy_(torch.rand_like(m.weight) * 0.5 + 0.75)
            m.bias.copy_(torch.randn_like(m.bias) * 0.1)
            m.reset_running_stats()
            m.momentum = None  # cumulative average over the calibration batches
        model.train()
        for _ in range(batches):
            model(torch.randn(4, *IMAGE[1:]))
    model.eval()


def build(name: str) -> Tuple[nn.Module, Tuple[torch.Tensor, ...]]:
    """The model in eval mode with its seeded random weights, and its example input."""
    ctor, _, _ = MODELS[name]
    torch.manual_seed(seed_for(name))
    model = ctor()
    calibrate_batchnorm(model)
    model.eval()
    g = torch.Generator().manual_seed(seed_for(name) + 1)
    if name.startswith("bert"):
        x = torch.randint(0, model.tok.num_embeddings, (1, SEQ), generator=g)
    else:
        x = torch.randn(*IMAGE, generator=g)
    return model, (x,)


def calibration_inputs(name: str, n: int = 4) -> List[Tuple[torch.Tensor, ...]]:
    g = torch.Generator().manual_seed(seed_for(name) + 2)
    return [(torch.randn(*IMAGE, generator=g),) for _ in range(n)]
