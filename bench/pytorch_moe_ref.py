#!/usr/bin/python3
"""PyTorch reference for the MoE feed-forward layer (core/ops/moe_ffn.h), the numbers tests/core/ops/test_moe_ffn.cpp
checks (MoeFfn.MatchesPyTorchReference).

    /usr/bin/python3 bench/pytorch_moe_ref.py

Written from the published formulas, not from our code: Mixtral's routing (softmax of the router logits, torch.topk,
the k weights renormalised to sum to 1, as transformers' MixtralSparseMoeBlock), Switch's capacity (⌈cf·N·k/E⌉ per
expert, first choices served before second choices, in token order; an assignment past a full expert contributes
nothing), and transformers' load_balancing_loss_func (E · Σ over the (k, E) one-hot means × the mean router
probability). SwiGLU experts: w2(silu(w1 x) ⊙ w3 x). Every tensor is filled by the formula the test uses,
amp · sin(0.7·i + 1.1·t + 0.3) over its row-major index i (t numbers the tensors), in float64; autograd gives the
gradients of loss = Σ R ⊙ y + β · balance. Prints the loss, the balance term and the gradient entries the test compares.
Needs Debian's python3-torch (/usr/bin/python3).
"""
import math

import torch
import torch.nn.functional as F

N, C, E, K, FH = 10, 6, 4, 2, 5  # tokens, channels, experts, top-k, expert hidden size
CF, BETA = 0.75, 0.37


def filled(rows, cols, t, amp):
    i = torch.arange(rows * cols, dtype=torch.float64)
    return (amp * torch.sin(0.7 * i + 1.1 * t + 0.3)).reshape(rows, cols).requires_grad_()


def main():
    torch.set_default_dtype(torch.float64)
    x = filled(N, C, 0, 1.0)
    router = filled(E, C, 1, 1.5)
    readout = filled(N, C, 2, 1.0).detach()
    w1 = [filled(FH, C, 3 + 3 * e, 0.6) for e in range(E)]  # gate
    w3 = [filled(FH, C, 4 + 3 * e, 0.6) for e in range(E)]  # up
    w2 = [filled(C, FH, 5 + 3 * e, 0.6) for e in range(E)]  # down

    probs = F.softmax(x @ router.T, dim=-1)  # (N, E)
    top_p, top_e = torch.topk(probs, K, dim=-1)  # (N, K), best first
    sorted_p = probs.detach().sort(dim=-1, descending=True).values
    margin = (sorted_p[:, K - 1] - sorted_p[:, K]).min().item()
    gates = top_p / top_p.sum(dim=-1, keepdim=True)

    capacity = math.ceil(CF * N * K / E)
    load = [0] * E
    keep = torch.zeros(N, K, dtype=torch.bool)
    for j in range(K):  # rank by rank, tokens in order
        for t in range(N):
            e = int(top_e[t, j])
            if load[e] < capacity:
                load[e] += 1
                keep[t, j] = True

    y = torch.zeros(N, C)
    for t in range(N):
        for j in range(K):
            if keep[t, j]:
                e = int(top_e[t, j])
                h = F.silu(x[t] @ w1[e].T) * (x[t] @ w3[e].T)
                y = y.index_add(0, torch.tensor([t]), (gates[t, j] * (h @ w2[e].T))[None])

    # transformers' load_balancing_loss_func for one layer, no attention mask.
    expert_mask = F.one_hot(top_e, E).double()  # (N, K, E)
    tokens_per_expert = expert_mask.mean(dim=0)  # (K, E)
    router_prob_per_expert = probs.mean(dim=0)  # (E)
    balance = (tokens_per_expert * router_prob_per_expert[None]).sum() * E

    loss = (readout * y).sum() + BETA * balance
    loss.backward()
    print(f"routing margin {margin:.3e}, capacity {capacity}, load {load}, dropped {int((~keep).sum())}")
    print(f"loss      {loss.item():.17g}")
    print(f"balance   {balance.item():.17g}")
    print(f"dx[3,2]       {x.grad[3, 2].item():.17g}")
    print(f"|dx|          {x.grad.norm().item():.17g}")
    print(f"drouter[1,4]  {router.grad[1, 4].item():.17g}")
    print(f"|drouter|     {router.grad.norm().item():.17g}")
    for e in range(E):
        print(f"|dw1[{e}]| {w1[e].grad.norm().item():.17g}  |dw3[{e}]| {w3[e].grad.norm().item():.17g}  "
              f"|dw2[{e}]| {w2[e].grad.norm().item():.17g}")


if __name__ == "__main__":
    main()
