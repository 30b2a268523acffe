#!/usr/bin/python3
"""Check a `transformer-workbench dump` in PyTorch, and time PyTorch's CPU forward pass of the same model.

    transformer-workbench dump --config cfg.json --tokens 1,2,3 --out /tmp/d
    /usr/bin/python3 bench/pytorch_forward.py /tmp/d                 # compare logits and every traced step
    (F32/F16/BF16 tensors, one model.safetensors or an index + shards, Qwen2 q/k/v biases, rope_scaling)
    /usr/bin/python3 bench/pytorch_forward.py /tmp/d --time --threads 1,2 --repeat 20

The forward pass below is written by hand from the formulas in shared/design/conventions.md (no transformers
library): it reads model.safetensors and config.json exactly as a student would, runs the tokens of
manifest.json, and prints the max |difference| against the dumped logits and against every dumped step.
Needs Debian's python3-torch and python3-numpy (/usr/bin/python3).
"""
import argparse
import json
import math
import os
import struct
import sys
import time

import ctypes
import ctypes.util

import numpy as np
import torch


# [SECTION] files

def read_safetensors(path):
    """Minimal safetensors reader: 8-byte little-endian header length, JSON header, raw data. F32, F16 and BF16
    tensors are converted to float32 (BF16 is the top half of a float32, so it widens by a 16-bit shift)."""
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    buf = data[8 + n:]
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        begin, end = info["data_offsets"]
        raw = buf[begin:end]
        if info["dtype"] == "F32":
            arr = np.frombuffer(raw, dtype="<f4")
        elif info["dtype"] == "F16":
            arr = np.frombuffer(raw, dtype="<f2").astype(np.float32)
        elif info["dtype"] == "BF16":
            arr = (np.frombuffer(raw, dtype="<u2").astype(np.uint32) << 16).view(np.float32)
        else:
            raise SystemExit(f"{path}: tensor {name} has dtype {info['dtype']} (F32, F16, BF16 only)")
        tensors[name] = torch.from_numpy(arr.reshape(info["shape"]).copy())
    return tensors


def read_checkpoint(d):
    """model.safetensors, or the shards that model.safetensors.index.json names (its weight_map)."""
    index = os.path.join(d, "model.safetensors.index.json")
    if not os.path.exists(index):
        return read_safetensors(os.path.join(d, "model.safetensors")), 1
    weight_map = json.load(open(index))["weight_map"]
    tensors = {}
    shards = sorted(set(weight_map.values()))
    for shard in shards:
        for name, t in read_safetensors(os.path.join(d, shard)).items():
            if weight_map.get(name) == shard:
                tensors[name] = t
    missing = set(weight_map) - set(tensors)
    assert not missing, f"index names tensors its shards lack: {sorted(missing)[:3]}"
    return tensors, len(shards)


# [SECTION] model

def alibi_slopes(n):
    """The reference get_slopes of Press et al. (ALiBi)."""
    def power_of_2(n):
        start = 2 ** (-(2 ** -(math.log2(n) - 3)))
        return [start * start ** i for i in range(n)]
    if math.log2(n).is_integer():
        return power_of_2(n)
    p = 2 ** math.floor(math.log2(n))
    return power_of_2(p) + alibi_slopes(2 * p)[0::2][: n - p]


def read_architecture(model, cfg):
    """Sets on `model` the sizes and block choices that both reference models (this one and pytorch_train.py's)
    read from config.json: C, H, KV, D, L, eps and the tw_* keys the app writes (norm, placement, positions,
    activation), with LLaMA's defaults where a key is absent."""
    model.C = cfg["hidden_size"]
    model.H = cfg["num_attention_heads"]
    model.KV = cfg.get("num_key_value_heads", model.H)
    model.D = cfg.get("head_dim") or model.C // model.H
    model.L = cfg["num_hidden_layers"]
    model.eps = cfg["rms_norm_eps"]
    model.norm_kind = cfg.get("tw_norm", "rmsnorm")
    model.pre = cfg.get("tw_norm_placement", "pre") == "pre"
    model.parallel = bool(cfg.get("use_parallel_residual", False))  # x + Attn(Norm1(x)) + MLP(Norm2(x))
    model.positions = cfg.get("tw_positions", "rope")
    model.act = cfg.get("tw_activation", "swiglu")


class Reference:
    def __init__(self, cfg, w):
        self.cfg, self.w = cfg, w
        read_architecture(self, cfg)
        self.sliding = cfg.get("tw_attention", "full") == "sliding"
        self.window = cfg.get("sliding_window") or 0
        self.full_every = cfg.get("tw_full_every", 0)
        self.tied = cfg.get("tie_word_embeddings", False)
        self.rope_scaling = cfg.get("rope_scaling") or {}
        self.experts = cfg.get("num_local_experts", 0) or 0  # ≥ 2: Mixtral's block_sparse_moe
        self.top_k = cfg.get("num_experts_per_tok", 2)
        self.capacity_factor = cfg.get("tw_capacity_factor", 0.0) or 0.0

    def norm(self, x, prefix):
        g = self.w[prefix + ".weight"]
        if self.norm_kind == "rmsnorm":
            return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * g
        return torch.nn.functional.layer_norm(x, (self.C,), g, self.w[prefix + ".bias"], self.eps)

    def inv_freq(self, T):
        """θ_k = base^(−2k/D), then Hugging Face's rope_scaling (linear, dynamic, llama3), in float64."""
        D, base = self.D, self.cfg["rope_theta"]
        kind = self.rope_scaling.get("rope_type", self.rope_scaling.get("type", "default"))
        factor = self.rope_scaling.get("factor", 1.0)
        orig = self.rope_scaling.get("original_max_position_embeddings", self.cfg.get("max_position_embeddings"))
        if kind == "dynamic" and T > orig:
            base = base * ((factor * T / orig) - (factor - 1)) ** (D / (D - 2))
        k = torch.arange(D // 2, dtype=torch.float64)
        theta = base ** (-2.0 * k / D)
        if kind == "linear":
            theta = theta / factor
        elif kind == "llama3":
            low, high = self.rope_scaling["low_freq_factor"], self.rope_scaling["high_freq_factor"]
            wavelen = 2 * math.pi / theta
            scaled = torch.where(wavelen > orig / low, theta / factor, theta)
            smooth = (orig / wavelen - low) / (high - low)
            smoothed = (1 - smooth) * scaled / factor + smooth * scaled
            medium = ~(wavelen < orig / high) & ~(wavelen > orig / low)
            theta = torch.where(medium, smoothed, scaled)
        return theta

    def rope_tables(self, T):
        # Angles in float64, then float32 (the workbench does the same; HF forms them in float32, which differs
        # by ~1e-5 rad at position 255).
        theta = self.inv_freq(T)
        ang = torch.arange(T, dtype=torch.float64)[:, None] * theta[None, :]
        cos, sin = torch.cos(ang).float(), torch.sin(ang).float()
        return torch.cat([cos, cos], -1), torch.cat([sin, sin], -1)  # (T, D)

    @staticmethod
    def rotate_half(x):
        a, b = x.chunk(2, dim=-1)
        return torch.cat([-b, a], dim=-1)

    def mask(self, T, layer):
        i = torch.arange(T)[:, None]
        j = torch.arange(T)[None, :]
        allowed = j <= i
        if self.sliding and not (self.full_every > 0 and (layer + 1) % self.full_every == 0):
            allowed = allowed & (i - j < self.window)
        return allowed

    def ffn(self, x, p):
        """The block's MLP: (output, the step compared with the dump: mlp.hidden, or the router's probabilities)."""
        return self.moe(x, p) if self.experts >= 2 else self.mlp(x, p)

    def mlp(self, x, p):
        up = x @ self.w[p + "mlp.up_proj.weight"].T
        if self.act in ("swiglu", "geglu"):
            gate = x @ self.w[p + "mlp.gate_proj.weight"].T
            g = torch.nn.functional.silu(gate) if self.act == "swiglu" else torch.nn.functional.gelu(gate)
            hidden = g * up
        else:
            hidden = torch.relu(up) if self.act == "relu" else torch.nn.functional.gelu(up)
        return hidden @ self.w[p + "mlp.down_proj.weight"].T, hidden

    def expert(self, x, q):
        """One Mixtral expert: w1 = gate, w3 = up, w2 = down for the GLUs; w1 = up, w2 = down otherwise."""
        w = lambda n: self.w[q + n + ".weight"]
        if self.act in ("swiglu", "geglu"):
            g = x @ w("w1").T
            hidden = (torch.nn.functional.silu(g) if self.act == "swiglu" else torch.nn.functional.gelu(g)) * (x @ w("w3").T)
        else:
            up = x @ w("w1").T
            hidden = torch.relu(up) if self.act == "relu" else torch.nn.functional.gelu(up)
        return hidden @ w("w2").T

    def moe(self, x, p):
        """Softmax router, top-k, gates renormalised over the k chosen; with a capacity factor cf each expert takes
        at most ceil(cf * N * k / E) assignments, served every token's first choice before any second choice, in
        token order; a refused assignment keeps its place in the renormalisation but adds nothing."""
        N, E, k = x.shape[0], self.experts, self.top_k
        probs = torch.softmax(x @ self.w[p + "block_sparse_moe.gate.weight"].T, dim=-1)  # (N, E)
        top_p, top_i = torch.topk(probs, k, dim=-1)
        gates = top_p / top_p.sum(-1, keepdim=True)
        if self.capacity_factor > 0:
            cap, count = math.ceil(self.capacity_factor * N * k / E), [0] * E
            for j in range(k):
                for t in range(N):
                    e = int(top_i[t, j])
                    if count[e] < cap:
                        count[e] += 1
                    else:
                        gates[t, j] = 0.0
        y = torch.zeros_like(x)
        for e in range(E):
            rows = (top_i == e)  # (N, k)
            if rows.any():
                g = (gates * rows).sum(-1, keepdim=True)  # the gate of expert e for each token (0: not chosen)
                y = y + g * self.expert(x, p + f"block_sparse_moe.experts.{e}.")
        return y, probs

    def attention(self, x, p, layer, steps):
        T, H, KV, D = x.shape[0], self.H, self.KV, self.D
        def proj(name):  # x Wᵀ (+ b: Qwen2's q/k/v biases)
            y = x @ self.w[p + f"self_attn.{name}.weight"].T
            bias = self.w.get(p + f"self_attn.{name}.bias")
            return y if bias is None else y + bias
        q = proj("q_proj").view(T, H, D).transpose(0, 1)   # (H, T, D)
        k = proj("k_proj").view(T, KV, D).transpose(0, 1)  # (KV, T, D)
        v = proj("v_proj").view(T, KV, D).transpose(0, 1)
        if self.positions == "rope":
            cos, sin = self.rope_tables(T)
            q = q * cos + self.rotate_half(q) * sin
            k = k * cos + self.rotate_half(k) * sin
        rep = H // KV
        k = k.repeat_interleave(rep, dim=0)  # query head h reads KV head h // rep
        v = v.repeat_interleave(rep, dim=0)
        s = (q @ k.transpose(1, 2)) / math.sqrt(D)
        if self.positions == "alibi":
            m = torch.tensor(alibi_slopes(H), dtype=torch.float32)[:, None, None]
            dist = (torch.arange(T)[:, None] - torch.arange(T)[None, :]).clamp(min=0).float()
            s = s - m * dist
        s = s.masked_fill(~self.mask(T, layer), float("-inf"))
        prob = torch.softmax(s, dim=-1)
        o = (prob @ v).transpose(0, 1).reshape(T, H * D)
        if steps is not None:
            steps[f"layers.{layer}.attn.scores"] = s
            steps[f"layers.{layer}.attn.probs"] = prob
            steps[f"layers.{layer}.attn.out"] = o.view(T, H, D)
        return o @ self.w[p + "self_attn.o_proj.weight"].T

    def forward(self, tokens, steps=None):
        T = len(tokens)
        x = self.w["model.embed_tokens.weight"][tokens]
        if self.positions == "learned":
            x = x + self.w["model.embed_positions.weight"][:T]
        elif self.positions == "sinusoidal":
            pos = torch.arange(T, dtype=torch.float64)[:, None]
            i = torch.arange(self.C // 2, dtype=torch.float64)[None, :]
            ang = pos * 10000.0 ** (-2.0 * i / self.C)
            pe = torch.stack([torch.sin(ang), torch.cos(ang)], -1).reshape(T, self.C).float()
            x = x + pe
        for l in range(self.L):
            p = f"model.layers.{l}."
            if self.pre:
                h = x + self.attention(self.norm(x, p + "input_layernorm"), p, l, steps)
                d, hidden = self.ffn(self.norm(x if self.parallel else h, p + "post_attention_layernorm"), p)
                x = h + d
            else:
                h = self.norm(x + self.attention(x, p, l, steps), p + "input_layernorm")
                d, hidden = self.ffn(h, p)
                x = self.norm(h + d, p + "post_attention_layernorm")
            if steps is not None:
                steps[f"layers.{l}.mlp.router_probs" if self.experts >= 2 else f"layers.{l}.mlp.hidden"] = hidden
                steps[f"layers.{l}.attn.residual" if self.pre else f"layers.{l}.attn_norm"] = h
                steps[f"layers.{l}.mlp.residual" if self.pre else f"layers.{l}.mlp_norm"] = x
        if self.pre:
            x = self.norm(x, "model.norm")
        head = self.w["model.embed_tokens.weight"] if self.tied else self.w["lm_head.weight"]
        return x @ head.T


# [SECTION] threads

def set_blas_threads(n):
    """torch.set_num_threads covers PyTorch's own kernels, but Debian's torch multiplies through OpenBLAS, whose
    pthread pool has its own count (default: every core). Set both, or "1 thread" silently uses all cores."""
    for name in ("libopenblas.so.0", ctypes.util.find_library("openblas")):
        if not name:
            continue
        try:
            lib = ctypes.CDLL(name)  # already loaded by torch: the same library, not a second copy
        except OSError:
            continue
        lib.openblas_set_num_threads(n)
        return lib.openblas_get_num_threads()
    return None


# [SECTION] main

def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dump_dir")
    ap.add_argument("--time", action="store_true", help="time PyTorch's forward pass of these tokens")
    ap.add_argument("--threads", default="1", help="comma-separated thread counts for --time (default 1)")
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--tol", type=float, default=1e-3, help="exit 1 if the logits differ by more than this")
    args = ap.parse_args()

    d = args.dump_dir
    cfg = json.load(open(os.path.join(d, "config.json")))
    manifest = json.load(open(os.path.join(d, "manifest.json")))
    weights, shards = read_checkpoint(d)
    model = Reference(cfg, weights)
    tokens = torch.tensor(manifest["tokens"], dtype=torch.long)

    steps = {}
    with torch.inference_mode():
        logits = model.forward(tokens, steps)
    ours = torch.from_numpy(np.load(os.path.join(d, "logits.npy")))
    diff = (logits - ours).abs().max().item()
    print(f"config: C={model.C} L={model.L} H={model.H} KV={model.KV} V={cfg['vocab_size']} "
          f"F={cfg['intermediate_size']} positions={model.positions} norm={model.norm_kind} "
          f"{'pre' if model.pre else 'post'}-norm act={model.act}; T={len(tokens)}; "
          f"weights {manifest.get('dtype', 'F32')} in {shards} file(s), {'tied' if model.tied else 'untied'} head, "
          f"{'q/k/v biases' if any(n.endswith('q_proj.bias') for n in weights) else 'no biases'}, "
          f"rope_scaling={model.rope_scaling.get('rope_type', 'none') if model.rope_scaling else 'none'}"
          + (f", MoE E={model.experts} k={model.top_k} cf={model.capacity_factor}" if model.experts >= 2 else ""))
    print(f"max |logits_workbench - logits_pytorch| = {diff:.3e}  (logit scale: max |logit| = "
          f"{logits.abs().max().item():.3f})")
    worst_step = 0.0
    for name, value in steps.items():
        path = os.path.join(d, name + ".npy")
        if os.path.exists(path):
            dumped = torch.from_numpy(np.load(path))
            a, b = value.reshape(dumped.shape), dumped
            finite = torch.isfinite(b)
            assert torch.equal(finite, torch.isfinite(a)), f"{name}: masked cells differ"
            step_diff = (a[finite] - b[finite]).abs().max().item()
            worst_step = max(worst_step, step_diff)
    print(f"max difference over {len(steps)} intermediate steps (scores, probs, attn.out, residuals, mlp.hidden or router) = "
          f"{worst_step:.3e}")

    if args.time:
        flops = sum(s["flops"] for s in manifest["steps"])
        for threads in [int(t) for t in args.threads.split(",")]:
            torch.set_num_threads(threads)
            blas_threads = set_blas_threads(threads)
            with torch.inference_mode():
                for _ in range(3):
                    model.forward(tokens)
                times, cpu_times = [], []
                for _ in range(args.repeat):
                    t0, c0 = time.perf_counter(), time.process_time()
                    model.forward(tokens)
                    times.append(time.perf_counter() - t0)
                    cpu_times.append(time.process_time() - c0)
            best, median = min(times), sorted(times)[len(times) // 2]
            cpu = sorted(cpu_times)[len(cpu_times) // 2]
            # CPU time is the fair number on a loaded machine (Google Benchmark reports it too).
            print(f"pytorch {torch.__version__} threads={threads} (OpenBLAS {blas_threads}): median {median * 1e3:.2f} ms wall (best "
                  f"{best * 1e3:.2f} ms), median {cpu * 1e3:.2f} ms CPU, {flops / median / 1e9:.2f} GFLOP/s "
                  f"(workbench FLOP count, wall)")
    return 0 if diff <= args.tol else 1


if __name__ == "__main__":
    sys.exit(main())
