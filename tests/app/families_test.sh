#!/usr/bin/env bash
# GPT-2, Qwen3, Gemma 3 and Phi-3 folders through `dump --model`: random-weight fixtures in each family's Hugging Face
# layout (tests/models/make_family_fixtures.py, F32 and BF16), logits against an independent PyTorch forward pass
# (bench/pytorch_families.py, when torch is installed), and one-line refusals: an unknown architecture in a folder
# and in --config, a missing tensor, an unused tensor, longrope.
# Usage: families_test.sh APP SOURCE_DIR WORK_DIR
set -uo pipefail
source "$(dirname "$0")/check_lib.sh"  # private config folder, fail=0, check()
app=$1 src=$2 work=$3
rm -rf "$work" && mkdir -p "$work"

/usr/bin/python3 "$src/tests/models/make_family_fixtures.py" "$work/fx" >/dev/null || { echo "FAIL fixtures"; exit 1; }
tokens=5,17,42,3,88,61,9,23,70,1,33,96  # 12 tokens: longer than the fixtures' sliding windows (4 and 5)
have_torch=0
/usr/bin/python3 -c "import torch, numpy" 2>/dev/null && have_torch=1
# Under the sanitizers (TW_SANITIZED=1) the fixtures are dumped and the PyTorch comparisons left to the Release
# stage: they re-check numbers the sanitizers do not change, and each costs seconds of importing torch.
[ "${TW_SANITIZED:-0}" = 1 ] && have_torch=0
for f in gpt2 qwen3 gemma3 phi3; do
  for d in f32 bf16; do
    check "dump-$f-$d" 0 "wrote [0-9]+ steps" -- "$app" dump --model "$work/fx/$f-$d" --tokens $tokens --out "$work/$f-$d"
    if [ $have_torch = 1 ]; then
      check "pytorch-$f-$d" 0 "max \|logits_workbench - logits_pytorch\| / max \|logits_pytorch\| = [0-9.]+e-(0[5-9]|[1-9][0-9])" -- \
        /usr/bin/python3 "$src/bench/pytorch_families.py" "$work/fx/$f-$d" "$work/$f-$d" --tol 1e-4
    fi
  done
done
# The comparison catches each detail done wrong: the reference breaks it on purpose (--break) and must then miss the
# workbench's logits by more than the tolerance, on the fixture where the detail is on.
if [ $have_torch = 1 ]; then
  for case in rmsnorm-without-one:gemma3-f32 qk-norm-after-rope:qwen3-f32 qk-norm-after-rope:gemma3-bf16 \
    gelu-erf:gemma3-bf16 gelu-erf:gpt2-f32 conv1d-not-transposed:gpt2-bf16 gemma-layer-pattern:gemma3-f32 \
    gemma-layer-pattern:gemma3-bf16; do
    detail=${case%%:*} fx=${case#*:}
    check "pytorch-catches-$detail-$fx" 1 "max \|logits_workbench - logits_pytorch\| / max \|logits_pytorch\| = [0-9.]+e-0[1-4]|e\+" -- \
      /usr/bin/python3 "$src/bench/pytorch_families.py" "$work/fx/$fx" "$work/$fx" --tol 1e-4 --break "$detail"
  done
fi
[ $have_torch = 1 ] || echo "skip pytorch-families: /usr/bin/python3 has no torch, or the sanitizer stage"

# The family's own steps are in the trace.
check gpt2-steps 0 '"name": "pos_embed"' -- cat "$work/gpt2-f32/manifest.json"
check gpt2-fused 0 'h.0.attn.c_attn.weight' -- cat "$work/gpt2-f32/manifest.json"
check qwen3-qk-norm 0 '"name": "layers.0.attn.q_norm"' -- cat "$work/qwen3-f32/manifest.json"
check gemma3-sandwich 0 '"name": "layers.3.mlp.post_norm"' -- cat "$work/gemma3-f32/manifest.json"
check phi3-fused 0 'mlp.gate_up_proj.weight' -- cat "$work/phi3-f32/manifest.json"
# A dump of a family writes that family's checkpoint, which opens again with the same logits.
for f in gpt2 phi3 gemma3; do
  check "rewritten-$f" 0 "wrote" -- "$app" dump --model "$work/$f-f32" --tokens $tokens --out "$work/$f-again"
  check "rewritten-$f-same-logits" 0 "" -- cmp "$work/$f-f32/logits.npy" "$work/$f-again/logits.npy"
done
check gpt2-written-layout 0 '"transformer.h.1.attn.c_attn.weight"' -- head -c 4000 "$work/gpt2-f32/model.safetensors"

# Refusals, one line each, naming what is supported or the first tensor at fault.
cp -r "$work/fx/gpt2-f32" "$work/bert"
sed -i 's/GPT2LMHeadModel/BertForMaskedLM/' "$work/bert/config.json"
one_line_error unknown-architecture-folder "architecture 'BertForMaskedLM' is not supported \(supported: .*GPT2LMHeadModel.*Gemma3ForCausalLM" -- \
  "$app" dump --model "$work/bert" --tokens 1,2 --out "$work/out-bert"
echo '{"architectures": ["T5ForConditionalGeneration"], "hidden_size": 32}' >"$work/t5.json"
one_line_error unknown-architecture-config "architecture 'T5ForConditionalGeneration' is not supported \(supported: .*Phi3ForCausalLM" -- \
  "$app" dump --config "$work/t5.json" --tokens 1,2 --out "$work/out-t5"
echo '{"model_type": "falcon", "hidden_size": 32}' >"$work/falcon.json"
one_line_error unknown-model-type-config "architecture 'falcon' is not supported" -- \
  "$app" dump --config "$work/falcon.json" --tokens 1,2 --out "$work/out-falcon"
# A GPT-2 config given to --config runs as GPT-2 (seeded weights), not as a LLaMA.
check gpt2-config 0 "wrote" -- "$app" dump --config "$work/fx/gpt2-f32/config.json" --tokens 1,2,3 --out "$work/gpt2-config"
check gpt2-config-layernorm 0 '"title": "Attention LayerNorm"' -- cat "$work/gpt2-config/manifest.json"
/usr/bin/python3 - "$work" <<'PY'
import json, struct, sys, shutil
work = sys.argv[1]
def edit(src, dst, drop=None, add=None):
    shutil.copytree(src, dst)
    path = dst + "/model.safetensors"
    data = open(path, "rb").read()
    n = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8:8 + n]); body = data[8 + n:]
    if drop:  # the remaining tensors packed again: a hole in the data buffer is refused before any name is read
        del header[drop]
        packed = b""
        for k, v in sorted((kv for kv in header.items() if kv[0] != "__metadata__"), key=lambda kv: kv[1]["data_offsets"][0]):
            a, b = v["data_offsets"]
            v["data_offsets"] = [len(packed), len(packed) + b - a]
            packed += body[a:b]
        body = packed
    if add:
        end = max(v["data_offsets"][1] for k, v in header.items() if k != "__metadata__")
        header[add] = {"dtype": "F32", "shape": [2], "data_offsets": [end, end + 8]}
        body = body[:end] + b"\0" * 8
    text = json.dumps(header).encode(); text += b" " * ((8 - len(text) % 8) % 8)
    open(path, "wb").write(struct.pack("<Q", len(text)) + text + body)
edit(work + "/fx/gpt2-f32", work + "/missing", drop="transformer.h.1.ln_2.bias")
edit(work + "/fx/qwen3-f32", work + "/unused", add="model.layers.0.self_attn.o_proj.bias")
shutil.copytree(work + "/fx/phi3-f32", work + "/longrope")
c = json.load(open(work + "/longrope/config.json"))
c["rope_scaling"] = {"type": "longrope", "short_factor": [1.0] * 2, "long_factor": [1.0] * 2}
json.dump(c, open(work + "/longrope/config.json", "w"))
PY
one_line_error missing-tensor "no tensor 'transformer.h.1.ln_2.bias'" -- \
  "$app" dump --model "$work/missing" --tokens 1,2 --out "$work/out-missing"
one_line_error unused-tensor "tensor 'model.layers.0.self_attn.o_proj.bias' that a Qwen3ForCausalLM" -- \
  "$app" dump --model "$work/unused" --tokens 1,2 --out "$work/out-unused"
one_line_error longrope "rope_scaling 'longrope'.*not supported for Phi3ForCausalLM" -- \
  "$app" dump --model "$work/longrope" --tokens 1,2 --out "$work/out-longrope"
exit $fail
