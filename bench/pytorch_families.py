#!/usr/bin/python3
"""An independent PyTorch forward pass of GPT-2, Qwen3, Gemma 3 (text) and Phi-3 Hugging Face folders, written from
the semantics of Hugging Face's modeling_gpt2.py, modeling_qwen3.py, modeling_gemma3.py and modeling_phi3.py (no
transformers library), to check the workbench's logits:

    transformer-workbench dump --model FOLDER --tokens 1,2,3 --out /tmp/d
    /usr/bin/python3 bench/pytorch_families.py FOLDER /tmp/d --tol 1e-4

prints "max |logits_workbench - logits_pytorch| / max |logits_pytorch| = …" and exits 1 above --tol. The pass runs
in float64 on the checkpoint's values (F32 or BF16 widened), so the difference measured is the workbench's float32
arithmetic. Gemma's embedding scale is √hidden_size cast to the checkpoint's dtype, as Gemma3TextScaledWordEmbedding
casts it to the weights' dtype. Needs python3-torch and python3-numpy (/usr/bin/python3).
"""
import argparse
import json
import math
import os
import struct
import sys

import numpy as np
import torch

DT = torch.float64
# --break DETAIL: the reference computes one detail the wrong way on purpose, so a test can show that the fixtures
# and the tolerance catch that mistake (the comparison must then fail).
BREAKS = ("rmsnorm-without-one", "qk-norm-after-rope", "gelu-erf", "conv1d-not-transposed", "gemma-layer-pattern")
BROKEN = None


# [SECTION] files

def read_safetensors(path):
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    buf = data[8 + n:]
    out, dtype = {}, "F32"
    for name, info in header.items():
        if name == "__metadata__":
            continue
        b, e = info["data_offsets"]
        raw = buf[b:e]
        dtype = info["dtype"]
        if dtype == "F32":
            a = np.frombuffer(raw, dtype="<f4")
        elif dtype == "F16":
            a = np.frombuffer(raw, dtype="<f2").astype(np.float32)
        elif dtype == "BF16":
            a = (np.frombuffer(raw, dtype="<u2").astype(np.uint32) << 16).view(np.float32)
        else:
            raise SystemExit(f"{path}: dtype {dtype} not handled")
        out[name] = torch.from_numpy(a.reshape(info["shape"]).astype(np.float64))
    return out, dtype


def read_npy(path):
    return torch.from_numpy(np.load(path).astype(np.float64))


# [SECTION] building blocks (each as the modeling file computes it)

def layer_norm(x, w, b, eps):  # nn.LayerNorm: biased variance
    mu = x.mean(-1, keepdim=True)
    var = ((x - mu) ** 2).mean(-1, keepdim=True)
    return (x - mu) / torch.sqrt(var + eps) * w + b


def rms_norm(x, w, eps, plus_one=False):  # LlamaRMSNorm / Qwen3RMSNorm / Phi3RMSNorm; Gemma3RMSNorm: (1 + w)
    y = x * torch.rsqrt((x * x).mean(-1, keepdim=True) + eps)
    return y * ((1.0 + w) if plus_one and BROKEN != "rmsnorm-without-one" else w)


def gelu_tanh(x):  # gelu_new / gelu_pytorch_tanh
    if BROKEN == "gelu-erf":
        return 0.5 * x * (1.0 + torch.erf(x / math.sqrt(2.0)))
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))


def silu(x):
    return x * torch.sigmoid(x)


def rotate_half(x):
    h = x.shape[-1] // 2
    return torch.cat((-x[..., h:], x[..., :h]), dim=-1)


def rope(x, pos, base, rot):
    """x: (heads, T, D); the first `rot` dims rotate (Phi-3's partial rotary), pairs (k, k + rot/2)."""
    inv = 1.0 / (base ** (torch.arange(0, rot, 2, dtype=DT) / rot))
    ang = pos[:, None].to(DT) * inv[None, :]
    emb = torch.cat((ang, ang), dim=-1)
    cos, sin = torch.cos(emb), torch.sin(emb)
    xr, xp = x[..., :rot], x[..., rot:]
    return torch.cat((xr * cos + rotate_half(xr) * sin, xp), dim=-1)


def attention(q, k, v, scale, window=None, softcap=None):
    """q: (H, T, D); k, v: (KV, T, D), repeat_interleave over the groups; causal, optional sliding window
    (query i sees key j when 0 <= i - j < window), soft-cap after scaling, before the mask."""
    H, T, _ = q.shape
    rep = H // k.shape[0]
    k = k.repeat_interleave(rep, dim=0)
    v = v.repeat_interleave(rep, dim=0)
    s = q @ k.transpose(-1, -2) * scale
    if softcap:
        s = softcap * torch.tanh(s / softcap)
    i = torch.arange(T)[:, None]
    j = torch.arange(T)[None, :]
    allowed = j <= i
    if window:
        allowed = allowed & (i - j < window)
    s = s.masked_fill(~allowed, float("-inf"))
    return torch.softmax(s, dim=-1) @ v  # (H, T, D)


def heads(x, n, D):  # (T, n*D) → (n, T, D)
    return x.view(x.shape[0], n, D).transpose(0, 1)


def merge(x):  # (H, T, D) → (T, H*D)
    return x.transpose(0, 1).reshape(x.shape[1], -1)


# [SECTION] the four families

def gpt2(cfg, w, tokens):
    P = "transformer." if "transformer.wte.weight" in w else ""
    C, H, L = cfg["n_embd"], cfg["n_head"], cfg["n_layer"]
    eps = cfg.get("layer_norm_epsilon", 1e-5)
    D = C // H
    T = len(tokens)
    x = w[P + "wte.weight"][tokens] + w[P + "wpe.weight"][torch.arange(T)]
    for i in range(L):
        h = f"{P}h.{i}."
        a = layer_norm(x, w[h + "ln_1.weight"], w[h + "ln_1.bias"], eps)
        qkv = a @ w[h + "attn.c_attn.weight"] + w[h + "attn.c_attn.bias"]  # Conv1D: x W + b, W stored (in, out)
        q, k, v = qkv.split(C, dim=-1)
        o = attention(heads(q, H, D), heads(k, H, D), heads(v, H, D), 1.0 / math.sqrt(D))
        proj = w[h + "attn.c_proj.weight"]  # (C, C): the one square Conv1D, where reading it untransposed still runs
        x = x + merge(o) @ (proj.T if BROKEN == "conv1d-not-transposed" else proj) + w[h + "attn.c_proj.bias"]
        m = layer_norm(x, w[h + "ln_2.weight"], w[h + "ln_2.bias"], eps)
        m = gelu_tanh(m @ w[h + "mlp.c_fc.weight"] + w[h + "mlp.c_fc.bias"])
        x = x + m @ w[h + "mlp.c_proj.weight"] + w[h + "mlp.c_proj.bias"]
    x = layer_norm(x, w[P + "ln_f.weight"], w[P + "ln_f.bias"], eps)
    return x @ w.get("lm_head.weight", w[P + "wte.weight"]).T


def llama_like(cfg, w, tokens, family, dtype):
    C, L = cfg["hidden_size"], cfg["num_hidden_layers"]
    H = cfg["num_attention_heads"]
    KV = cfg.get("num_key_value_heads") or H
    D = cfg.get("head_dim") or C // H
    eps = cfg.get("rms_norm_eps", 1e-6)
    T = len(tokens)
    pos = torch.arange(T)
    gemma = family == "gemma3"
    x = w["model.embed_tokens.weight"][tokens]
    if gemma:  # √C in the weights' dtype
        scale = torch.tensor(C ** 0.5, dtype=torch.float32)
        if dtype == "BF16":
            scale = scale.to(torch.bfloat16)
        x = x * scale.to(DT)
    rot = int(D * cfg.get("partial_rotary_factor", 1.0)) if family == "phi3" else D
    if gemma:
        types = cfg.get("layer_types") or [
            "sliding_attention" if (i + 1) % cfg.get("sliding_window_pattern", 6) else "full_attention"
            for i in range(L)]
    elif family == "qwen3":
        types = cfg.get("layer_types") or [
            "sliding_attention" if cfg.get("use_sliding_window") and cfg.get("sliding_window") and
            i >= cfg.get("max_window_layers", 28) else "full_attention" for i in range(L)]
    else:  # Phi-3: every layer gets config.sliding_window (None = full)
        types = ["sliding_attention" if cfg.get("sliding_window") else "full_attention"] * L
    if gemma and BROKEN == "gemma-layer-pattern":  # every layer's local/global swapped
        types = ["full_attention" if t == "sliding_attention" else "sliding_attention" for t in types]
    scale = cfg["query_pre_attn_scalar"] ** -0.5 if gemma else D ** -0.5
    for i in range(L):
        p = f"model.layers.{i}."
        sliding = types[i] == "sliding_attention"
        base = cfg.get("rope_local_base_freq", 10000.0) if gemma and sliding else cfg.get("rope_theta", 10000.0)
        a = rms_norm(x, w[p + "input_layernorm.weight"], eps, gemma)
        if family == "phi3":
            qkv = a @ w[p + "self_attn.qkv_proj.weight"].T
            q, k, v = qkv[:, :H * D], qkv[:, H * D:H * D + KV * D], qkv[:, H * D + KV * D:]
        else:
            q = a @ w[p + "self_attn.q_proj.weight"].T
            k = a @ w[p + "self_attn.k_proj.weight"].T
            v = a @ w[p + "self_attn.v_proj.weight"].T
        q, k, v = heads(q, H, D), heads(k, KV, D), heads(v, KV, D)
        qk_norm = family in ("qwen3", "gemma3")  # q_norm / k_norm over head_dim, before RoPE
        after = BROKEN == "qk-norm-after-rope"
        if qk_norm and not after:
            q = rms_norm(q, w[p + "self_attn.q_norm.weight"], eps, gemma)
            k = rms_norm(k, w[p + "self_attn.k_norm.weight"], eps, gemma)
        q, k = rope(q, pos, base, rot), rope(k, pos, base, rot)
        if qk_norm and after:
            q = rms_norm(q, w[p + "self_attn.q_norm.weight"], eps, gemma)
            k = rms_norm(k, w[p + "self_attn.k_norm.weight"], eps, gemma)
        window = cfg.get("sliding_window") if sliding else None
        o = attention(q, k, v, scale, window, cfg.get("attn_logit_softcapping") if gemma else None)
        o = merge(o) @ w[p + "self_attn.o_proj.weight"].T
        if gemma:
            o = rms_norm(o, w[p + "post_attention_layernorm.weight"], eps, True)
        x = x + o
        norm = "pre_feedforward_layernorm" if gemma else "post_attention_layernorm"
        m = rms_norm(x, w[p + norm + ".weight"], eps, gemma)
        if family == "phi3":
            gate, up = (m @ w[p + "mlp.gate_up_proj.weight"].T).chunk(2, dim=-1)
        else:
            gate, up = m @ w[p + "mlp.gate_proj.weight"].T, m @ w[p + "mlp.up_proj.weight"].T
        m = ((gelu_tanh(gate) if gemma else silu(gate)) * up) @ w[p + "mlp.down_proj.weight"].T
        if gemma:
            m = rms_norm(m, w[p + "post_feedforward_layernorm.weight"], eps, True)
        x = x + m
    x = rms_norm(x, w["model.norm.weight"], eps, gemma)
    logits = x @ w.get("lm_head.weight", w["model.embed_tokens.weight"]).T
    cap = cfg.get("final_logit_softcapping") if gemma else None
    return cap * torch.tanh(logits / cap) if cap else logits


def forward(folder, tokens):
    with open(os.path.join(folder, "config.json")) as f:
        cfg = json.load(f)
    w, dtype = read_safetensors(os.path.join(folder, "model.safetensors"))
    arch = (cfg.get("architectures") or [cfg.get("model_type")])[0]
    family = {"GPT2LMHeadModel": "gpt2", "Qwen3ForCausalLM": "qwen3", "Gemma3ForCausalLM": "gemma3",
              "Phi3ForCausalLM": "phi3"}.get(arch)
    if family is None:
        raise SystemExit(f"{folder}: architecture {arch} is not one of this reference's four")
    tokens = torch.tensor(tokens)
    return gpt2(cfg, w, tokens) if family == "gpt2" else llama_like(cfg, w, tokens, family, dtype)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folder", help="the Hugging Face folder")
    ap.add_argument("dump", help="the folder `transformer-workbench dump --model` wrote (manifest.json, logits.npy)")
    ap.add_argument("--tol", type=float, default=1e-4, help="largest relative difference accepted")
    ap.add_argument("--break", dest="broken", choices=BREAKS,
                    help="compute this detail wrongly on purpose (the comparison should then fail)")
    args = ap.parse_args()
    global BROKEN
    BROKEN = args.broken
    with open(os.path.join(args.dump, "manifest.json")) as f:
        tokens = json.load(f)["tokens"]
    ref = forward(args.folder, tokens)
    ours = read_npy(os.path.join(args.dump, "logits.npy")).reshape(ref.shape)
    rel = float((ours - ref).abs().max() / ref.abs().max())
    print(f"max |logits_workbench - logits_pytorch| / max |logits_pytorch| = {rel:.3e} ({len(tokens)} tokens)")
    sys.exit(0 if rel <= args.tol else 1)


if __name__ == "__main__":
    main()
