#!/usr/bin/env bash
# Retrains the shipped checkpoints in assets/models/ from their presets and updates the sha256 column of
# assets/models/README.md. Run it after any change to the training numerics (ops, backward pass, optimizer,
# tasks): tests/app/train_test.sh checks that retraining reproduces the shipped files bit for bit.
#   scripts/train-models.sh build/transformer-workbench [CORPORA]
set -euo pipefail
if [ $# -lt 1 ] || [ $# -gt 2 ] || [ ! -x "$1" ]; then
  echo "usage: $0 path/to/transformer-workbench [CORPORA]" >&2
  exit 2
fi
app=$1 corpora=${2:-}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export OPENBLAS_NUM_THREADS=1
for name in sort induction; do
  dir=$root/assets/models/$name
  "$app" train --scene "train-$name" --out "$dir" --format none >/dev/null
  # The matrix kernel OpenBLAS picked for this CPU: the bits reproduce on machines with the same kernel.
  /usr/bin/python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['blas_kernel'])" "$dir/run.json" \
    >"$root/assets/models/KERNEL"
  rm -f "$dir/metrics.csv" "$dir/run.json"  # timings differ run to run; the model, config and scene do not
  hash=$(sha256sum <"$dir/model.safetensors" | cut -d' ' -f1)
  sed -i -E "s#^(\| \`$name/\` \|.*\| \`)[0-9a-f]{64}(\` \|)\$#\1$hash\2#" "$root/assets/models/README.md"
  echo "$name: $hash"
done

# The language models: trained from their scenes on the corpora scripts/prepare-corpora.sh CORPORA writes (the
# scene's train.text_file is relative to CORPORA), with both cores (4 steps gave the same bits with 1 and 2 threads:
# the trainer splits whole matrix products, never a sum). The card (README.md) is written from the run and from lm_card's
# numbers on the shipped held-out text; then the run's timings are dropped like above. About an hour per model.
if [ -z "$corpora" ]; then
  echo "language models: skipped (pass CORPORA, the folder scripts/prepare-corpora.sh wrote, to retrain them)"
  exit 0
fi
bin=$(dirname "$app")
for name in poems quotes; do
  dir=$root/assets/models/$name
  text=$(sed -n 's/.*"train.text_file": *"\([^"]*\)".*/\1/p' "$dir/scene.json")
  run=$(mktemp -d)
  # The run holds the corpus, its token ids and the held-out windows: about 3.5 GB, above the default 2 GB cap.
  "$app" train --scene "$dir/scene.json" --set "train.text_file=$corpora/$text" --threads 2 --memory-cap 8000 \
    --out "$run" --format none >/dev/null
  cp "$run"/{model.safetensors,config.json,tokenizer.json} "$dir/"
  cp "$corpora/$name/heldout.txt" "$dir/heldout.txt"
  cp "$corpora/$name/LICENSE" "$dir/LICENSE.text"
  flags=(--poems)
  [ "$name" = quotes ] && flags=(--english /usr/share/dict/american-english)
  "$bin/lm_card" "$dir" "$corpora/$name/train.txt" "$dir/heldout.txt" "${flags[@]}" >"$run/lm_card.json"
  # The identical run in PyTorch (needs python3-torch; as long again as ours): its held-out bits per character go
  # into the card beside this model's on the same windows, evaluated by the same PyTorch code.
  pt=$(/usr/bin/python3 "$root/bench/pytorch_train.py" "$run" --language --threads 2 2>/dev/null |
    sed -n 's/^pytorch.*held-out \([0-9.]*\) bits.*/\1/p' || true)
  ours=$(/usr/bin/python3 "$root/bench/pytorch_train.py" "$run" --evaluate "$run/model.safetensors" 2>/dev/null |
    sed -n 's/.*held-out \([0-9.]*\) bits.*/\1/p' || true)
  /usr/bin/python3 "$root/scripts/lm-model-card.py" "$run" "$name" "$run/lm_card.json" "$dir/heldout.txt" "$pt" \
    "$ours" >"$dir/README.md"
  echo "$name: $(sha256sum <"$dir/model.safetensors" | cut -d' ' -f1)"
  rm -rf "$run"
done
