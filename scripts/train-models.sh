#!/usr/bin/env bash
# Retrains the shipped checkpoints in assets/models/ from their presets and updates the sha256 column of
# assets/models/README.md. Run it after any change to the training numerics (ops, backward pass, optimizer,
# tasks): tests/app/train_test.sh checks that retraining reproduces the shipped files bit for bit.
#   scripts/train-models.sh build/transformer-workbench
set -euo pipefail
if [ $# -ne 1 ] || [ ! -x "$1" ]; then
  echo "usage: $0 path/to/transformer-workbench" >&2
  exit 2
fi
app=$1
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

# The language models (issue 30): trained from their scenes on the installed Debian corpora; the model card
# (README.md) is written from the run's numbers, then the run's timings are dropped like above.
for pair in poems:train-lm-poems quotes:train-lm-quotes; do
  name=${pair%%:*} scene=${pair#*:}
  dir=$root/assets/models/$name
  "$app" train --scene "$scene" --out "$dir" --format none >/dev/null
  # The identical run in PyTorch (needs python3-torch): its held-out bits per character go into the card.
  pt=$(/usr/bin/python3 "$root/bench/pytorch_train.py" "$dir" --language 2>/dev/null |
    sed -n 's/^pytorch.*held-out \([0-9.]*\) bits.*/\1/p' || true)
  /usr/bin/python3 "$root/scripts/lm-model-card.py" "$dir" "$scene" "$pt" >"$dir/README.md"
  rm -f "$dir/metrics.csv" "$dir/run.json" "$dir/init.safetensors" "$dir/lm_data.json"
  echo "$name: $(sha256sum <"$dir/model.safetensors" | cut -d' ' -f1)"
done
