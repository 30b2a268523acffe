#!/usr/bin/python3
"""Reference numbers for tests/core/train/test_optimizer.cpp, computed by torch.optim.

The test's model (dim 4, 1 layer, 1 head, vocab 3, MLP hidden 2, ReLU, RMSNorm, no positions, untied head) has 116
parameters; visited in tensor order they are: embed 0-11 (embedding), input_layernorm 12-15 (norm), q/k/v/o 16-79
(matrices), post_attention_layernorm 80-83 (norm), up 84-91, down 92-99 (matrices), model.norm 100-103 (norm),
lm_head 104-115 (matrix). Weight i starts at 0.5·sin(0.7·i + 0.3); at step s (0-based) gradient i is
cos(1.3·i + 0.9·s)·(1 + 0.1·s). Run: /usr/bin/python3 bench/pytorch_optimizer_ref.py
"""
import math
import torch

N = 116
KINDS = ["emb"] * 12 + ["norm"] * 4 + ["mat"] * 64 + ["norm"] * 4 + ["mat"] * 16 + ["norm"] * 4 + ["mat"] * 12
PROBES = [0, 5, 13, 20, 47, 81, 99, 101, 115]


def grads(s):
    return [math.cos(1.3 * i + 0.9 * s) * (1 + 0.1 * s) for i in range(N)]


def run(make_opt, decay_kinds, lrs, clip=None):
    ps = [torch.nn.Parameter(torch.tensor([0.5 * math.sin(0.7 * i + 0.3)], dtype=torch.float32)) for i in range(N)]
    decay = [p for p, k in zip(ps, KINDS) if k in decay_kinds]
    no_decay = [p for p, k in zip(ps, KINDS) if k not in decay_kinds]
    opt = make_opt(decay, no_decay)
    norms = []
    for s, lr in enumerate(lrs):
        for g in opt.param_groups:
            g["lr"] = lr
        for p, gv in zip(ps, grads(s)):
            p.grad = torch.tensor([gv], dtype=torch.float32)
        if clip is not None:
            norms.append(float(torch.nn.utils.clip_grad_norm_(ps, clip)))
        opt.step()
    return [float(ps[i].item()) for i in PROBES], norms


def fmt(vals):
    return ", ".join("%.9g" % v for v in vals)


lrs = [0.01, 0.02, 0.015]
adamw = lambda wd: (lambda d, nd: torch.optim.AdamW([{"params": d, "weight_decay": wd},
                                                    {"params": nd, "weight_decay": 0.0}], lr=0.01))
sgd = lambda d, nd: torch.optim.SGD([{"params": d, "weight_decay": 0.05}, {"params": nd, "weight_decay": 0.0}],
                                    lr=0.01, momentum=0.9)
print("adamw_matrix_decay:", fmt(run(adamw(0.1), {"mat"}, lrs)[0]))
print("adamw_decay_all:   ", fmt(run(adamw(0.1), {"mat", "norm", "emb"}, lrs)[0]))
print("sgd_momentum:      ", fmt(run(sgd, {"mat"}, lrs)[0]))
w, norms = run(adamw(0.1), {"mat"}, lrs, clip=1.0)
print("adamw_clipped:     ", fmt(w))
print("clip_norms:        ", fmt(norms))
