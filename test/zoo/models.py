"""Model definitions for the model zoo (plain torch, plus a tiny HF BERT).

Every network here is small on purpose: the fixtures are committed to the repo and all of
them together must stay well under 20 MB. Weights are random; the caller seeds torch
before building each model, so the same seed always gives the same weights.
"""

from __future__ import annotations


import torch
import torch.nn as nn
import torch.nn.functional as F


def randomize_batchnorm(module: nn.Module) -> None:
    """Give every BatchNorm non-trivial running stats and affine params (uses the global RNG).

    Freshly built BatchNorms have mean 0 / var 1 / weight 1 / bias 0, which would make the
    normalisation an identity and hide kernel bugs.
    """
    for m in module.modules():
        if isinstance(m, nn.BatchNorm2d):
            with torch.no_grad():
                m.running_mean.copy_(torch.randn_like(m.running_mean) * 0.1)
                m.running_var.copy_(torch.rand_like(m.running_var) * 0.5 + 0.75)
                m.weight.copy_(torch.rand_like(m.weight) * 0.5 + 0.75)
                m.bias.copy_(torch.randn_like(m.bias) * 0.1)


# --------------------------------------------------------------------------------------------
# Classic nets


class MLP(nn.Module):
    def __init__(self, din: int = 16, hidden: int = 32, dout: int = 10) -> None:
        super().__init__()
        self.fc1 = nn.Linear(din, hidden)
        self.fc2 = nn.Linear(hidden, hidden)
        self.fc3 = nn.Linear(hidden, dout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)


class SmallCNN(nn.Module):
    """conv -> relu -> maxpool, twice, then flatten -> linear. Input [N, 3, 16, 16]."""

    def __init__(self, num_classes: int = 10) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, kernel_size=3, padding=1)
        self.conv2 = nn.Conv2d(8, 16, kernel_size=3, padding=1)
        self.fc = nn.Linear(16 * 4 * 4, num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return self.fc(torch.flatten(x, 1))


def _conv_bn(cin: int, cout: int, k: int, stride: int = 1, groups: int = 1, act: bool = True) -> nn.Sequential:
    layers = [
        nn.Conv2d(cin, cout, k, stride=stride, padding=k // 2, groups=groups, bias=False),
        nn.BatchNorm2d(cout),
    ]
    if act:
        layers.append(nn.ReLU6())
    return nn.Sequential(*layers)


class InvertedResidual(nn.Module):
    def __init__(self, cin: int, cout: int, stride: int, expand: int) -> None:
        super().__init__()
        hidden = cin * expand
        self.use_res = stride == 1 and cin == cout
        layers = []
        if expand != 1:
            layers.append(_conv_bn(cin, hidden, 1))
        layers.append(_conv_bn(hidden, hidden, 3, stride=stride, groups=hidden))  # depthwise
        layers.append(_conv_bn(hidden, cout, 1, act=False))  # linear bottleneck
        self.block = nn.Sequential(*layers)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.block(x)
        return x + y if self.use_res else y


class MobileNetV2Tiny(nn.Module):
    """MobileNetV2-shaped: stem, inverted residual stages, 1x1 head, adaptive avg pool, dropout, fc."""

    # (expand, out channels, repeats, first stride)
    CFG = [(1, 8, 1, 1), (4, 12, 2, 2), (4, 16, 2, 2), (4, 24, 1, 1)]

    def __init__(self, num_classes: int = 10) -> None:
        super().__init__()
        layers = [_conv_bn(3, 8, 3, stride=2)]
        cin = 8
        for expand, cout, reps, stride in self.CFG:
            for i in range(reps):
                layers.append(InvertedResidual(cin, cout, stride if i == 0 else 1, expand))
                cin = cout
        layers.append(_conv_bn(cin, 64, 1))
        self.features = nn.Sequential(*layers)
        self.pool = nn.AdaptiveAvgPool2d((1, 1))
        self.classifier = nn.Sequential(nn.Dropout(0.2), nn.Linear(64, num_classes))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.pool(self.features(x))
        return self.classifier(torch.flatten(x, 1))


class BasicBlock(nn.Module):
    def __init__(self, cin: int, cout: int, stride: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.down = None
        if stride != 1 or cin != cout:
            self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride=stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        idt = x if self.down is None else self.down(x)
        y = F.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return F.relu(y + idt)


class ResNet18Tiny(nn.Module):
    """ResNet-18-shaped ([2, 2, 2, 2] basic blocks, 7x7 stem, 3x3 max pool), narrow widths."""

    def __init__(self, widths=(8, 16, 32, 64), num_classes: int = 10) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(3, widths[0], 7, stride=2, padding=3, bias=False)
        self.bn1 = nn.BatchNorm2d(widths[0])
        self.maxpool = nn.MaxPool2d(3, stride=2, padding=1)
        blocks = []
        cin = widths[0]
        for i, w in enumerate(widths):
            for j in range(2):
                blocks.append(BasicBlock(cin, w, 2 if (i > 0 and j == 0) else 1))
                cin = w
        self.layers = nn.Sequential(*blocks)
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(cin, num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.maxpool(F.relu(self.bn1(self.conv1(x))))
        x = self.avgpool(self.layers(x))
        return self.fc(torch.flatten(x, 1))


# --------------------------------------------------------------------------------------------
# Transformers


class ViTBlock(nn.Module):
    def __init__(self, dim: int, heads: int, mlp: int) -> None:
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, dim * 3)
        self.proj = nn.Linear(dim, dim)
        self.ln2 = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, mlp)
        self.fc2 = nn.Linear(mlp, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, n, d = x.shape
        h = self.ln1(x)
        q, k, v = self.qkv(h).reshape(b, n, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        a = F.scaled_dot_product_attention(q, k, v)
        x = x + self.proj(a.transpose(1, 2).reshape(b, n, d))
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))


class ViTTiny(nn.Module):
    """Patchify conv, class token, learned position embedding, pre-LN blocks with SDPA and GELU."""

    def __init__(self, img: int = 32, patch: int = 8, dim: int = 64, depth: int = 2, heads: int = 4,
                 mlp: int = 128, num_classes: int = 10) -> None:
        super().__init__()
        self.patch = nn.Conv2d(3, dim, patch, stride=patch)
        n = (img // patch) ** 2
        self.cls = nn.Parameter(torch.randn(1, 1, dim) * 0.02)
        self.pos = nn.Parameter(torch.randn(1, n + 1, dim) * 0.02)
        self.blocks = nn.ModuleList([ViTBlock(dim, heads, mlp) for _ in range(depth)])
        self.ln = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.patch(x).flatten(2).transpose(1, 2)  # [B, N, D]
        x = torch.cat([self.cls.expand(x.shape[0], -1, -1), x], dim=1) + self.pos
        for blk in self.blocks:
            x = blk(x)
        return self.head(self.ln(x)[:, 0])


class BertTinyWrapper(nn.Module):
    """A transformers BertModel built from a tiny config (random weights, nothing downloaded)."""

    def __init__(self) -> None:
        super().__init__()
        from transformers import BertConfig, BertModel

        cfg = BertConfig(
            vocab_size=128,
            hidden_size=32,
            num_hidden_layers=2,
            num_attention_heads=2,
            intermediate_size=64,
            max_position_embeddings=32,
            type_vocab_size=2,
            hidden_dropout_prob=0.0,
            attention_probs_dropout_prob=0.0,
        )
        cfg._attn_implementation = "eager"
        self.bert = BertModel(cfg, add_pooling_layer=True)

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor):
        out = self.bert(input_ids=input_ids, attention_mask=attention_mask, return_dict=True)
        return out.last_hidden_state, out.pooler_output


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-5) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(1.0 + 0.1 * torch.randn(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def _rotate_half(x: torch.Tensor) -> torch.Tensor:
    h = x.shape[-1] // 2
    return torch.cat((-x[..., h:], x[..., :h]), dim=-1)


class LlamaAttention(nn.Module):
    def __init__(self, dim: int, heads: int, kv_heads: int, max_seq: int) -> None:
        super().__init__()
        self.heads, self.kv_heads, self.hd = heads, kv_heads, dim // heads
        self.wq = nn.Linear(dim, heads * self.hd, bias=False)
        self.wk = nn.Linear(dim, kv_heads * self.hd, bias=False)
        self.wv = nn.Linear(dim, kv_heads * self.hd, bias=False)
        self.wo = nn.Linear(heads * self.hd, dim, bias=False)
        # The KV cache: mutable buffers, updated in place at input_pos.
        self.register_buffer("k_cache", torch.zeros(1, kv_heads, max_seq, self.hd))
        self.register_buffer("v_cache", torch.zeros(1, kv_heads, max_seq, self.hd))

    def forward(self, x, cos, sin, mask, input_pos):
        b, s, _ = x.shape
        q = self.wq(x).view(b, s, self.heads, self.hd).transpose(1, 2)
        k = self.wk(x).view(b, s, self.kv_heads, self.hd).transpose(1, 2)
        v = self.wv(x).view(b, s, self.kv_heads, self.hd).transpose(1, 2)
        q = q * cos + _rotate_half(q) * sin
        k = k * cos + _rotate_half(k) * sin
        self.k_cache[:, :, input_pos] = k
        self.v_cache[:, :, input_pos] = v
        rep = self.heads // self.kv_heads
        t = self.k_cache.shape[2]
        kk = self.k_cache[:, :, None].expand(b, self.kv_heads, rep, t, self.hd).reshape(b, self.heads, t, self.hd)
        vv = self.v_cache[:, :, None].expand(b, self.kv_heads, rep, t, self.hd).reshape(b, self.heads, t, self.hd)
        o = F.scaled_dot_product_attention(q, kk, vv, attn_mask=mask)
        return self.wo(o.transpose(1, 2).reshape(b, s, self.heads * self.hd))


class LlamaBlock(nn.Module):
    def __init__(self, dim: int, heads: int, kv_heads: int, ffn: int, max_seq: int) -> None:
        super().__init__()
        self.attn_norm = RMSNorm(dim)
        self.attn = LlamaAttention(dim, heads, kv_heads, max_seq)
        self.ffn_norm = RMSNorm(dim)
        self.w1 = nn.Linear(dim, ffn, bias=False)
        self.w3 = nn.Linear(dim, ffn, bias=False)
        self.w2 = nn.Linear(ffn, dim, bias=False)

    def forward(self, x, cos, sin, mask, input_pos):
        x = x + self.attn(self.attn_norm(x), cos, sin, mask, input_pos)
        h = self.ffn_norm(x)
        return x + self.w2(F.silu(self.w1(h)) * self.w3(h))


class LlamaTiny(nn.Module):
    """Llama-style decoder: RMSNorm, RoPE (rotate-half), GQA, SiLU-gated MLP, KV cache buffers.

    forward(tokens [1, S] int64, input_pos [S] int64) -> logits [1, S, vocab]. The KV cache lives
    in mutable buffers, so consecutive calls continue the same sequence.
    """

    def __init__(self, vocab: int = 64, dim: int = 32, layers: int = 2, heads: int = 4, kv_heads: int = 2,
                 ffn: int = 64, max_seq: int = 16, rope_theta: float = 10000.0) -> None:
        super().__init__()
        hd = dim // heads
        self.tok = nn.Embedding(vocab, dim)
        self.layers = nn.ModuleList([LlamaBlock(dim, heads, kv_heads, ffn, max_seq) for _ in range(layers)])
        self.norm = RMSNorm(dim)
        self.out = nn.Linear(dim, vocab, bias=False)
        inv = 1.0 / (rope_theta ** (torch.arange(0, hd, 2, dtype=torch.float32) / hd))
        ang = torch.outer(torch.arange(max_seq, dtype=torch.float32), inv)
        ang = torch.cat((ang, ang), dim=-1)
        self.register_buffer("rope_cos", ang.cos(), persistent=False)
        self.register_buffer("rope_sin", ang.sin(), persistent=False)
        causal = torch.full((max_seq, max_seq), float("-inf")).triu(1)
        self.register_buffer("mask", causal, persistent=False)

    def forward(self, tokens: torch.Tensor, input_pos: torch.Tensor) -> torch.Tensor:
        x = self.tok(tokens)
        cos = self.rope_cos[input_pos]
        sin = self.rope_sin[input_pos]
        mask = self.mask[input_pos]
        for layer in self.layers:
            x = layer(x, cos, sin, mask, input_pos)
        return self.out(self.norm(x))


class LSTMNet(nn.Module):
    def __init__(self, din: int = 8, hidden: int = 16, layers: int = 2) -> None:
        super().__init__()
        self.lstm = nn.LSTM(din, hidden, num_layers=layers, batch_first=True)

    def forward(self, x: torch.Tensor):
        y, (h, c) = self.lstm(x)
        return y, h, c


# --------------------------------------------------------------------------------------------
# Runtime-feature modules


class AddScaled(nn.Module):
    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return x + y * 2.0


class Scale(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("factor", torch.randn(4))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * self.factor


class Project(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lin = nn.Linear(4, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.tanh(self.lin(x))


class PrimInputs(nn.Module):
    """Tensor plus Int, Double and Bool method inputs (the prim values are baked in at export)."""

    def forward(self, x: torch.Tensor, y: torch.Tensor, n: int, alpha: float, flag: bool) -> torch.Tensor:
        out = torch.add(x, y, alpha=alpha) + n
        if flag:
            out = out * 2
        return out


class Stateful(nn.Module):
    """A float accumulator and an int32 step counter in mutable buffers."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("acc", torch.randn(2, 3))
        self.register_buffer("steps", torch.zeros(1, dtype=torch.int32))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.acc.add_(x)
        self.steps.add_(1)
        return self.acc * self.steps


class DynamicLinear(nn.Module):
    """x: [n, 4] with n dynamic. Output views depend on n (et_view / sym_size territory)."""

    def __init__(self) -> None:
        super().__init__()
        self.lin = nn.Linear(4, 6)

    def forward(self, x: torch.Tensor):
        h = self.lin(torch.relu(x))
        return torch.softmax(h.reshape(x.shape[0] * 2, 3), dim=-1), h.sum(0)


class AddOne(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + 1.0


class LinearConst(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lin = nn.Linear(8, 4)
        self.register_buffer("offset", torch.randn(4))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.lin(x) * 0.5 + self.offset


class AddHalf(nn.Module):
    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return x + y


class MulAdd(nn.Module):
    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return x * y + x


class CatOnes(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.cat((x, torch.ones(1, 4)), dim=0) * 2.0


class CondModule(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        def true_fn(t):
            return torch.sin(t) * 2.0

        def false_fn(t):
            return torch.cos(t) - 1.0

        h = self.lin(x)
        return torch.cond(h.sum() > 0, true_fn, false_fn, (h,))


class HFLlamaTinyWrapper(nn.Module):
    """transformers LlamaForCausalLM from a tiny config (random weights), no KV cache, SDPA attention."""

    def __init__(self) -> None:
        super().__init__()
        from transformers import LlamaConfig, LlamaForCausalLM

        cfg = LlamaConfig(
            vocab_size=64,
            hidden_size=32,
            intermediate_size=64,
            num_hidden_layers=2,
            num_attention_heads=4,
            num_key_value_heads=2,
            max_position_embeddings=32,
            use_cache=False,
        )
        cfg._attn_implementation = "sdpa"
        self.model = LlamaForCausalLM(cfg)

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        return self.model(input_ids=input_ids, use_cache=False).logits


class GRUNet(nn.Module):
    def __init__(self, din: int = 8, hidden: int = 16) -> None:
        super().__init__()
        self.gru = nn.GRU(din, hidden, num_layers=1, batch_first=True)

    def forward(self, x: torch.Tensor, h0: torch.Tensor):
        y, h = self.gru(x, h0)
        return y, h


class Identity(nn.Module):
    """Returns its inputs unchanged: zero instructions, outputs alias inputs."""

    def forward(self, x: torch.Tensor, y: torch.Tensor):
        return x, y


class DtypeIO(nn.Module):
    """Inputs and outputs of several dtypes: float32, int64, bool, int32."""

    def forward(self, x: torch.Tensor, i: torch.Tensor, b: torch.Tensor, h: torch.Tensor):
        return x > 0, i * 2, torch.where(b, x, -x), h + 1, x.to(torch.int64), i.to(torch.float32)


class CustomOpsAttention(nn.Module):
    """LlamaAttention as upstream's LLM export rewrites it (SDPACustom with CustomKVCache): the
    caches are [1, max_seq, kv_heads, head_dim] mutable buffers written by llama::update_cache
    at start_pos = input_pos[0], attention is llama::custom_sdpa (causal from start_pos, GQA)."""

    def __init__(self, dim: int, heads: int, kv_heads: int, max_seq: int) -> None:
        super().__init__()
        self.heads, self.kv_heads, self.hd, self.max_seq = heads, kv_heads, dim // heads, max_seq
        self.wq = nn.Linear(dim, heads * self.hd, bias=False)
        self.wk = nn.Linear(dim, kv_heads * self.hd, bias=False)
        self.wv = nn.Linear(dim, kv_heads * self.hd, bias=False)
        self.wo = nn.Linear(heads * self.hd, dim, bias=False)
        self.register_buffer("k_cache", torch.zeros(1, max_seq, kv_heads, self.hd))
        self.register_buffer("v_cache", torch.zeros(1, max_seq, kv_heads, self.hd))

    def forward(self, x, cos, sin, mask, input_pos):
        b, s, _ = x.shape
        q = self.wq(x).view(b, s, self.heads, self.hd)
        k = self.wk(x).view(b, s, self.kv_heads, self.hd)
        v = self.wv(x).view(b, s, self.kv_heads, self.hd)
        cos, sin = cos[:, None, :], sin[:, None, :]
        q = q * cos + _rotate_half(q) * sin
        k = k * cos + _rotate_half(k) * sin
        start_pos = input_pos[0].item()
        torch._check_is_size(start_pos)
        torch._check(start_pos + s <= self.max_seq)
        torch.ops.llama.update_cache(k, self.k_cache, start_pos)
        torch.ops.llama.update_cache(v, self.v_cache, start_pos)
        o = torch.ops.llama.custom_sdpa(q, self.k_cache, self.v_cache, start_pos, None, 0.0, True)
        return self.wo(o.reshape(b, s, self.heads * self.hd))


class LlamaTinyCustomOps(LlamaTiny):
    """LlamaTiny with CustomOpsAttention in every layer (needs the executorch package's
    llama:: custom ops registered: executorch.extension.llm.custom_ops.custom_ops)."""

    def __init__(self, dim: int = 32, heads: int = 4, kv_heads: int = 2, max_seq: int = 16) -> None:
        super().__init__(dim=dim, heads=heads, kv_heads=kv_heads, max_seq=max_seq)
        for layer in self.layers:
            layer.attn = CustomOpsAttention(dim, heads, kv_heads, max_seq)


class ConvBnActTiny(nn.Module):
    """MobileNetV3 / EfficientNet-style blocks: conv + batch norm + hardswish / SiLU / hardsigmoid
    (the activations the export decomposes into several operators), a squeeze-excitation gate
    x * sigmoid(.), a depthwise conv, a biased conv before its batch norm, and a GEMM + hardswish
    head. Every convolution's batch norm can be folded into it at load."""

    def __init__(self, num_classes: int = 10) -> None:
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, stride=2, padding=1, bias=False),
                                  nn.BatchNorm2d(16), nn.Hardswish())
        self.expand = nn.Sequential(nn.Conv2d(16, 32, 1, bias=True), nn.BatchNorm2d(32), nn.SiLU())
        self.dw = nn.Sequential(nn.Conv2d(32, 32, 3, padding=1, groups=32, bias=False),
                                nn.BatchNorm2d(32), nn.SiLU())
        self.se_fc1 = nn.Conv2d(32, 8, 1)
        self.se_fc2 = nn.Conv2d(8, 32, 1)
        self.project = nn.Sequential(nn.Conv2d(32, 16, 1, bias=False), nn.BatchNorm2d(16))
        self.gate = nn.Sequential(nn.Conv2d(16, 16, 1), nn.Hardsigmoid())
        self.head = nn.Sequential(nn.Linear(16, 32), nn.Hardswish(), nn.Linear(32, num_classes))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.stem(x)
        y = self.dw(self.expand(x))
        s = F.adaptive_avg_pool2d(y, 1)
        y = y * torch.sigmoid(self.se_fc2(F.relu(self.se_fc1(s))))
        y = self.project(y) + x
        y = y * self.gate(y)
        return self.head(torch.flatten(F.adaptive_avg_pool2d(y, 1), 1))
