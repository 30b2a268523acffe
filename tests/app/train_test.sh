#!/usr/bin/env bash
# The `train` subcommand: files and formats, bit-for-bit determinism, the shipped checkpoints reproduce, and one
# clear line for bad input. Usage: train_test.sh APP SOURCE_DIR WORK_DIR
set -uo pipefail
app=$1 src=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
export XDG_CONFIG_HOME=$work/config OPENBLAS_NUM_THREADS=1
fail=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1: $2"; fail=1; }
one_line_error() {  # one_line_error NAME PATTERN -- command...: exit 2 and exactly one line on stderr
  local name=$1 pattern=$2; shift 3
  local err; err=$("$@" 2>&1 >/dev/null); local got=$?
  if [ "$got" -ne 2 ] || [ "$(wc -l <<<"$err")" -ne 1 ] || ! grep -qE -- "$pattern" <<<"$err"; then
    bad "$name" "exit $got (want 2), stderr: $err"
  else
    ok "$name"
  fi
}

# [SECTION] a short run: every file, the metrics header, one row per step, the last stdout line a number
"$app" train --scene train-sort --steps 30 --out "$work/a" --format csv >"$work/a.out" 2>"$work/a.err" \
  && ok train-exit-0 || bad train-exit-0 "$(tail -2 "$work/a.err")"
for f in model.safetensors config.json metrics.csv run.json scene.json train-loss.csv train-accuracy.csv \
         train-grad_norm.csv train-lr.csv train-attention.csv train-head_scores.csv; do
  [ -s "$work/a/$f" ] || bad "file-$f" "missing"
done
[ "$(head -1 "$work/a/metrics.csv")" = "step,train_loss,val_loss,accuracy,grad_norm,lr,log_z" ] && ok metrics-header \
  || bad metrics-header "$(head -1 "$work/a/metrics.csv")"
[ "$(wc -l <"$work/a/metrics.csv")" -eq 31 ] && ok metrics-rows || bad metrics-rows "$(wc -l <"$work/a/metrics.csv")"
tail -1 "$work/a.out" | grep -qE '^[0-9]+\.[0-9]+$' && ok last-line-ms || bad last-line-ms "$(tail -1 "$work/a.out")"
for k in task steps batch seq_len seconds ms_per_step_median final_accuracy; do
  grep -q "\"$k\"" "$work/a/run.json" || bad "run-json-$k" "missing"
done
grep -q '"steps": 30' "$work/a/run.json" && ok run-json-steps || bad run-json-steps "$(cat "$work/a/run.json")"
grep -q 'progress\|step 30/30' "$work/a.err" && ok progress-on-stderr || bad progress-on-stderr "$(cat "$work/a.err")"
# The loss falls within 30 steps (train loss of the last 5 steps below the first 5).
awk -F, 'NR>1 && NR<=6 {a+=$2} NR>26 {b+=$2} END {exit !(b < a)}' "$work/a/metrics.csv" && ok loss-falls \
  || bad loss-falls "$(sed -n '2p;31p' "$work/a/metrics.csv")"

# [SECTION] determinism: the same scene trains to the same bits; the written scene retrains them too
"$app" train --scene train-sort --steps 30 --out "$work/b" --format none >/dev/null 2>&1
cmp -s "$work/a/model.safetensors" "$work/b/model.safetensors" && ok same-bits || bad same-bits "weights differ"
"$app" train --scene "$work/a/scene.json" --out "$work/c" --format none >/dev/null 2>&1
cmp -s "$work/a/model.safetensors" "$work/c/model.safetensors" && ok scene-json-retrains \
  || bad scene-json-retrains "weights differ"
"$app" train --scene train-sort --steps 30 --set train.seed=2 --out "$work/d" --format none >/dev/null 2>&1
cmp -s "$work/a/model.safetensors" "$work/d/model.safetensors" && bad other-seed-differs "same weights" \
  || ok other-seed-differs

# [SECTION] shipped checkpoints retrain bit for bit (assets/models/<name>/scene.json + sha256 of model.safetensors)
# Bit for bit holds where OpenBLAS runs the same matrix kernel as the machine that made them (assets/models/KERNEL):
# another kernel sums products in another order, so its run differs in the last bits. There the retrained model
# must still reach the accuracy the shipped one has (≥ 99% on held-out prompts).
# Not under the sanitizers (TW_SANITIZED=1): the Release stage retrains every shipped model, and under
# AddressSanitizer the same steps took 4-5 minutes of CI to add nothing the trainer's unit tests (stage 2 runs
# them) do not already cover.
made_with=$(cat "$src/assets/models/KERNEL" 2>/dev/null || echo unknown)
retrain_models=("$src"/assets/models/*/)
[ "${TW_SANITIZED:-0}" = 1 ] && retrain_models=()
for m in "${retrain_models[@]}"; do
  [ -f "$m/scene.json" ] || continue
  name=$(basename "$m")
  "$app" train --scene "$m/scene.json" --out "$work/model-$name" --format none >/dev/null 2>"$work/model.err"
  kernel=$(sed -n 's/.*"blas_kernel": *"\([^"]*\)".*/\1/p' "$work/model-$name/run.json")
  if grep -q '"final_bits_per_char"' "$work/model-$name/run.json"; then
    # A language model (made with the kernel its card's run names): the same bits, or else below the bigram
    # baseline of its own tokens on the held-out text, as the shipped one is.
    want=$(sha256sum <"$m/model.safetensors" | cut -d' ' -f1)
    got=$(sha256sum <"$work/model-$name/model.safetensors" | cut -d' ' -f1)
    bpc=$(sed -n 's/.*"final_bits_per_char": *\([0-9.e-]*\).*/\1/p' "$work/model-$name/run.json")
    big=$(sed -n 's/.*"bigram_bits_per_char": *\([0-9.e-]*\).*/\1/p' "$work/model-$name/run.json" | head -1)
    if [ "$want" = "$got" ]; then
      ok "checkpoint-$name-reproduces"
    else
      echo "note: $name retrained to other bits (kernel $kernel): checking held-out bits/char against the bigram"
      awk -v a="$bpc" -v b="$big" 'BEGIN { exit !(a < b) }' && ok "checkpoint-$name-retrains-below-bigram" \
        || bad "checkpoint-$name-retrains-below-bigram" "held-out $bpc bits/char >= bigram $big"
    fi
  elif [ "$kernel" = "$made_with" ]; then
    want=$(sha256sum <"$m/model.safetensors" | cut -d' ' -f1)
    got=$(sha256sum <"$work/model-$name/model.safetensors" | cut -d' ' -f1)
    [ "$want" = "$got" ] && ok "checkpoint-$name-reproduces" || bad "checkpoint-$name-reproduces" "sha256 $got != $want"
  else
    acc=$(sed -n 's/.*"final_accuracy": *\([0-9.e-]*\).*/\1/p' "$work/model-$name/run.json")
    echo "note: kernel $kernel differs from $made_with (assets/models/KERNEL): checking accuracy, not bits"
    awk -v a="$acc" 'BEGIN { exit !(a >= 0.99) }' && ok "checkpoint-$name-retrains-to-99" \
      || bad "checkpoint-$name-retrains-to-99" "final accuracy $acc < 0.99"
  fi
done

# [SECTION] bad input: exit 2, one line naming the problem
one_line_error no-scene "--scene FILE is required" -- "$app" train --out "$work/x"
one_line_error no-out "--out DIR is required" -- "$app" train --scene train-sort
one_line_error missing-scene "nope.json" -- "$app" train --scene "$work/nope.json" --out "$work/x"
one_line_error empty-text "empty" -- "$app" train --scene train-sort --set train.task=text --out "$work/x"
printf '' >"$work/empty.txt"
one_line_error empty-text-file "empty" -- "$app" train --scene train-sort --set train.task=text \
  --set "train.text_file=$work/empty.txt" --out "$work/x"
one_line_error vocab-too-small "vocabulary of 3 tokens but the model has 2" -- "$app" train --scene train-sort \
  --set train.vocab=2 --out "$work/x"
one_line_error bad-steps "train.steps" -- "$app" train --scene train-sort --steps 0 --out "$work/x"
[ ! -e "$work/x" ] && ok rejected-writes-nothing || bad rejected-writes-nothing "$work/x exists"

# [SECTION] mixture of experts: the extra columns, run.json fields and figures; a checkpoint with another expert
# count is refused in one line; the MoE run retrains to the same bits
"$app" train --scene train-moe --steps 10 --out "$work/moe" --format csv >/dev/null 2>"$work/moe.err" \
  && ok moe-exit-0 || bad moe-exit-0 "$(tail -2 "$work/moe.err")"
[ "$(head -1 "$work/moe/metrics.csv")" = "step,train_loss,val_loss,accuracy,grad_norm,lr,log_z,balance_loss,dropped" ] \
  && ok moe-metrics-header || bad moe-metrics-header "$(head -1 "$work/moe/metrics.csv")"
for k in experts top_k active_parameters; do
  grep -q "\"$k\"" "$work/moe/run.json" || bad "moe-run-json-$k" "missing"
done
for f in train-expert_load.csv train-balance_loss.csv; do [ -s "$work/moe/$f" ] || bad "moe-file-$f" "missing"; done
grep -q '"num_local_experts": 4' "$work/moe/config.json" && ok moe-config-json || bad moe-config-json "no experts key"
"$app" train --scene train-moe --steps 10 --out "$work/moe2" --format none >/dev/null 2>&1
cmp -s "$work/moe/model.safetensors" "$work/moe2/model.safetensors" && ok moe-same-bits || bad moe-same-bits "differ"
sed 's/"num_local_experts": 4/"num_local_experts": 8/' "$work/moe/config.json" >"$work/moe/config8.json"
one_line_error moe-expert-count "checkpoint has 4 experts per layer but this config has 8 experts" -- \
  "$app" dump --config "$work/moe/config8.json" --weights "$work/moe/model.safetensors" --tokens 1,2 --out "$work/x"

# [SECTION] divergence: stops with a message, exit 1, the saved weights are finite (the last good step)
"$app" train --scene train-sort --steps 20 --set train.optimizer=sgd --set train.lr=10 --set train.clip=0 \
  --set train.attn_scale=none --set train.placement=post --out "$work/div" --format none >/dev/null 2>"$work/div.err"
code=$?
if [ "$code" -eq 1 ]; then
  grep -q "diverged" "$work/div.err" && ok divergence-message || bad divergence-message "$(cat "$work/div.err")"
  [ -s "$work/div/model.safetensors" ] && ok divergence-keeps-weights || bad divergence-keeps-weights "no model"
else
  echo "skip divergence (this setting did not diverge: exit $code)"
fi

exit $fail
