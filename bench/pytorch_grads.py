#!/usr/bin/python3
"""Check `transformer-workbench dump --grads` against PyTorch autograd.

    transformer-workbench dump --config cfg.json --text "Hello" --out /tmp/d --grads
    /usr/bin/python3 bench/pytorch_grads.py /tmp/d            # compare the loss and every gradient tensor

Builds the model of bench/pytorch_forward.py (hand-written from the formulas in conventions.md, no transformers
library) from model.safetensors and config.json, extended with the attention-stability choices (scale 1/sqrt(d_k) |
none | 1/d_k, QK-norm with learned gamma, soft-cap), runs it in float64 on the tokens of manifest.json, takes the
next-token loss F.cross_entropy(logits[:-1], tokens[1:]) and its gradient by autograd, and compares it with the
dumped loss and grads.safetensors. The error of a tensor is max |ours - torch| / max |torch|; the worst over all
tensors is printed, and the exit status is 1 when it exceeds --tol.
Needs Debian's python3-torch and python3-numpy (/usr/bin/python3).
"""
import argparse
import json
import math
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pytorch_forward import Reference, alibi_slopes, read_safetensors  # noqa: E402


class TrainReference(Reference):
    """pytorch_forward's model plus attention scale modes, QK-norm and soft-cap (config keys tw_attn_scale,
    tw_qk_norm, attn_logit_softcapping)."""

    def __init__(self, cfg, w):
        super().__init__(cfg, w)
        self.scale_mode = cfg.get("tw_attn_scale", "1/sqrt(d_k)")
        self.qk_norm = cfg.get("tw_qk_norm", False)
        self.softcap = cfg.get("attn_logit_softcapping") or 0.0

    def scale(self):
        return {"1/sqrt(d_k)": 1.0 / math.sqrt(self.D), "none": 1.0, "1/d_k": 1.0 / self.D}[self.scale_mode]

    def attention(self, x, p, layer, steps):
        T, H, KV, D = x.shape[0], self.H, self.KV, self.D
        q = (x @ self.w[p + "self_attn.q_proj.weight"].T).view(T, H, D).transpose(0, 1)   # (H, T, D)
        k = (x @ self.w[p + "self_attn.k_proj.weight"].T).view(T, KV, D).transpose(0, 1)  # (KV, T, D)
        v = (x @ self.w[p + "self_attn.v_proj.weight"].T).view(T, KV, D).transpose(0, 1)
        if self.positions == "rope":
            cos, sin = self.rope_tables(T)
            q = q * cos + self.rotate_half(q) * sin
            k = k * cos + self.rotate_half(k) * sin
        if self.qk_norm:  # after RoPE, eps 1e-6, learned gamma per head dimension
            def rms(t, g):
                return t * torch.rsqrt(t.pow(2).mean(-1, keepdim=True) + 1e-6) * g
            q = rms(q, self.w[p + "self_attn.q_norm.weight"])
            k = rms(k, self.w[p + "self_attn.k_norm.weight"])
        rep = H // KV
        k = k.repeat_interleave(rep, dim=0)  # query head h reads KV head h // rep
        v = v.repeat_interleave(rep, dim=0)
        s = (q @ k.transpose(1, 2)) * self.scale()
        if self.softcap > 0:
            s = self.softcap * torch.tanh(s / self.softcap)
        if self.positions == "alibi":
            m = torch.tensor(alibi_slopes(H), dtype=s.dtype)[:, None, None]
            dist = (torch.arange(T)[:, None] - torch.arange(T)[None, :]).clamp(min=0).to(s.dtype)
            s = s - m * dist
        s = s.masked_fill(~self.mask(T, layer), float("-inf"))
        prob = torch.softmax(s, dim=-1)
        o = (prob @ v).transpose(0, 1).reshape(T, H * D)
        return o @ self.w[p + "self_attn.o_proj.weight"].T


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dump_dir")
    ap.add_argument("--tol", type=float, default=1e-3, help="exit 1 if the worst relative error exceeds this")
    args = ap.parse_args()

    d = args.dump_dir
    cfg = json.load(open(os.path.join(d, "config.json")))
    manifest = json.load(open(os.path.join(d, "manifest.json")))
    if "loss" not in manifest or not os.path.exists(os.path.join(d, "grads.safetensors")):
        print(f"{d} has no gradients: run `transformer-workbench dump ... --grads`")
        return 2
    weights = {n: t.double().requires_grad_() for n, t in read_safetensors(os.path.join(d, "model.safetensors")).items()}
    ours = read_safetensors(os.path.join(d, "grads.safetensors"))
    model = TrainReference(cfg, weights)
    tokens = torch.tensor(manifest["tokens"], dtype=torch.long)

    logits = model.forward(tokens)
    loss = torch.nn.functional.cross_entropy(logits[:-1], tokens[1:])
    loss.backward()

    loss_err = abs(loss.item() - manifest["loss"]) / abs(loss.item())
    print(f"config: C={model.C} L={model.L} H={model.H} KV={model.KV} positions={model.positions} "
          f"norm={model.norm_kind} {'pre' if model.pre else 'post'}-norm act={model.act} scale={model.scale_mode} "
          f"qk_norm={model.qk_norm} softcap={model.softcap} tied={model.tied}; T={len(tokens)}")
    print(f"loss: workbench {manifest['loss']:.9f}, pytorch {loss.item():.9f}, relative error {loss_err:.3e}")
    missing = sorted(set(weights) ^ set(ours))
    if missing:
        print(f"tensor names differ between model.safetensors and grads.safetensors: {missing}")
        return 1
    worst, worst_name = 0.0, ""
    for name, w in weights.items():
        ref = w.grad
        rel = ((ours[name].double() - ref).abs().max() / ref.abs().max().clamp(min=1e-30)).item()
        if rel > worst:
            worst, worst_name = rel, name
    print(f"worst relative gradient error over {len(weights)} tensors = {worst:.3e} ({worst_name})")
    return 0 if worst <= args.tol and loss_err <= args.tol else 1


if __name__ == "__main__":
    sys.exit(main())
