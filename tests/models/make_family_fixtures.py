#!/usr/bin/python3
"""Small random-weight Hugging Face folders of the four families the workbench opens besides LLaMA:

    /usr/bin/python3 tests/models/make_family_fixtures.py OUT_DIR

writes OUT_DIR/{gpt2,qwen3,gemma3,phi3}-{f32,bf16}/ with config.json (the real keys of GPT2Config, Qwen3Config,
Gemma3TextConfig, Phi3Config) and model.safetensors (the real tensor names and layouts: GPT-2's Conv1D weights
stored (in, out) with q, k, v fused in c_attn and its attn.bias mask buffer; Phi-3's fused qkv_proj and
gate_up_proj). The sizes are tiny but every detail is on: head_dim different from hidden / heads, GQA, a sliding
window shorter than the test prompt, Gemma's layer pattern, soft-capping, partial rotary. Norm weights are drawn
around their identity so a missing "1 +" or a norm in the wrong place changes the logits. Needs numpy only.
"""
import json
import os
import struct
import sys

import numpy as np


def bf16_bits(a):
    """float32 → bfloat16 bits, rounding to nearest even (NaN is not drawn here)."""
    u = np.ascontiguousarray(a, dtype=np.float32).view(np.uint32).astype(np.uint64)
    rounded = (u + 0x7FFF + ((u >> 16) & 1)) >> 16
    return rounded.astype(np.uint16)


def write_safetensors(path, tensors, dtype):
    """tensors: name → float32 array; dtype "F32" or "BF16". Header, then the data in the given order."""
    header, blobs, offset = {}, [], 0
    for name, a in tensors.items():
        raw = (np.ascontiguousarray(a, dtype="<f4").tobytes() if dtype == "F32" else bf16_bits(a).astype("<u2").tobytes())
        header[name] = {"dtype": dtype, "shape": list(a.shape), "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    header["__metadata__"] = {"format": "pt"}
    text = json.dumps(header).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for b in blobs:
            f.write(b)


class Draw:
    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)

    def mat(self, *shape, std=None):
        std = std if std is not None else 1.0 / np.sqrt(shape[-1])
        return (self.rng.standard_normal(shape) * std).astype(np.float32)

    def vec(self, n, mean=0.0, std=0.1):
        return (mean + self.rng.standard_normal(n) * std).astype(np.float32)


def gpt2(d, prefix):
    C, L, H, V, P = 32, 2, 4, 97, 40
    F = 4 * C
    cfg = {"architectures": ["GPT2LMHeadModel"], "model_type": "gpt2", "n_embd": C, "n_layer": L, "n_head": H,
           "n_positions": P, "n_ctx": P, "n_inner": None, "vocab_size": V, "activation_function": "gelu_new",
           "layer_norm_epsilon": 1e-5, "scale_attn_weights": True, "tie_word_embeddings": True,
           "bos_token_id": 0, "eos_token_id": 0}
    t = {prefix + "wte.weight": d.mat(V, C, std=0.5), prefix + "wpe.weight": d.mat(P, C, std=0.3)}
    for i in range(L):
        h = f"{prefix}h.{i}."
        t[h + "ln_1.weight"] = d.vec(C, 1.0, 0.2)
        t[h + "ln_1.bias"] = d.vec(C)
        t[h + "attn.bias"] = np.tril(np.ones((P, P), dtype=np.float32)).reshape(1, 1, P, P)  # the mask buffer
        t[h + "attn.c_attn.weight"] = d.mat(C, 3 * C, std=C ** -0.5)  # Conv1D: (in, out)
        t[h + "attn.c_attn.bias"] = d.vec(3 * C)
        t[h + "attn.c_proj.weight"] = d.mat(C, C, std=C ** -0.5)
        t[h + "attn.c_proj.bias"] = d.vec(C)
        t[h + "ln_2.weight"] = d.vec(C, 1.0, 0.2)
        t[h + "ln_2.bias"] = d.vec(C)
        t[h + "mlp.c_fc.weight"] = d.mat(C, F, std=C ** -0.5)
        t[h + "mlp.c_fc.bias"] = d.vec(F)
        t[h + "mlp.c_proj.weight"] = d.mat(F, C, std=F ** -0.5)
        t[h + "mlp.c_proj.bias"] = d.vec(C)
    t[prefix + "ln_f.weight"] = d.vec(C, 1.0, 0.2)
    t[prefix + "ln_f.bias"] = d.vec(C)
    return cfg, t


def llama_like_layers(d, t, L, C, H, KV, D, F, extra):
    for i in range(L):
        p = f"model.layers.{i}."
        t[p + "input_layernorm.weight"] = d.vec(C, extra["norm_mean"], 0.2)
        t[p + "self_attn.q_proj.weight"] = d.mat(H * D, C)
        t[p + "self_attn.k_proj.weight"] = d.mat(KV * D, C)
        t[p + "self_attn.v_proj.weight"] = d.mat(KV * D, C)
        t[p + "self_attn.o_proj.weight"] = d.mat(C, H * D)
        if extra.get("qk_norm"):
            t[p + "self_attn.q_norm.weight"] = d.vec(D, extra["norm_mean"], 0.3)
            t[p + "self_attn.k_norm.weight"] = d.vec(D, extra["norm_mean"], 0.3)
        t[p + "post_attention_layernorm.weight"] = d.vec(C, extra["norm_mean"], 0.2)
        if extra.get("gemma"):
            t[p + "pre_feedforward_layernorm.weight"] = d.vec(C, extra["norm_mean"], 0.2)
            t[p + "post_feedforward_layernorm.weight"] = d.vec(C, extra["norm_mean"], 0.2)
        t[p + "mlp.gate_proj.weight"] = d.mat(F, C)
        t[p + "mlp.up_proj.weight"] = d.mat(F, C)
        t[p + "mlp.down_proj.weight"] = d.mat(C, F)


def qwen3(d, bf16):
    C, L, H, KV, D, F, V = 32, 2, 4, 2, 16, 64, 97
    cfg = {"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "hidden_size": C, "num_hidden_layers": L,
           "num_attention_heads": H, "num_key_value_heads": KV, "head_dim": D, "intermediate_size": F,
           "vocab_size": V, "max_position_embeddings": 64, "rms_norm_eps": 1e-6, "rope_theta": 1000000.0,
           "rope_scaling": None, "hidden_act": "silu", "attention_bias": False, "tie_word_embeddings": bf16,
           "use_sliding_window": False, "sliding_window": None, "max_window_layers": L,
           "torch_dtype": "bfloat16" if bf16 else "float32"}
    t = {"model.embed_tokens.weight": d.mat(V, C, std=1.0)}
    llama_like_layers(d, t, L, C, H, KV, D, F, {"norm_mean": 1.0, "qk_norm": True})
    t["model.norm.weight"] = d.vec(C, 1.0, 0.2)
    if not bf16:
        t["lm_head.weight"] = d.mat(V, C)
    return cfg, t


def gemma3(d, bf16):
    C, L, H, KV, D, F, V = 32, 4, 2, 1, 16, 64, 97
    cfg = {"architectures": ["Gemma3ForCausalLM"], "model_type": "gemma3_text", "hidden_size": C,
           "num_hidden_layers": L, "num_attention_heads": H, "num_key_value_heads": KV, "head_dim": D,
           "intermediate_size": F, "vocab_size": V, "max_position_embeddings": 64, "rms_norm_eps": 1e-6,
           "rope_theta": 1000000.0, "rope_local_base_freq": 10000.0, "rope_scaling": None,
           "hidden_activation": "gelu_pytorch_tanh", "query_pre_attn_scalar": 24, "sliding_window": 4,
           "final_logit_softcapping": 2.0 if bf16 else None, "attn_logit_softcapping": 1.5 if bf16 else None,
           "attention_bias": False, "tie_word_embeddings": True, "torch_dtype": "bfloat16" if bf16 else "float32"}
    if bf16:  # the newer key, a pattern other than every P-th
        cfg["layer_types"] = ["sliding_attention", "full_attention", "full_attention", "sliding_attention"]
    else:
        cfg["sliding_window_pattern"] = 3
    t = {"model.embed_tokens.weight": d.mat(V, C, std=0.3)}
    llama_like_layers(d, t, L, C, H, KV, D, F, {"norm_mean": 0.0, "qk_norm": True, "gemma": True})
    t["model.norm.weight"] = d.vec(C, 0.0, 0.2)
    return cfg, t


def phi3(d, bf16):
    C, L, H, KV, F, V = 32, 2, 4, 2, 64, 97
    D = C // H
    cfg = {"architectures": ["Phi3ForCausalLM"], "model_type": "phi3", "hidden_size": C, "num_hidden_layers": L,
           "num_attention_heads": H, "num_key_value_heads": KV, "intermediate_size": F, "vocab_size": V,
           "max_position_embeddings": 64, "original_max_position_embeddings": 64, "rms_norm_eps": 1e-5,
           "rope_theta": 10000.0, "rope_scaling": None, "partial_rotary_factor": 0.5, "sliding_window": 5,
           "hidden_act": "silu", "tie_word_embeddings": False, "torch_dtype": "bfloat16" if bf16 else "float32"}
    t = {"model.embed_tokens.weight": d.mat(V, C, std=1.0)}
    for i in range(L):
        p = f"model.layers.{i}."
        t[p + "input_layernorm.weight"] = d.vec(C, 1.0, 0.2)
        t[p + "self_attn.qkv_proj.weight"] = d.mat(H * D + 2 * KV * D, C)
        t[p + "self_attn.o_proj.weight"] = d.mat(C, H * D)
        t[p + "post_attention_layernorm.weight"] = d.vec(C, 1.0, 0.2)
        t[p + "mlp.gate_up_proj.weight"] = d.mat(2 * F, C)
        t[p + "mlp.down_proj.weight"] = d.mat(C, F)
    t["model.norm.weight"] = d.vec(C, 1.0, 0.2)
    t["lm_head.weight"] = d.mat(V, C)
    return cfg, t


def main():
    if len(sys.argv) != 2:
        raise SystemExit("usage: make_family_fixtures.py OUT_DIR")
    out = sys.argv[1]
    for seed, (name, make) in enumerate([("gpt2", gpt2), ("qwen3", qwen3), ("gemma3", gemma3), ("phi3", phi3)]):
        for bf16 in (False, True):
            d = Draw(1000 + 10 * seed + bf16)
            # GPT-2: the F32 folder uses GPT2LMHeadModel's "transformer." names, the BF16 one GPT2Model's bare ones.
            cfg, t = make(d, "" if bf16 else "transformer.") if name == "gpt2" else make(d, bf16)
            folder = os.path.join(out, f"{name}-{'bf16' if bf16 else 'f32'}")
            os.makedirs(folder, exist_ok=True)
            with open(os.path.join(folder, "config.json"), "w") as f:
                json.dump(cfg, f, indent=2)
            write_safetensors(os.path.join(folder, "model.safetensors"), t, "BF16" if bf16 else "F32")
    print(f"wrote 8 folders under {out}")


if __name__ == "__main__":
    main()
