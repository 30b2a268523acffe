#!/usr/bin/env bash
# The `dump` subcommand: files written, determinism, reload, and one clear line for every bad argument.
# Usage: dump_test.sh APP SOURCE_DIR WORK_DIR
set -uo pipefail
source "$(dirname "$0")/check_lib.sh"  # private config folder, fail=0, check()
app=$1 src=$2 work=$3
rm -rf "$work" && mkdir -p "$work"

# A GQA + RoPE config in Hugging Face keys (8 query heads over 4 KV heads).
cat >"$work/gqa.json" <<'JSON'
{"hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2, "num_attention_heads": 8,
 "num_key_value_heads": 4, "vocab_size": 300, "max_position_embeddings": 64, "rms_norm_eps": 1e-5,
 "rope_theta": 10000.0, "hidden_act": "silu"}
JSON
cat >"$work/small.json" <<'JSON'
{"hidden_size": 256, "intermediate_size": 768, "num_hidden_layers": 4, "num_attention_heads": 8,
 "num_key_value_heads": 4, "vocab_size": 8192, "max_position_embeddings": 256}
JSON

check text 0 "wrote 37 steps" -- "$app" dump --config "$work/gqa.json" --text "Hé, GQA!" --out "$work/a" --seed 5
for f in model.safetensors config.json manifest.json embed.npy layers.1.attn.probs.npy final_norm.npy logits.npy; do
  [ -s "$work/a/$f" ] || { echo "FAIL missing $work/a/$f"; fail=1; }
done
check manifest-step 0 '"name": "layers.0.attn.probs"' -- cat "$work/a/manifest.json"
check manifest-shape 0 '"shape": \[' -- cat "$work/a/manifest.json"
check manifest-tokens 0 '"tokens": \[' -- cat "$work/a/manifest.json"
check config-keys 0 '"num_key_value_heads": 4' -- cat "$work/a/config.json"
check tokens 0 "wrote 37 steps" -- "$app" dump --config "$work/gqa.json" --tokens 72,195,169,44 --out "$work/b" --seed 5
check same-seed-same-weights 0 "" -- cmp "$work/a/model.safetensors" "$work/b/model.safetensors"
check reload 0 "wrote" -- "$app" dump --config "$work/a/config.json" --weights "$work/a/model.safetensors" \
  --text "Hé, GQA!" --out "$work/c"
check reload-same-logits 0 "" -- cmp "$work/a/logits.npy" "$work/c/logits.npy"
"$app" dump --config "$work/gqa.json" --tokens 1,2 --out "$work/d" --seed 6 >/dev/null 2>&1
if cmp -s "$work/a/model.safetensors" "$work/d/model.safetensors"; then echo "FAIL other seed gave the same weights"; fail=1; fi

one_line_error no-config "--config FILE is required" -- "$app" dump --text hi --out "$work/x"
one_line_error no-out "--out DIR is required" -- "$app" dump --config "$work/gqa.json" --text hi
one_line_error no-input "exactly one of --text" -- "$app" dump --config "$work/gqa.json" --out "$work/x"
one_line_error both-inputs "exactly one of --text" -- "$app" dump --config "$work/gqa.json" --text hi --tokens 1 --out "$work/x"
one_line_error bad-tokens "--tokens: 'x' is not a non-negative integer" -- "$app" dump --config "$work/gqa.json" --tokens 1,x --out "$work/x"
one_line_error token-range "token 300 at position 1 is outside the vocabulary 0..299" -- "$app" dump --config "$work/gqa.json" --tokens 1,300 --out "$work/x"
one_line_error bad-seed "--seed '-1' must be a non-negative integer" -- "$app" dump --config "$work/gqa.json" --text hi --out "$work/x" --seed -1
one_line_error missing-config "cannot open" -- "$app" dump --config "$work/nope.json" --text hi --out "$work/x"
echo '{"hidden_size": 64, "num_attention_heads": 8, "num_key_value_heads": 3}' >"$work/bad.json"
one_line_error invalid-config "num_attention_heads \(8\) must be divisible by num_key_value_heads \(3\)" -- "$app" dump --config "$work/bad.json" --text hi --out "$work/x"
one_line_error mismatched-weights "has shape \(300, 64\) but this config needs \(8192, 256\)" -- \
  "$app" dump --config "$work/small.json" --weights "$work/a/model.safetensors" --text hi --out "$work/x"
head -c 1000 "$work/a/model.safetensors" >"$work/cut.safetensors"
one_line_error truncated-weights "file is truncated" -- \
  "$app" dump --config "$work/gqa.json" --weights "$work/cut.safetensors" --text hi --out "$work/x"
one_line_error grads-one-token "--grads needs at least 2 tokens" -- "$app" dump --config "$work/gqa.json" --tokens 5 --out "$work/x" --grads

# --grads: gradients of the next-token loss under the model.safetensors names, and the loss in the manifest.
check grads 0 "wrote" -- "$app" dump --config "$work/gqa.json" --text "Hé, GQA!" --out "$work/g" --seed 5 --grads
[ -s "$work/g/grads.safetensors" ] || { echo "FAIL missing $work/g/grads.safetensors"; fail=1; }
check manifest-loss 0 '"loss": [0-9]' -- cat "$work/g/manifest.json"
check grads-same-logits 0 "" -- cmp "$work/a/logits.npy" "$work/g/logits.npy"
# ALiBi + post-norm LayerNorm + GELU; QK-norm + soft-cap + 1/d_k + tied embeddings (checked in PyTorch below).
cat >"$work/alibi_post.json" <<'JSON'
{"hidden_size": 32, "intermediate_size": 48, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
 "vocab_size": 300, "max_position_embeddings": 32, "tw_positions": "alibi", "tw_norm_placement": "post",
 "tw_norm": "layernorm", "tw_activation": "gelu"}
JSON
cat >"$work/qknorm_tied.json" <<'JSON'
{"hidden_size": 32, "intermediate_size": 48, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 1,
 "vocab_size": 300, "max_position_embeddings": 32, "tw_qk_norm": true, "attn_logit_softcapping": 3.0,
 "tw_attn_scale": "1/d_k", "tie_word_embeddings": true}
JSON
"$app" dump --config "$work/alibi_post.json" --text "gradients, please" --out "$work/g2" --grads >/dev/null 2>&1 || { echo "FAIL grads alibi_post"; fail=1; }
"$app" dump --config "$work/qknorm_tied.json" --text "gradients, please" --out "$work/g3" --grads >/dev/null 2>&1 || { echo "FAIL grads qknorm_tied"; fail=1; }

one_line_error too-long "exceed the model's 64 positions \(max_seq; max_position_embeddings" -- "$app" dump --config "$work/gqa.json" --text "$(printf 'x%.0s' {1..65})" --out "$work/x"

# Half-precision and sharded checkpoints (--dtype, --shard-mb) and Hugging Face folders (--model).
cat >"$work/tied.json" <<'JSON'
{"architectures": ["LlamaForCausalLM"], "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2,
 "num_attention_heads": 8, "num_key_value_heads": 4, "vocab_size": 300, "max_position_embeddings": 64,
 "rms_norm_eps": 1e-5, "rope_theta": 10000.0, "hidden_act": "silu", "tie_word_embeddings": true}
JSON
cat >"$work/qwen2.json" <<'JSON'
{"architectures": ["Qwen2ForCausalLM"], "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2,
 "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 300, "max_position_embeddings": 64,
 "rms_norm_eps": 1e-6, "rope_theta": 1000000.0, "hidden_act": "silu", "tie_word_embeddings": false,
 "sliding_window": 4096, "use_sliding_window": false,
 "rope_scaling": {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                  "original_max_position_embeddings": 16}}
JSON
check bf16-sharded 0 "wrote 37 steps, [3-9] weight shards" -- \
  "$app" dump --config "$work/tied.json" --text "BF16, sharded, tied." --out "$work/bf16" --dtype bf16 --shard-mb 0.03
check bf16-index 0 '"weight_map"' -- cat "$work/bf16/model.safetensors.index.json"
check bf16-dtype 0 '"dtype":"BF16"' -- sh -c "head -c 300 $work/bf16/model-00001-of-0000*.safetensors | tr -d '\\000'"
check f16-qwen2 0 "wrote" -- "$app" dump --config "$work/qwen2.json" --tokens 5,17,299,0,42,7,7,7,100,3,250,19,8,64,1,2,3,4,5,6 \
  --out "$work/qwen2" --dtype f16 --seed 3
check qwen2-bias-tensors 0 'q_proj.bias' -- sh -c "head -c 3000 $work/qwen2/model.safetensors | tr -d '\\000'"
# The folder a dump wrote is a Hugging Face model folder: --model reloads it and gives the same logits.
check model-reload 0 "wrote" -- "$app" dump --model "$work/bf16" --tokens "$(/usr/bin/python3 -c "import json; print(','.join(map(str, json.load(open('$work/bf16/manifest.json'))['tokens'])))")" \
  --out "$work/bf16-again" --dtype bf16
check model-reload-same-logits 0 "" -- cmp "$work/bf16/logits.npy" "$work/bf16-again/logits.npy"
# With a tokenizer.json (byte-level BPE: 256 byte tokens, one merge "h"+"i") --text goes through it:
# "hi hi!" splits into "hi", " hi", "!" and " hi" = Ġ·h·i merges only h·i → [hi, Ġ, hi, !].
cp -r "$work/bf16" "$work/withtok"
if /usr/bin/python3 - "$work/withtok/tokenizer.json" <<'PY'
import json, sys
def bytes_to_unicode():
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAD)) + list(range(0xAE, 0x100))
    cs, n = bs[:], 0
    for b in range(256):
        if b not in bs:
            bs.append(b); cs.append(256 + n); n += 1
    return {b: chr(c) for b, c in zip(bs, cs)}
vocab = {ch: b for b, ch in bytes_to_unicode().items()}
vocab["hi"] = 256
json.dump({"model": {"type": "BPE", "vocab": vocab, "merges": ["h i"]},
           "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "use_regex": True},
           "decoder": {"type": "ByteLevel"}}, open(sys.argv[1], "w"))
PY
then
  check model-text 0 "wrote" -- "$app" dump --model "$work/withtok" --text "hi hi!" --out "$work/withtok-dump"
  check model-text-tokens 0 '"tokens": \[256, 32, 256, 33\]' -- \
    /usr/bin/python3 -c "import json; print(json.dumps({'tokens': json.load(open('$work/withtok-dump/manifest.json'))['tokens']}))"
  check model-text-labels 0 '"␣"' -- cat "$work/withtok-dump/manifest.json"
fi
one_line_error model-no-tokenizer "has no usable tokenizer.json; use --tokens" -- \
  "$app" dump --model "$work/bf16" --text hi --out "$work/x"
# The same errors with --lang zh are Chinese (a shape mismatch, a tokenizer.json naming an unknown stage, broken JSON).
one_line_error mismatched-weights-zh "的形状是 \(300, 64\)，而此配置需要 \(8192, 256\)" -- \
  "$app" --lang zh dump --config "$work/small.json" --weights "$work/a/model.safetensors" --text hi --out "$work/x"
cp -r "$work/bf16" "$work/badtok"
echo '{"model": {"type": "BPE", "vocab": {"a": 0}, "merges": []}, "pre_tokenizer": {"type": "Shredder"}}' \
  >"$work/badtok/tokenizer.json"
one_line_error model-bad-tokenizer-zh "未知的预分词器“Shredder”" -- \
  "$app" --lang zh dump --model "$work/badtok" --text hi --out "$work/x"
echo '{"hidden_size": 64,' >"$work/broken.json"
one_line_error broken-config-zh "不是有效的 JSON" -- "$app" --lang zh dump --config "$work/broken.json" --text hi --out "$work/x"
one_line_error model-and-config "leave out --config and --weights" -- \
  "$app" dump --model "$work/bf16" --config "$work/gqa.json" --tokens 1 --out "$work/x"
one_line_error model-missing "is not a folder" -- "$app" dump --model "$work/nope" --tokens 1 --out "$work/x"
one_line_error bad-dtype "--dtype 'f8' must be f32, f16 or bf16" -- \
  "$app" dump --config "$work/gqa.json" --tokens 1 --out "$work/x" --dtype f8
mkdir -p "$work/gpt2" && echo '{"architectures": ["GPTNeoXForCausalLM"]}' >"$work/gpt2/config.json"
one_line_error model-architecture "architecture 'GPTNeoXForCausalLM' is not supported \(supported: " -- \
  "$app" dump --model "$work/gpt2" --tokens 1 --out "$work/x"
# A dump that fails half-way says which of its files it left (here embed.npy cannot be written: a directory),
# and the manifest of an earlier complete dump into the same folder does not survive to describe the mix.
"$app" dump --config "$work/gqa.json" --text hi --out "$work/half" >/dev/null 2>&1
rm "$work/half/embed.npy" && mkdir -p "$work/half/embed.npy"
err=$("$app" dump --config "$work/gqa.json" --text hi --out "$work/half" 2>&1 >/dev/null); got=$?
if [ "$got" -ne 1 ] || ! grep -q "embed.npy: it is a directory; the dump in $work/half is incomplete: 2 of 40 files written (config.json, model.safetensors)" <<<"$err"; then
  echo "FAIL half-way-dump-lists-files: exit $got, stderr: $err"; fail=1
else
  echo "ok   half-way-dump-lists-files"
fi
[ ! -e "$work/half/manifest.json" ] && echo "ok   half-way-dump-has-no-manifest" || { echo "FAIL half-way dump wrote a manifest"; fail=1; }

# Bounded reads: a directory, a device or a FIFO given as a file is refused with one line (a directory's size
# used to read as LLONG_MAX and abort with bad_alloc), never a hang or an abort.
one_line_error weights-dir "$work: is a directory, not a file" -- "$app" dump --config "$work/gqa.json" --weights "$work" --text hi --out "$work/x"
one_line_error config-dir "$work: is a directory, not a file" -- "$app" dump --config "$work" --text hi --out "$work/x"
one_line_error config-dev-zero "/dev/zero: is a character device" -- "$app" dump --config /dev/zero --text hi --out "$work/x"
mkfifo "$work/fifo"
one_line_error weights-fifo "FIFO" -- timeout 10 "$app" dump --config "$work/gqa.json" --weights "$work/fifo" --text hi --out "$work/x"
# Out of memory (bad_alloc) anywhere in a subcommand ends with one line and exit 1, not SIGABRT (exit 134).
cat >"$work/big-cap.json" <<'JSON'
{"hidden_size": 1024, "intermediate_size": 4096, "num_hidden_layers": 4, "num_attention_heads": 16,
 "num_key_value_heads": 16, "vocab_size": 32000, "max_position_embeddings": 64, "tw_memory_cap_mb": 8000}
JSON
if [ "${TW_SANITIZED:-0}" = 1 ]; then
  echo "skip bad-alloc-caught: AddressSanitizer needs more address space than the limit leaves"
else
  err=$( (ulimit -v 300000; "$app" dump --config "$work/big-cap.json" --text hi --out "$work/oom") 2>&1 >/dev/null); got=$?
  # One line for the failure, after the line announcing what the run needs (and, on a loaded machine where the
  # allocation takes over a second, the once-a-second progress lines "…: step (1.0 s)").
  failure_lines=$(grep -v "this run needs about" <<<"$err" | grep -Evc ' \([0-9]+\.[0-9] s\)$' || true)
  if [ "$got" -ne 1 ] || [ "$failure_lines" -ne 1 ] || ! grep -q "dump: out of memory" <<<"$err"; then
    echo "FAIL bad-alloc-caught: exit $got (want 1), stderr: $err"; fail=1
  else
    echo "ok   bad-alloc-caught"
  fi
fi

# The dump loads in PyTorch and a hand-written PyTorch forward gives the same logits (when torch is installed).
# Under the sanitizers (TW_SANITIZED=1) the dumps run and the PyTorch comparisons are left to the Release stage:
# they re-check numbers the sanitizers do not change, and each costs seconds of importing torch.
torch_check() {  # torch_check NAME EXIT PATTERN -- command...
  if [ "${TW_SANITIZED:-0}" = 1 ]; then echo "skip $1 (Release stage)"; else check "$@"; fi
}
if /usr/bin/python3 -c "import torch, numpy" 2>/dev/null; then
  torch_check pytorch-logits 0 "max \|logits_workbench - logits_pytorch\| = [0-9.]+e-0[5-9]" -- \
    /usr/bin/python3 "$src/bench/pytorch_forward.py" "$work/a" --tol 1e-4
  # The shipped language models (assets/models/poems, quotes) through their own tokenizer.json.
  for m in poems:床前明月光，疑是地上霜。 quotes:"The cat sat on the mat."; do
    name=${m%%:*} text=${m#*:}
    [ -f "$src/assets/models/$name/model.safetensors" ] || continue
    check "shipped-$name-dump" 0 "wrote" -- "$app" dump --model "$src/assets/models/$name" --text "$text" \
      --out "$work/shipped-$name"
    torch_check "pytorch-shipped-$name" 0 "max \|logits_workbench - logits_pytorch\| = [0-9.]+e-0[5-9]" -- \
      /usr/bin/python3 "$src/bench/pytorch_forward.py" "$work/shipped-$name" --tol 1e-4
  done
  # Parallel block (use_parallel_residual): the MLP reads Norm2 of the block input, in both implementations.
  sed 's/^{/{"use_parallel_residual": true,/' "$work/gqa.json" >"$work/parallel.json"
  check parallel-dump 0 "wrote 37 steps" -- "$app" dump --config "$work/parallel.json" --text "Hé, GQA!" \
    --out "$work/parallel" --seed 5
  torch_check pytorch-parallel-block 0 "max \|logits_workbench - logits_pytorch\| = [0-9.]+e-0[5-9]" -- \
    /usr/bin/python3 "$src/bench/pytorch_forward.py" "$work/parallel" --tol 1e-4
  # Mixture of experts (Mixtral's keys) with a capacity that drops (9 tokens · top-2 over 4 experts of capacity
  # ⌈0.6 · 18 / 4⌉ = 3): router, top-k, renormalised gates and drops agree with the PyTorch reference.
  sed 's/^{/{"num_local_experts": 4, "num_experts_per_tok": 2, "tw_capacity_factor": 0.6,/' "$work/gqa.json" \
    >"$work/moe.json"
  check moe-dump 0 "wrote 39 steps" -- "$app" dump --config "$work/moe.json" --text "Hé, GQA!" --out "$work/moe" \
    --seed 5
  check moe-drops 0 "^6$" -- /usr/bin/python3 -c "import numpy; print(int(numpy.load('$work/moe/layers.0.mlp.expert_dropped.npy').sum()))"
  torch_check pytorch-moe 0 "max \|logits_workbench - logits_pytorch\| = [0-9.]+e-0[5-9]" -- \
    /usr/bin/python3 "$src/bench/pytorch_forward.py" "$work/moe" --tol 1e-4
  # BF16 + shards + tied head; F16 + Qwen2 biases + llama3 rope scaling past its trained length: the PyTorch side
  # reads the half-precision files and must agree to float32 precision of the converted weights.
  torch_check pytorch-bf16-sharded-tied 0 "max \|logits_workbench - logits_pytorch\| = [0-9.]+e-0[5-9]" -- \
    /usr/bin/python3 "$src/bench/pytorch_forward.py" "$work/bf16" --tol 1e-4
  torch_check pytorch-f16-qwen2-llama3 0 "max \|logits_workbench - logits_pytorch\| = [0-9.]+e-0[5-9]" -- \
    /usr/bin/python3 "$src/bench/pytorch_forward.py" "$work/qwen2" --tol 1e-4
  # Gradients against PyTorch autograd (float64): worst max|ours − torch| / max|torch| over every tensor.
  for g in g g2 g3; do
    torch_check "pytorch-grads-$g" 0 "worst relative gradient error over [0-9]+ tensors = [0-9.]+e-[0-9]+" -- \
      /usr/bin/python3 "$src/bench/pytorch_grads.py" "$work/$g" --tol 1e-4
  done
else
  echo "skip pytorch-logits: /usr/bin/python3 has no torch"
fi
exit $fail
