#!/usr/bin/python3
"""Time PyTorch training of the model a `transformer-workbench train` run trained, written the usual batched way.

    transformer-workbench train --scene train-sort --out /tmp/sort
    /usr/bin/python3 bench/pytorch_train.py /tmp/sort [--steps 200] [--threads 1]
    transformer-workbench train --scene train-lm-poems --out /tmp/poems
    /usr/bin/python3 bench/pytorch_train.py /tmp/poems --language   # the identical run: held-out bits/char

Reads config.json (the architecture), model.safetensors (the starting weights) and run.json (batch and sequence
length) of the run directory, then times forward + backward + AdamW steps of an nn.Module over (B, T) batches of
random tokens with a loss on the second half of each sequence, as a PyTorch user would write it (F.cross_entropy
with ignore_index, torch.optim.AdamW, clip_grad_norm_). PyTorch and OpenBLAS both get --threads threads (1 by
default, the same single core the workbench uses). Prints the median ms per step, and the workbench's median from
run.json next to it, both as wall time and as the
thread's CPU time (the fair comparison when other programs share the machine). Needs Debian's python3-torch and python3-numpy (/usr/bin/python3).
"""
import argparse
import json
import math
import os
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pytorch_forward import alibi_slopes, read_architecture, read_safetensors, set_blas_threads  # noqa: E402


class Model(torch.nn.Module):
    def __init__(self, cfg, weights):
        super().__init__()
        read_architecture(self, cfg)
        self.scale = {"1/sqrt(d_k)": 1 / math.sqrt(self.D), "none": 1.0, "1/d_k": 1.0 / self.D}[
            cfg.get("tw_attn_scale", "1/sqrt(d_k)")]
        self.qk_norm = cfg.get("tw_qk_norm", False)
        self.softcap = cfg.get("attn_logit_softcapping") or 0.0
        self.theta = cfg["rope_theta"]
        self.tied = cfg.get("tie_word_embeddings", False)
        # Every tensor of the checkpoint becomes a parameter (names with '.' are not allowed: use '/').
        self.p = torch.nn.ParameterDict({k.replace(".", "/"): torch.nn.Parameter(v.clone()) for k, v in weights.items()})
        self.dropout = 0.0      # the run's dropout probability (lm_data.json)
        self.step_seed = None   # this step's dropout seed, None when nothing is dropped (evaluation)

    def w(self, name):
        return self.p[name.replace(".", "/")]

    def norm(self, x, prefix):
        if self.norm_kind == "rmsnorm":
            return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.w(prefix + ".weight")
        return F.layer_norm(x, (self.C,), self.w(prefix + ".weight"), self.w(prefix + ".bias"), self.eps)

    def attention(self, x, p):
        B, T, _ = x.shape
        H, KV, D = self.H, self.KV, self.D
        q = F.linear(x, self.w(p + "self_attn.q_proj.weight")).view(B, T, H, D).transpose(1, 2)
        k = F.linear(x, self.w(p + "self_attn.k_proj.weight")).view(B, T, KV, D).transpose(1, 2)
        v = F.linear(x, self.w(p + "self_attn.v_proj.weight")).view(B, T, KV, D).transpose(1, 2)
        if self.positions == "rope":
            q = q * self.cos + self.rotate_half(q) * self.sin
            k = k * self.cos + self.rotate_half(k) * self.sin
        if self.qk_norm:
            q = q * torch.rsqrt(q.pow(2).mean(-1, keepdim=True) + 1e-6) * self.w(p + "self_attn.q_norm.weight")
            k = k * torch.rsqrt(k.pow(2).mean(-1, keepdim=True) + 1e-6) * self.w(p + "self_attn.k_norm.weight")
        k = k.repeat_interleave(H // KV, dim=1)
        v = v.repeat_interleave(H // KV, dim=1)
        s = (q @ k.transpose(-1, -2)) * self.scale
        if self.softcap > 0:
            s = self.softcap * torch.tanh(s / self.softcap)
        if self.positions == "alibi":
            s = s + self.alibi
        s = s.masked_fill(self.causal, float("-inf"))
        o = torch.softmax(s, dim=-1) @ v
        return F.linear(o.transpose(1, 2).reshape(B, T, H * D), self.w(p + "self_attn.o_proj.weight"))

    @staticmethod
    def rotate_half(x):
        a, b = x.chunk(2, dim=-1)
        return torch.cat([-b, a], dim=-1)

    def mlp(self, x, p):
        up = F.linear(x, self.w(p + "mlp.up_proj.weight"))
        if self.act in ("swiglu", "geglu"):
            gate = F.linear(x, self.w(p + "mlp.gate_proj.weight"))
            h = (F.silu(gate) if self.act == "swiglu" else F.gelu(gate)) * up
        else:
            h = F.relu(up) if self.act == "relu" else F.gelu(up)
        return F.linear(h, self.w(p + "mlp.down_proj.weight"))

    def prepare(self, T):
        k = torch.arange(self.D // 2, dtype=torch.float64)
        ang = torch.arange(T, dtype=torch.float64)[:, None] * (self.theta ** (-2.0 * k / self.D))[None, :]
        self.cos = torch.cat([torch.cos(ang)] * 2, -1).float()
        self.sin = torch.cat([torch.sin(ang)] * 2, -1).float()
        i, j = torch.arange(T)[:, None], torch.arange(T)[None, :]
        self.causal = j > i
        m = torch.tensor(alibi_slopes(self.H), dtype=torch.float32)[:, None, None]
        self.alibi = -m * (i - j).clamp(min=0).float()
        pos = torch.arange(T, dtype=torch.float64)[:, None]
        c = torch.arange(self.C // 2, dtype=torch.float64)[None, :]
        a = pos * 10000.0 ** (-2.0 * c / self.C)
        self.sinusoid = torch.stack([torch.sin(a), torch.cos(a)], -1).reshape(T, self.C).float()

    def drop(self, x, site):
        """Dropout of a branch output with the workbench's own masks (core/ops/dropout.cpp), so the run stays
        identical: the same elements of the same steps are dropped."""
        if self.step_seed is None or self.dropout <= 0:
            return x
        mask = dropout_mask(x.numel(), self.dropout, dropout_site_seed(self.step_seed, site))
        return x * torch.from_numpy(mask).view(x.shape)

    def forward(self, tokens):
        T = tokens.shape[1]
        x = F.embedding(tokens, self.w("model.embed_tokens.weight"))
        if self.positions == "learned":
            x = x + self.w("model.embed_positions.weight")[:T]
        elif self.positions == "sinusoidal":
            x = x + self.sinusoid
        for l in range(self.L):
            p = f"model.layers.{l}."
            if self.pre:
                h = x + self.drop(self.attention(self.norm(x, p + "input_layernorm"), p), 2 * l)
                x = h + self.drop(self.mlp(self.norm(x if self.parallel else h, p + "post_attention_layernorm"), p),
                                  2 * l + 1)
            else:
                h = self.norm(x + self.drop(self.attention(x, p), 2 * l), p + "input_layernorm")
                x = self.norm(h + self.drop(self.mlp(h, p), 2 * l + 1), p + "post_attention_layernorm")
        if self.pre:
            x = self.norm(x, "model.norm")
        head = self.w("model.embed_tokens.weight") if self.tied else self.w("lm_head.weight")
        return F.linear(x, head)


MASK64 = (1 << 64) - 1


def mix64(z):
    """SplitMix64's output function on numpy uint64 (wrapping arithmetic), as core/ops/dropout.cpp's."""
    with np.errstate(over="ignore"):
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


def dropout_site_seed(step_seed, site):
    return int(mix64(np.uint64(((step_seed * 0x9E3779B97F4A7C15) + site + 1) & MASK64)))


def dropout_mask(n, p, seed):
    """dropout_mask<float>: element i is dropped when the top 53 bits of mix64(seed + i·golden) are below p."""
    with np.errstate(over="ignore"):
        z = mix64(np.uint64(seed) + np.uint64(0x9E3779B97F4A7C15) * np.arange(n, dtype=np.uint64))
    u = (z >> np.uint64(11)).astype(np.float64) * 2.0 ** -53
    return np.where(u < p, np.float32(0), np.float32(1.0 / (1.0 - p))).astype(np.float32)


class TaskRng:
    """SplitMix64 with Lemire's multiply-shift, bit for bit core/train/tasks.h's TaskRng."""

    def __init__(self, seed):
        self.s = seed & MASK64

    def next(self):
        self.s = (self.s + 0x9E3779B97F4A7C15) & MASK64
        z = self.s
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return z ^ (z >> 31)

    def below(self, n):
        return ((self.next() >> 32) * n) >> 32


def scheduled_lr(d, step):
    """core/train/optimizer.cpp's scheduled_lr: linear warmup, then cosine to lr * min_lr_ratio."""
    peak, warm, total = d["lr"], d["warmup_steps"], d["total_steps"]
    if step < warm:
        return peak * (step + 1) / warm
    if total <= 0:
        return peak
    floor = peak * d["min_lr_ratio"]
    if step >= total or total <= warm:
        return floor
    progress = (step - warm) / (total - warm)
    return floor + 0.5 * (1.0 + math.cos(math.pi * progress)) * (peak - floor)


def heldout_bits(model, d):
    """Held-out bits per character on every non-overlapping window of the run's held-out token ids (the trainer's
    evaluation), and the number of tokens predicted."""
    held, T = d["heldout_ids"], d["context"]
    model.step_seed = None  # evaluation drops nothing
    nats, count = 0.0, 0
    with torch.no_grad():
        for s in range(0, len(held) - 1, T):
            x = torch.tensor(held[s:s + T], dtype=torch.long)
            y = torch.tensor(held[s + 1:s + T + 1], dtype=torch.long)
            n = len(y)
            x = x[:n]
            model.prepare(n)
            logits = model(x[None, :])[0]
            nats += F.cross_entropy(logits, y, reduction="sum").item()
            count += n
    return nats / math.log(2) / d["heldout_chars"], count


def evaluate_checkpoint(args, cfg):
    """A trained checkpoint (e.g. the shipped model.safetensors) on the run's held-out windows, as the trainer
    evaluates: what the identical PyTorch run is compared with."""
    d = json.load(open(os.path.join(args.run, "lm_data.json")))
    torch.set_num_threads(args.threads)
    set_blas_threads(args.threads)
    model = Model(cfg, read_safetensors(args.evaluate))
    bits, count = heldout_bits(model, d)
    print(f"{args.evaluate}: held-out {bits:.4f} bits/char ({count} tokens, {d['heldout_chars']} characters)")


def train_language(args, cfg):
    """The identical run of a language-model training: the workbench's initial weights (init.safetensors), the same
    batches (the workbench's SplitMix64 window starts over the same token ids), AdamW with the same schedule, decay
    groups and clipping, then the held-out bits per character on every non-overlapping held-out window."""
    d = json.load(open(os.path.join(args.run, "lm_data.json")))
    run = json.load(open(os.path.join(args.run, "run.json")))
    torch.set_num_threads(args.threads)
    set_blas_threads(args.threads)
    model = Model(cfg, read_safetensors(os.path.join(args.run, "init.safetensors")))
    T, B, V = d["context"], d["batch"], cfg["vocab_size"]
    model.prepare(T)

    def decayed(n):
        if n.endswith("_proj/weight") or n == "lm_head/weight":
            return True
        if "norm" in n:
            return d["decay_norms"]
        return d["decay_embeddings"]  # embed_tokens

    groups = [{"params": [p for n, p in model.p.items() if decayed(n)], "weight_decay": d["weight_decay"]},
              {"params": [p for n, p in model.p.items() if not decayed(n)], "weight_decay": 0.0}]
    opt = torch.optim.AdamW(groups, lr=d["lr"], betas=(d["beta1"], d["beta2"]), eps=d["eps"])
    ids = torch.tensor(d["train_ids"], dtype=torch.long)
    rng = TaskRng(d["seed"] ^ 0xBA7C)
    steps = args.steps_override or d["steps"]
    t0 = time.perf_counter()
    for step in range(steps):
        starts = [rng.below(len(ids) - T) for _ in range(B)]
        tokens = torch.stack([ids[s:s + T] for s in starts])
        targets = torch.stack([ids[s + 1:s + T + 1] for s in starts])
        for g in opt.param_groups:
            g["lr"] = scheduled_lr(d, step)
        model.dropout = d.get("dropout", 0.0)
        model.step_seed = ((d["seed"] << 32) + step) & MASK64  # the trainer's: (seed << 32) + step
        loss = F.cross_entropy(model(tokens).view(-1, V), targets.reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        if d["clip_norm"] > 0:
            torch.nn.utils.clip_grad_norm_(model.parameters(), d["clip_norm"])
        opt.step()
    seconds = time.perf_counter() - t0
    bits, count = heldout_bits(model, d)
    ours = run.get("final_bits_per_char")
    print(f"pytorch {torch.__version__}: {steps} steps in {seconds:.1f} s, held-out {bits:.4f} bits/char "
          f"({count} tokens, {d['heldout_chars']} characters)")
    if ours is not None and steps == d["steps"]:
        print(f"transformer-workbench (run.json): held-out {ours:.4f} bits/char -> "
              f"difference {100 * (ours - bits) / bits:+.2f}%")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("run", help="directory written by transformer-workbench train")
    ap.add_argument("--language", action="store_true",
                    help="repeat a language-model run (needs init.safetensors and lm_data.json in the run) and "
                         "compare held-out bits per character")
    ap.add_argument("--steps-override", type=int, default=0, help="--language: train this many steps instead")
    ap.add_argument("--evaluate", metavar="SAFETENSORS",
                    help="only evaluate this checkpoint on the run's held-out windows (needs lm_data.json)")
    ap.add_argument("--steps", type=int, default=200, help="timed steps (after 10 warm-up steps)")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--profile", action="store_true",
                    help="after timing, profile 20 steps with torch.profiler: the top operators by self CPU time "
                         "and the share of the matrix products (aten::mm / addmm / bmm)")
    args = ap.parse_args()
    cfg = json.load(open(os.path.join(args.run, "config.json")))
    if args.evaluate:
        evaluate_checkpoint(args, cfg)
        return
    if args.language:
        train_language(args, cfg)
        return
    run = json.load(open(os.path.join(args.run, "run.json")))
    torch.set_num_threads(args.threads)
    blas = set_blas_threads(args.threads)
    torch.manual_seed(0)
    model = Model(cfg, read_safetensors(os.path.join(args.run, "model.safetensors")))
    B, T, V = run["batch"], run["seq_len"], cfg["vocab_size"]
    model.prepare(T)
    decay = [p for n, p in model.p.items() if n.endswith("_proj/weight") or n == "lm_head/weight"]
    other = [p for n, p in model.p.items() if not (n.endswith("_proj/weight") or n == "lm_head/weight")]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.01}, {"params": other, "weight_decay": 0.0}],
                            lr=1e-3)
    language = run.get("task") == "language"

    def batch():
        tokens = torch.randint(0, V, (B, T))
        targets = torch.roll(tokens, -1, dims=1)
        if not language:
            targets[:, : T // 2 - 1] = -1  # loss on the answer half only, as the tasks do
        targets[:, -1] = -1  # a language run predicts every next token
        return tokens, targets

    def train_step(tokens, targets):
        logits = model(tokens)
        loss = F.cross_entropy(logits.view(-1, V), targets.view(-1), ignore_index=-1)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()

    times, cpu = [], []
    for step in range(10 + args.steps):
        tokens, targets = batch()
        t0, c0 = time.perf_counter(), time.thread_time()
        train_step(tokens, targets)
        if step >= 10:
            times.append(time.perf_counter() - t0)
            cpu.append(time.thread_time() - c0)
    median = sorted(times)[len(times) // 2] * 1e3
    cpu_median = sorted(cpu)[len(cpu) // 2] * 1e3
    print(f"pytorch {torch.__version__} threads={args.threads} (OpenBLAS {blas}): B={B} T={T} V={V} "
          f"L={model.L} C={model.C}: median {median:.3f} ms/step wall, {cpu_median:.3f} ms/step CPU "
          f"(forward + backward + AdamW)")
    ours, ours_cpu = run.get("ms_per_step_median"), run.get("cpu_ms_per_step_median")
    if ours:
        print(f"transformer-workbench (run.json): median {ours:.3f} ms/step wall -> {median / ours:.2f}x faster")
    if ours_cpu:
        print(f"transformer-workbench (run.json): median {ours_cpu:.3f} ms/step CPU -> {cpu_median / ours_cpu:.2f}x faster")
    if args.profile:
        profile(args, train_step, batch)


def profile(args, train_step, batch, steps=20):
    """Where PyTorch's step goes: self CPU time per operator, and the matrix products' share of it."""
    from torch.profiler import ProfilerActivity
    from torch.profiler import profile as torch_profile
    work = [batch() for _ in range(steps)]
    with torch_profile(activities=[ProfilerActivity.CPU]) as prof:
        for tokens, targets in work:
            train_step(tokens, targets)
    events = prof.key_averages()
    total = sum(e.self_cpu_time_total for e in events)
    print(f"torch.profiler, {steps} steps: {total / steps / 1e3:.3f} ms/step of operator self time")
    for e in sorted(events, key=lambda e: -e.self_cpu_time_total)[:15]:
        print(f"  {e.key:40s} {e.self_cpu_time_total / steps / 1e3:8.3f} ms/step  {e.count // steps:4d} calls/step "
              f"{100.0 * e.self_cpu_time_total / total:5.1f}%")
    gemm = sum(e.self_cpu_time_total for e in events if e.key in ("aten::mm", "aten::addmm", "aten::bmm"))
    print(f"  matrix products (aten::mm/addmm/bmm): {gemm / steps / 1e3:.3f} ms/step, "
          f"{100.0 * gemm / total:.1f}% of operator self time")


if __name__ == "__main__":
    main()
