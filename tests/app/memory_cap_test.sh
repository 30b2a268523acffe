#!/usr/bin/env bash
# The memory estimate that gates configs bounds the real peak: for the largest configs a cap accepts, the peak RSS
# of `dump` (traced forward pass of max_seq tokens, every step written) stays under the estimate the app states.
# Also: a long dump prints progress on stderr. Usage: memory_cap_test.sh APP WORK_DIR
set -uo pipefail
# A private config folder: the user's saved session (and its warnings) never reaches these checks.
export XDG_CONFIG_HOME=$(mktemp -d)
trap 'rm -rf "$XDG_CONFIG_HOME"' EXIT
app=$1 work=$2
rm -rf "$work" && mkdir -p "$work"
fail=0
cap=256  # MiB: the largest accepted configs take a few seconds to run and write
if [ "${TW_SANITIZED:-0}" = 1 ]; then echo "skip: peak RSS is not meaningful under AddressSanitizer"; exit 0; fi
if [ ! -x /usr/bin/time ]; then echo "skip: /usr/bin/time not installed (Debian package 'time')"; exit 0; fi

# config NAME VALUE CAP: writes $work/NAME.json for one point of a family, VALUE being the size that grows.
config() {
  case $1 in
    # Attention maps dominate: 16 heads of (T, T) per layer; VALUE = max_seq.
    attention) echo "{\"hidden_size\": 128, \"intermediate_size\": 384, \"num_hidden_layers\": 2, \"num_attention_heads\": 16,
      \"vocab_size\": 300, \"max_position_embeddings\": $2, \"tw_memory_cap_mb\": $3}" ;;
    # Weights dominate: VALUE = vocab_size (embedding and LM head, V × C each).
    weights) echo "{\"hidden_size\": 512, \"intermediate_size\": 1536, \"num_hidden_layers\": 2, \"num_attention_heads\": 8,
      \"vocab_size\": $2, \"max_position_embeddings\": 32, \"tw_memory_cap_mb\": $3}" ;;
    # Mixture of experts: 8 experts, top-2; the experts' rows (T·k of them, hidden 2048) dominate; VALUE = max_seq.
    experts) echo "{\"hidden_size\": 128, \"intermediate_size\": 2048, \"num_hidden_layers\": 2, \"num_attention_heads\": 2,
      \"num_local_experts\": 8, \"num_experts_per_tok\": 2, \"vocab_size\": 300, \"max_position_embeddings\": $2,
      \"tw_memory_cap_mb\": $3}" ;;
  esac >"$work/$1.json"
}
# accepted NAME VALUE: the cap lets the config through (the impossible token then fails the run at once).
accepted() {
  config "$1" "$2" "$cap"
  local out; out=$("$app" dump --config "$work/$1.json" --tokens 999999999 --out "$work/none" 2>&1)
  ! grep -q "above the cap" <<<"$out"
}
# tokens N: N token ids inside every vocabulary used here.
tokens() { seq 0 $(($1 - 1)) | awk '{ printf "%s%d", (NR > 1 ? "," : ""), $1 % 250 }'; }

for family in attention weights experts; do
  lo=64 hi=1000000  # largest accepted value by bisection; 64 is always accepted, 10^6 never
  accepted $family $lo || { echo "FAIL $family: even $lo is refused"; fail=1; continue; }
  while [ $((hi - lo)) -gt 1 ]; do
    mid=$(((lo + hi) / 2))
    if accepted $family $mid; then lo=$mid; else hi=$mid; fi
  done
  config $family $lo 0.001  # a tiny cap makes the app state its estimate
  estimate=$("$app" dump --config "$work/$family.json" --tokens 1 --out "$work/none" 2>&1 | sed -n 's/.*needs about \([0-9]*\) MiB.*/\1/p')
  config $family $lo $cap
  T=$(sed -n 's/.*"max_position_embeddings": \([0-9]*\).*/\1/p' "$work/$family.json")
  start=$(date +%s.%N)
  /usr/bin/time -f %M -o "$work/$family.rss" "$app" dump --config "$work/$family.json" --tokens "$(tokens "$T")" \
    --out "$work/$family-out" >/dev/null 2>"$work/$family.err"
  status=$?
  seconds=$(echo "$(date +%s.%N) - $start" | bc)
  rss=$(($(tail -1 "$work/$family.rss") / 1024))
  if [ $status -ne 0 ] || [ -z "$estimate" ] || [ "$rss" -gt "$estimate" ] || [ "$estimate" -gt "$cap" ]; then
    echo "FAIL $family: value $lo, exit $status, peak RSS $rss MiB, estimate ${estimate:-?} MiB, cap $cap MiB; $(tail -2 "$work/$family.err")"
    fail=1
  else
    echo "ok   $family: largest accepted value $lo: peak RSS $rss MiB <= estimate $estimate MiB <= cap $cap MiB (${seconds} s)"
  fi
  # Work longer than a second says what it is doing, once a second, on stderr.
  if [ "$(echo "$seconds > 2" | bc)" = 1 ]; then
    if grep -qE "^transformer-workbench dump: .+ \([0-9]+\.[0-9] s\)$" "$work/$family.err"; then echo "ok   $family-progress"
    else echo "FAIL $family-progress: a ${seconds} s dump printed no progress: $(head -2 "$work/$family.err")"; fail=1; fi
  fi
  # Loading the checkpoint back (the weights briefly twice) stays under the estimate too.
  /usr/bin/time -f %M -o "$work/$family-load.rss" "$app" dump --config "$work/$family.json" \
    --weights "$work/$family-out/model.safetensors" --tokens "$(tokens "$T")" --out "$work/$family-out2" >/dev/null 2>&1
  status=$?
  rss=$(($(tail -1 "$work/$family-load.rss") / 1024))
  if [ $status -ne 0 ] || [ "$rss" -gt "$estimate" ]; then
    echo "FAIL $family-load: exit $status, peak RSS $rss MiB, estimate $estimate MiB"; fail=1
  else
    echo "ok   $family-load: peak RSS $rss MiB <= estimate $estimate MiB"
  fi
  rm -rf "$work/$family-out" "$work/$family-out2"
done
# [SECTION] training and --grads: the estimate bounds the peak of the largest accepted settings.
# Training (text task, logits dominate: vocab 4096): the largest batch --memory-cap accepts, found by bisection
# (an accepted run stops at once on an --out under a file), then two steps with a held-out evaluation.
python3 -c "print('the quick brown fox jumps over the lazy dog; ' * 300)" >"$work/text.txt"
: >"$work/a-file"
train_args=(--scene train-sort --set train.task=text --set "train.text_file=$work/text.txt" --set train.vocab=4096
  --set train.dim=64 --set train.layers=2 --set train.heads=4 --set train.kv_heads=4 --set train.hidden=256
  --set train.context=64 --set train.val_examples=16 --memory-cap "$cap" --format none)
train_accepted() {
  local out; out=$("$app" train "${train_args[@]}" --set "train.batch=$1" --out "$work/a-file/x" 2>&1)
  ! grep -q "above the cap" <<<"$out"
}
lo=1 hi=513
if train_accepted $lo; then
  while [ $((hi - lo)) -gt 1 ]; do mid=$(((lo + hi) / 2)); if train_accepted $mid; then lo=$mid; else hi=$mid; fi; done
  /usr/bin/time -f %M -o "$work/train.rss" "$app" train "${train_args[@]}" --set "train.batch=$lo" --steps 2 \
    --out "$work/train-out" >/dev/null 2>"$work/train.err"
  status=$?
  estimate=$(sed -n 's/.*at most \([0-9]*\) MiB.*/\1/p' "$work/train.err")
  rss=$(($(tail -1 "$work/train.rss") / 1024))
  if [ $status -ne 0 ] || [ -z "$estimate" ] || [ "$rss" -gt "$estimate" ] || [ "$estimate" -gt "$cap" ]; then
    echo "FAIL train: batch $lo, exit $status, peak RSS $rss MiB, estimate ${estimate:-?} MiB, cap $cap MiB; $(tail -2 "$work/train.err")"
    fail=1
  else
    echo "ok   train: largest accepted batch $lo: peak RSS $rss MiB <= estimate $estimate MiB <= cap $cap MiB"
  fi
else
  echo "FAIL train: even batch 1 is refused under $cap MiB"; fail=1
fi
# dump --grads: the attention family's largest accepted max_seq with the backward pass.
grads_accepted() {
  config attention "$1" "$cap"
  local out; out=$("$app" dump --config "$work/attention.json" --tokens "$(tokens "$1")" --grads --out "$work/a-file/x" 2>&1)
  ! grep -q "above the cap" <<<"$out"
}
lo=64 hi=4096
while [ $((hi - lo)) -gt 1 ]; do mid=$(((lo + hi) / 2)); if grads_accepted $mid; then lo=$mid; else hi=$mid; fi; done
# The estimate as the refusal states it: a cap just above the forward's own estimate lets the forward through and
# makes --grads say what it needs.
config attention "$lo" 0.001
forward=$("$app" dump --config "$work/attention.json" --tokens 1 --out "$work/none" 2>&1 | sed -n 's/.*needs about \([0-9]*\) MiB.*/\1/p')
config attention "$lo" "$((forward + 1))"
estimate=$("$app" dump --config "$work/attention.json" --tokens "$(tokens "$lo")" --grads --out "$work/none" 2>&1 |
  sed -n 's/.*--grads needs about \([0-9]*\) MiB.*/\1/p')
config attention "$lo" "$cap"
/usr/bin/time -f %M -o "$work/grads.rss" "$app" dump --config "$work/attention.json" --tokens "$(tokens "$lo")" --grads \
  --out "$work/grads-out" >/dev/null 2>"$work/grads.err"
status=$?
rss=$(($(tail -1 "$work/grads.rss") / 1024))
if [ $status -ne 0 ] || [ -z "$estimate" ] || [ "$rss" -gt "$estimate" ] || [ "$estimate" -gt "$cap" ]; then
  echo "FAIL grads: max_seq $lo, exit $status, peak RSS $rss MiB, estimate ${estimate:-?} MiB; $(tail -2 "$work/grads.err")"
  fail=1
else
  echo "ok   grads: largest accepted max_seq $lo: peak RSS $rss MiB <= estimate $estimate MiB <= cap $cap MiB"
fi
rm -rf "$work/train-out" "$work/grads-out"
exit $fail
