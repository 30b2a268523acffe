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
one_line_error invalid-config "num_attention_heads \(8\) must be divisible by num_key_value_heads \(3\)" -- "$app" dump --config "$work/bad.json" --text hi --out "$work/x"
one_line_error mismatched-weights "has shape \(300, 64\) but this config needs \(8192, 256\)" -- \
  "$app" dump --config "$work/small.json" --weights "$work/a/model.safetensors" --text hi --out "$work/x"
head -c 1000 "$work/a/model.safetensors" >"$work/cut.safetensors"
one_line_error truncated-weights "file is truncated" -- \
  "$app" dump --config "$work/gqa.json" --weights "$work/cut.safetensors" --text hi --out "$work/x"
one_line_error too-long "exceed max_seq 64" -- "$app" dump --config "$work/gqa.json" --text "$(printf 'x%.0s' {1..65})" --out "$work/x"

# A dump that fails half-way says which of its files it left (here embed.npy cannot be written: a directory),
# and the manifest of an earlier complete dump into the same folder does not survive to describe the mix.
"$app" dump --config "$work/gqa.json" --text hi --out "$work/half" >/dev/null 2>&1
rm "$work/half/embed.npy" && mkdir -p "$work/half/embed.npy"
err=$("$app" dump --config "$work/gqa.json" --text hi --out "$work/half" 2>&1 >/dev/null); got=$?
if [ "$got" -ne 1 ] || ! grep -q "embed.npy: it is a directory; the dump in $work/half is incomplete: 2 of 40 files written (model.safetensors, config.json)" <<<"$err"; then
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
  if [ "$got" -ne 1 ] || [ "$(wc -l <<<"$err")" -ne 1 ] || ! grep -q "dump: out of memory" <<<"$err"; then
    echo "FAIL bad-alloc-caught: exit $got (want 1), stderr: $err"; fail=1
  else
    echo "ok   bad-alloc-caught"
  fi
fi

# The dump loads in PyTorch and a hand-written PyTorch forward gives the same logits (when torch is installed).
if /usr/bin/python3 -c "import torch, numpy" 2>/dev/null; then
  check pytorch-logits 0 "max \|logits_workbench - logits_pytorch\| = [0-9.]+e-0[5-9]" -- \
    /usr/bin/python3 "$src/bench/pytorch_forward.py" "$work/a" --tol 1e-4
else
  echo "skip pytorch-logits: /usr/bin/python3 has no torch"
fi
exit $fail
