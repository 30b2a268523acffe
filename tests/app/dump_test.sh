#!/usr/bin/env bash
# The `dump` subcommand: files written, determinism, reload, and one clear line for every bad argument.
# Usage: dump_test.sh APP SOURCE_DIR WORK_DIR
set -uo pipefail
app=$1 src=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
fail=0
check() {  # check NAME EXPECTED_EXIT GREP_PATTERN -- command...
  local name=$1 want=$2 pattern=$3; shift 4
  local out; out=$("$@" 2>&1); local got=$?
  if [ "$got" -ne "$want" ] || ! grep -qE -- "$pattern" <<<"$out"; then
    echo "FAIL $name: exit $got (want $want), output: $out"; fail=1
  else
    echo "ok   $name"
  fi
}
one_line_error() {  # one_line_error NAME PATTERN -- command...: exit 2 and exactly one line on stderr
  local name=$1 pattern=$2; shift 3
  local err; err=$("$@" 2>&1 >/dev/null); local got=$?
  if [ "$got" -ne 2 ] || [ "$(wc -l <<<"$err")" -ne 1 ] || ! grep -qE -- "$pattern" <<<"$err"; then
    echo "FAIL $name: exit $got (want 2), stderr: $err"; fail=1
  else
    echo "ok   $name"
  fi
}

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
one_line_error invalid-config "n_heads \(8\) must be divisible by n_kv_heads \(3\)" -- "$app" dump --config "$work/bad.json" --text hi --out "$work/x"
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

one_line_error too-long "exceed max_seq 64" -- "$app" dump --config "$work/gqa.json" --text "$(printf 'x%.0s' {1..65})" --out "$work/x"

# The dump loads in PyTorch and a hand-written PyTorch forward gives the same logits (when torch is installed).
if /usr/bin/python3 -c "import torch, numpy" 2>/dev/null; then
  check pytorch-logits 0 "max \|logits_workbench - logits_pytorch\| = [0-9.]+e-0[5-9]" -- \
    /usr/bin/python3 "$src/bench/pytorch_forward.py" "$work/a" --tol 1e-4
  # Gradients against PyTorch autograd (float64): worst max|ours − torch| / max|torch| over every tensor.
  for g in g g2 g3; do
    check "pytorch-grads-$g" 0 "worst relative gradient error over [0-9]+ tensors = [0-9.]+e-[0-9]+" -- \
      /usr/bin/python3 "$src/bench/pytorch_grads.py" "$work/$g" --tol 1e-4
  done
else
  echo "skip pytorch-logits: /usr/bin/python3 has no torch"
fi
exit $fail
