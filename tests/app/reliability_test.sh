#!/usr/bin/env bash
# Hostile inputs through the real executable: deep nesting, FIFOs, /dev/zero, huge files, killed writes, bad numbers.
# Every case must end in bounded time with exit 2 (or the stated code) and one line naming the problem; nothing may
# crash (139/134), hang (timeout's 124) or read without bound. Usage: reliability_test.sh APP WORK_DIR
set -uo pipefail
source "$(dirname "$0")/check_lib.sh"
app=$1 work=$2
rm -rf "$work" && mkdir -p "$work"
T="timeout -k 5 20"  # a hang fails the check (exit 124) instead of the whole suite
# A 1 GiB address-space limit proves a refusal happens before a big read; AddressSanitizer reserves terabytes of
# shadow memory and cannot start under it, so the sanitizer stage checks the refusal and its message only.
VLIMIT="ulimit -v 1048576;"
if [ "${TW_SANITIZED:-0}" = 1 ]; then VLIMIT=""; fi

one_line_error() {  # one_line_error NAME PATTERN -- command...: exit 2 and exactly one line on stderr
  local name=$1 pattern=$2; shift 3
  local err; err=$("$@" 2>&1 >/dev/null); local got=$?
  if [ "$got" -ne 2 ] || [ "$(wc -l <<<"$err")" -ne 1 ] || ! grep -qE -- "$pattern" <<<"$err"; then
    echo "FAIL $name: exit $got (want 2), stderr: $(head -c 600 <<<"$err")"; fail=1
  else
    echo "ok   $name"
  fi
}
nested() { python3 -c "import sys; n=int(sys.argv[1]); sys.stdout.write('['*n + ']'*n)" "$1"; }

# A small Hugging Face folder to break in different ways.
cat >"$work/small.json" <<'JSON'
{"architectures": ["LlamaForCausalLM"], "hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1,
 "num_attention_heads": 4, "vocab_size": 300, "max_position_embeddings": 32, "rms_norm_eps": 1e-5,
 "hidden_act": "silu", "tie_word_embeddings": false}
JSON
"$app" dump --config "$work/small.json" --tokens 1,2,3 --out "$work/model" >/dev/null 2>&1 ||
  { echo "FAIL setup: dump of the small model"; exit 1; }
fresh_model() { rm -rf "$work/$1" && cp -r "$work/model" "$work/$1"; }

# [SECTION] 1. deep nesting in every JSON: refused while parsing, never a stack overflow
fresh_model deep
{ printf '{"x": '; nested 60000; printf ', '; tail -c +2 "$work/model/config.json"; } >"$work/deep/config.json"
one_line_error deep-config-dump "nests deeper than" -- $T "$app" dump --model "$work/deep" --tokens 1 --out "$work/x"
check deep-config-export 1 "config.json: nests deeper than" -- $T "$app" export --scene forward --set forward.model=folder \
  --set "forward.model_dir=$work/deep" --out "$work/x" --format csv
one_line_error deep-set-export "nests deeper than" -- $T "$app" export --scene softmax --set "softmax.d_k=$(nested 60000)" \
  --out "$work/x"
one_line_error deep-set-train "nests deeper than" -- $T "$app" train --scene train-sort --set "train.seed=$(nested 60000)" \
  --out "$work/x"
fresh_model deeptok
nested 60000 >"$work/deeptok/tokenizer.json"
check deep-tokenizer 2 "tokenizer.json: nests deeper than" -- $T "$app" dump --model "$work/deeptok" --text hi --out "$work/x"
nested 60000 >"$work/deep-scene.json"
one_line_error deep-scene "nests deeper than" -- $T "$app" export --scene "$work/deep-scene.json" --out "$work/x"
fresh_model deepidx
mv "$work/deepidx/model.safetensors" "$work/deepidx/model-00001-of-00001.safetensors"
{ printf '{"weight_map": '; nested 60000; printf '}'; } >"$work/deepidx/model.safetensors.index.json"
one_line_error deep-index "weight_map" -- $T "$app" dump --model "$work/deepidx" --tokens 1 --out "$work/x"
# A safetensors header nested deeply (the header length says how much JSON follows).
python3 - "$work/deep.safetensors" <<'PY'
import struct, sys
h = b'{"a": ' + b'[' * 60000 + b']' * 60000 + b'}'
open(sys.argv[1], 'wb').write(struct.pack('<Q', len(h)) + h)
PY
one_line_error deep-safetensors-header "nests deeper than" -- \
  $T "$app" dump --config "$work/small.json" --weights "$work/deep.safetensors" --tokens 1 --out "$work/x"
# The GUI's session and export settings: a deep file is kept aside, the GUI starts (checked in the GUI soak's setup
# for the window; here the session path through the same parser): a session is a scene file.
mkdir -p "$XDG_CONFIG_HOME/transformer-workbench"

# [SECTION] 3. FIFOs and devices named as user files: refused at once, never waited on
fresh_model fifo
rm "$work/fifo/model.safetensors" && mkfifo "$work/fifo/model.safetensors"
one_line_error fifo-safetensors "FIFO" -- $T "$app" dump --model "$work/fifo" --tokens 1 --out "$work/x"
one_line_error fifo-weights "FIFO" -- \
  $T "$app" dump --config "$work/small.json" --weights "$work/fifo/model.safetensors" --tokens 1 --out "$work/x"
fresh_model fifoshard
mv "$work/fifoshard/model.safetensors" "$work/fifoshard/model-00001-of-00002.safetensors"
mkfifo "$work/fifoshard/model-00002-of-00002.safetensors"
python3 - "$work/fifoshard" <<'PY'
import json, struct, sys
d = sys.argv[1]
raw = open(d + '/model-00001-of-00002.safetensors', 'rb').read()
n = struct.unpack('<Q', raw[:8])[0]
names = [k for k in json.loads(raw[8:8 + n]) if k != '__metadata__']
wm = {k: 'model-00001-of-00002.safetensors' for k in names}
wm['model.norm.weight'] = 'model-00002-of-00002.safetensors'
json.dump({'weight_map': wm}, open(d + '/model.safetensors.index.json', 'w'))
PY
one_line_error fifo-shard "FIFO" -- $T "$app" dump --model "$work/fifoshard" --tokens 1 --out "$work/x"
fresh_model fifotok
mkfifo "$work/fifotok/tokenizer.json"
check fifo-tokenizer 2 "tokenizer.json: is a FIFO" -- $T "$app" dump --model "$work/fifotok" --text hi --out "$work/x"
mkfifo "$work/fifo.txt"
check fifo-tokenizers-file 1 "fifo.txt: is a FIFO" -- $T "$app" export --scene tokenizers \
  --set "tokenizers.file=$work/fifo.txt" --out "$work/x" --format csv

# [SECTION] 4. bounded reads: /dev/zero, and files over their cap refused before reading
fresh_model zerotok
ln -s /dev/zero "$work/zerotok/tokenizer.json"
check zero-tokenizer 2 "tokenizer.json: is a character device" -- \
  $T "$app" dump --model "$work/zerotok" --text hi --out "$work/x"
fresh_model bigtok
truncate -s 200M "$work/bigtok/tokenizer.json"  # sparse: costs no disk
check big-tokenizer 2 "larger than the 64 MiB" -- sh -c "$VLIMIT"' exec "$@"' - $T "$app" dump --model "$work/bigtok" --text hi --out "$work/x"
truncate -s 3G "$work/big.txt"
# Refused by its size before a byte is read: under a 1 GiB address-space limit a full read could not even start.
check big-tokenizers-file 1 "larger than the 256 KiB" -- sh -c "$VLIMIT exec $T '$app' export \
  --scene tokenizers --set 'tokenizers.file=$work/big.txt' --out '$work/x' --format csv"
check zero-tokenizers-file 1 "/dev/zero: is a character device" -- $T "$app" export --scene tokenizers \
  --set "tokenizers.file=/dev/zero" --out "$work/x" --format csv
rm -f "$work/big.txt"

# [SECTION] 9. shards of two writes: a sharded folder, then one shard from another dump of the same shapes
"$app" dump --config "$work/small.json" --tokens 1 --out "$work/sh1" --shard-mb 0.01 --seed 1 >/dev/null 2>&1
"$app" dump --config "$work/small.json" --tokens 1 --out "$work/sh2" --shard-mb 0.01 --seed 2 >/dev/null 2>&1
check sharded-loads 0 "wrote" -- $T "$app" dump --model "$work/sh1" --tokens 1 --out "$work/x-sh"
cp "$work/sh2/model-00002-of-"*.safetensors "$work/sh1/"  # as a re-dump killed after its second shard
one_line_error mixed-shards "belongs to another write" -- $T "$app" dump --model "$work/sh1" --tokens 1 --out "$work/x-sh"

# [SECTION] 10. --shard-mb beyond range, and a dump into the folder it reads
for v in inf 1e300 nan; do
  one_line_error "shard-mb-$v" "shard-mb must be 0 \(one file\) or a size in MB up to" -- \
    $T "$app" dump --config "$work/small.json" --tokens 1 --out "$work/x" --shard-mb "$v"
done
fresh_model self
one_line_error dump-into-its-model "is the folder the model is read from" -- \
  $T "$app" dump --model "$work/self" --tokens 1,2 --out "$work/self"
cmp -s "$work/self/model.safetensors" "$work/model/model.safetensors" || { echo "FAIL dump-into-its-model: weights changed"; fail=1; }
one_line_error dump-into-its-weights "is the folder the model is read from" -- \
  $T "$app" dump --config "$work/small.json" --weights "$work/self/model.safetensors" --tokens 1 --out "$work/self/."

# [SECTION] 6. --weights of the wrong model: names checked from the header before 2 GiB of F16 are read
python3 - "$work/wrong.safetensors" <<'PY'
import json, struct, sys
n = 1 << 30  # F16 values: 2 GiB of data, sparse on disk
h = json.dumps({"wrong.name": {"dtype": "F16", "shape": [n], "data_offsets": [0, 2 * n]}}).encode()
with open(sys.argv[1], "wb") as f:
    f.write(struct.pack("<Q", len(h)) + h)
    f.truncate(8 + len(h) + 2 * n)
PY
one_line_error weights-names-first "no tensor 'model.embed_tokens.weight'" -- sh -c "$VLIMIT"' exec "$@"' - \
  $T "$app" dump --config "$work/small.json" --weights "$work/wrong.safetensors" --tokens 1 --out "$work/x"
rm -f "$work/wrong.safetensors"

# [SECTION] 12. clear messages: bad arguments exit 2; thousands of unknown keys give 20 warnings and a count
for args in "--frames -1" "--width 5" "--no-such-option" "--theme pink"; do
  check "bad-argument-exit-2 $args" 2 "" -- $T "$app" $args
done
python3 -c "import json; print(json.dumps({'version': 1, 'open': ['softmax'], 'values': {'softmax.x%d' % i: 1 for i in range(5000)}}))" >"$work/many-unknown.json"
check many-unknown-keys-summarised 0 "and 4980 more warnings" -- $T "$app" export --scene "$work/many-unknown.json" \
  --out "$work/x-many" --format csv
[ "$("$app" export --scene "$work/many-unknown.json" --out "$work/x-many" --format csv 2>&1 | wc -l)" -le 30 ] ||
  { echo "FAIL many-unknown-keys-lines"; fail=1; }

# Integer lists as the --set help says, comma-separated (or one integer, or JSON).
for v in "8,16,32" "64" "[8,16]"; do
  check "set-int-list $v" 0 "norms" -- $T "$app" export --scene norms --set "norms.dims=$v" --out "$work/x-dims" --format csv
done
one_line_error set-int-list-bad "expected an array of integers" -- $T "$app" export --scene norms \
  --set "norms.dims=8,x" --out "$work/x-dims" --format csv
# A NUL inside a key is shown as ␀ and the message goes on to its end.
printf '{"version": 1, "open": ["softmax"], "values": {"softmax.d\\u0000k": 1}}' >"$work/nul-key.json"
check nul-key-whole 0 "unknown key 'softmax.d␀k' ignored" -- $T "$app" export --scene "$work/nul-key.json" \
  --out "$work/x-nul" --format csv
# Too many tokens: the message names the config key that sets the limit.
one_line_error too-long-names-key "exceed the model's 32 positions \(max_seq; max_position_embeddings" -- \
  $T "$app" dump --model "$work/model" --tokens "$(seq -s, 1 40)" --out "$work/x"
# A text the tokenizer drops whole (no <unk>, no byte fallback) is named as such, not "the input is empty".
fresh_model droptok
python3 -c "import json; print(json.dumps({'model': {'type': 'BPE', 'vocab': {'a': 0, 'b': 1}, 'merges': []}}))" \
  >"$work/droptok/tokenizer.json"
one_line_error dropped-text "turned the text \(3 characters\) into no tokens" -- \
  $T "$app" dump --model "$work/droptok" --text "注意力" --out "$work/x"

# [SECTION] 8. train: --out checked before the first step, partial files cleaned, run.json last and required
: >"$work/a-file"
one_line_error train-unwritable-out "cannot create" -- $T "$app" train --scene train-sort --steps 100000 \
  --out "$work/a-file/out" --format none
mkdir -p "$work/tr" && : >"$work/tr/.model.safetensors.tw-partial-999999999-1"
check train-cleans-partials 0 "removed 1 temporary file left by an interrupted run" -- \
  $T "$app" train --scene train-sort --steps 2 --set train.activation=swiglu --set train.positions=rope \
  --out "$work/tr" --format none
[ -e "$work/tr/.model.safetensors.tw-partial-999999999-1" ] && { echo "FAIL train-partial-left"; fail=1; }
check train-run-json-written 0 '"steps": 2' -- cat "$work/tr/run.json"
check train-folder-loads 0 "wrote" -- $T "$app" dump --model "$work/tr" --tokens 1,2 --out "$work/x-tr"
rm "$work/tr/run.json"  # as a run killed after writing its model and before run.json leaves it
one_line_error train-folder-without-run-json "did not finish" -- $T "$app" dump --model "$work/tr" --tokens 1,2 \
  --out "$work/x-tr"

# [SECTION] 13. issue 45: tokenizer.json components, lesson files, long headless work, memory caps. Each case ends
# within 10 s (T10) with a clear line or the right result.
T10="timeout -k 2 10"
tok_model() {  # tok_model NAME PARTS_JSON: the small model with a byte-level tokenizer.json, PARTS_JSON's keys replaced
  fresh_model "$1"
  python3 - "$work/$1/tokenizer.json" "$2" <<'PY'
import json, sys
parts = json.load(open(sys.argv[2][1:])) if sys.argv[2].startswith("@") else json.loads(sys.argv[2])  # @FILE: too long for argv
bs = list(range(33, 127)) + list(range(161, 173)) + list(range(174, 256))
cs, n = bs[:], 0
for b in range(256):
    if b not in bs: bs.append(b); cs.append(256 + n); n += 1
alphabet = {b: chr(c) for b, c in zip(bs, cs)}
j = {"model": {"type": "BPE", "vocab": {alphabet[b]: b for b in range(256)}, "merges": []},
     "added_tokens": [{"id": 256, "content": "<|endoftext|>", "special": True}],
     "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "use_regex": False},
     "decoder": {"type": "ByteLevel"}}
j.update(parts)
json.dump(j, open(sys.argv[1], "w"))
PY
}
tok_model gpt2tok '{}'
check special-token-typed-as-text 0 "wrote" -- $T10 "$app" dump --model "$work/gpt2tok" --text "<|endoftext|>" --out "$work/x-eot"
check special-token-id 0 '"tokens": \[[[:space:]]*256[[:space:]]*\]' -- python3 -c \
  "import json,sys; print(json.dumps({'tokens': json.load(open(sys.argv[1]))['tokens']}))" "$work/x-eot/manifest.json"
tok_model regextok '{"pre_tokenizer": {"type": "Sequence", "pretokenizers": [{"type": "Split", "pattern": {"Regex":
  "(a+)+$"}, "behavior": "Isolated"}, {"type": "ByteLevel", "add_prefix_space": false, "use_regex": false}]}}'
one_line_error catastrophic-split "pre-tokenizer Split: the regular expression '\(a\+\)\+\\$' ran past its time limit" -- \
  $T10 "$app" dump --model "$work/regextok" --text "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab" --out "$work/x"
# What the catastrophic pattern does to the panels that use a tokenizer.json: named, never silent or swapped.
check tokenizers-file-refused 1 "tokenizers: tokenizer.json not shown: .*ran past its time limit" -- \
  $T10 "$app" export --scene tokenizers --set "tokenizers.tokenizer_json=$work/regextok/tokenizer.json" \
  --set "tokenizers.sentence=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab" --out "$work/x-tok" --format csv
check tokenizers-file-missing 1 "tokenizers: tokenizer.json not shown: .*no-such/tokenizer.json: cannot open" -- \
  $T10 "$app" export --scene tokenizers --set "tokenizers.tokenizer_json=$work/no-such/tokenizer.json" \
  --out "$work/x-tok" --format csv
check forward-prompt-refused 1 "forward: The prompt \"a+b\" cannot run on this model \(.*ran past its time limit.*example prompt is shown instead" -- \
  $T10 "$app" export --scene forward --set forward.model=folder --set "forward.model_dir=$work/regextok" \
  --set "forward.text=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab" --out "$work/x-fwd" --format csv
tok_model growtok "$(python3 -c "import json; print(json.dumps({'normalizer': {'type': 'Sequence', 'normalizers':
  [{'type': 'Replace', 'pattern': {'String': 'a'}, 'content': 'aa'}] * 40}}))")"
one_line_error growing-normalizer "the normalizer grew the text from 4 to .* past its bound of 8× the input" -- \
  sh -c "$VLIMIT"' exec "$@"' - $T10 "$app" dump --model "$work/growtok" --text "aaaa" --out "$work/x"
python3 -c "import json; print(json.dumps({'pre_tokenizer': {'type': 'Sequence',
  'pretokenizers': [{'type': 'Digits'}] * 10000}}))" >"$work/longseq-parts.json"
tok_model longseqtok "@$work/longseq-parts.json"
one_line_error long-sequence "pre-tokenizer Sequence has more than 64 steps" -- \
  $T10 "$app" dump --model "$work/longseqtok" --text "12" --out "$work/x"
tok_model stringtok '{"pre_tokenizer": "ByteLevel"}'
one_line_error component-as-string "pre-tokenizer must be an object with a 'type', not a string" -- \
  $T10 "$app" dump --model "$work/stringtok" --text "12" --out "$work/x"
tok_model typetok '{"pre_tokenizer": {"type": "Digits", "individual_digits": "yes"}}'
one_line_error wrong-option-type "pre-tokenizer Digits: 'individual_digits' must be true or false, not \"yes\"" -- \
  $T10 "$app" dump --model "$work/typetok" --text "12" --out "$work/x"
fresh_model unitok
python3 -c "import json; print(json.dumps({'model': {'type': 'Unigram', 'unk_id': None,
  'vocab': [['a', -1.0], ['aa', -1.5], ['a' * 100000, -0.1]]}}))" >"$work/unitok/tokenizer.json"
python3 -c "print('a' * 120000 + '!')" >"$work/long.txt"
one_line_error unigram-long-pieces-fast "no unk_id, so '!' cannot be tokenized" -- \
  $T10 "$app" dump --model "$work/unitok" --text "$(cat "$work/long.txt")" --out "$work/x"

# The default budget (10 s) bounds the same run with no option: it stops early and says how to allow more.
check lora-default-budget 1 "(at this pace the computation needs about [0-9]+ s, above |stopped after [0-9]+ s \()--max-seconds 10" -- \
  timeout -k 2 20 "$app" export --scene lora --set "lora.mode=fine-tune a model" --set lora.ft_steps=2000 --set lora.ft_batch=64 \
  --out "$work/x-lora" --format csv
# Headless fine-tuning without a step cap of its own: stopped at its projected time, naming --max-seconds.
check lora-max-seconds 1 "(at this pace the computation needs about [0-9]+ s, above |stopped after [0-9]+ s \()--max-seconds 3" -- \
  timeout -k 2 15 "$app" export --scene lora --set "lora.mode=fine-tune a model" --set lora.ft_steps=2000 --set lora.ft_batch=64 \
  --max-seconds 3 --out "$work/x-lora" --format csv
one_line_error max-seconds-bad "max-seconds must be a positive number" -- $T10 "$app" export --scene softmax \
  --max-seconds nan --out "$work/x"

# Memory: a config that raises its own cap still meets dump's; --memory-cap nan is refused, not "no cap".
python3 -c "import json; c=json.load(open('$work/small.json')); c.update(hidden_size=4096, intermediate_size=11008,
  num_hidden_layers=12, num_attention_heads=32, vocab_size=32000, tw_memory_cap_mb=1e9); print(json.dumps(c))" \
  >"$work/huge.json"
one_line_error dump-huge-refused "needs about [0-9]+ MiB .*(above dump's cap of 2048 MiB; pass --memory-cap|this machine's memory)" -- \
  sh -c "$VLIMIT"' exec "$@"' - $T10 "$app" dump --config "$work/huge.json" --tokens 1 --out "$work/x"
one_line_error train-memory-cap-nan "memory-cap must be a number of MiB" -- $T10 "$app" train --scene train-sort \
  --memory-cap nan --out "$work/x" --format none

# Checkpoints: duplicate tensor names, NaN weights named at load, max_position_embeddings ≤ 0, a symlink loop.
python3 - "$work/dup.safetensors" <<'PY'
import struct, sys
h = b'{"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}, "a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}}'
open(sys.argv[1], 'wb').write(struct.pack('<Q', len(h)) + h + b'\0' * 4)
PY
one_line_error duplicate-tensor "names the tensor 'a' twice" -- \
  $T10 "$app" dump --config "$work/small.json" --weights "$work/dup.safetensors" --tokens 1 --out "$work/x"
fresh_model nanw
python3 - "$work/nanw/model.safetensors" <<'PY'
import json, struct, sys
raw = bytearray(open(sys.argv[1], 'rb').read())
n = struct.unpack('<Q', raw[:8])[0]
e = json.loads(raw[8:8 + n])['model.layers.0.self_attn.q_proj.weight']
assert e['dtype'] == 'F32'
at = 8 + n + e['data_offsets'][0] + 4 * 5
raw[at:at + 4] = struct.pack('<f', float('nan'))
open(sys.argv[1], 'wb').write(raw)
PY
one_line_error nan-weight-named "tensor 'model.layers.0.self_attn.q_proj.weight' has 1 non-finite value \(first: NaN at flat index 5\)" -- \
  $T10 "$app" dump --model "$work/nanw" --tokens 1 --out "$work/x"
for v in 0 -1; do
  fresh_model "mpe$v"
  python3 -c "import json,sys; p=sys.argv[1]; c=json.load(open(p)); c['max_position_embeddings']=$v; json.dump(c, open(p,'w'))" \
    "$work/mpe$v/config.json"
  one_line_error "max-position-$v" "max_position_embeddings must be a whole number of at least 1, not $v" -- \
    $T10 "$app" dump --model "$work/mpe$v" --tokens 1 --out "$work/x"
done
fresh_model loop
rm "$work/loop/config.json" && ln -s "$work/loop/config.json" "$work/loop/config.json"
one_line_error config-symlink-loop "has no readable config.json: .*(symbolic links|loop)" -- \
  $T10 "$app" dump --model "$work/loop" --tokens 1 --out "$work/x"

# Lesson files: validated fully at load (figures at export), deep math and long runs refused before layout.
lesson() {  # lesson FILE STEP_JSON_FRAGMENT: a one-step lesson whose step is patched by the python expression
  python3 - "$1" "$2" <<'PY'
import json, sys
step = {"id": "s", "title": {"en": "T", "zh": "T"}, "text": {"en": "x", "zh": "x"},
        "scene": {"open": ["softmax"], "values": {"softmax.d_k": 64}}}
exec(sys.argv[2])
json.dump({"format": 1, "id": "mine", "number": 7, "title": {"en": "A", "zh": "A"}, "summary": {"en": "B", "zh": "B"},
           "steps": [step]}, open(sys.argv[1], "w"))
PY
}
lesson "$work/deep-lesson.json" 'step["text"]["en"] = "$" + "{" * 20000 + "}" * 20000 + "$"'
check lesson-deep-math 2 "deep-lesson.json: step 1 \(s\): text.en: braces nested deeper than 32 levels" -- \
  $T10 "$app" export --lesson "$work/deep-lesson.json" --out "$work/x-lesson"
lesson "$work/huge-lesson.json" 'step["text"]["en"] = "$" + "{" * 100000 + "}" * 100000 + "$"'
check lesson-huge-text 2 "huge-lesson.json: step 1 \(s\): text.en: 200002 bytes long; a lesson text may be at most 65536 bytes" -- \
  $T10 "$app" export --lesson "$work/huge-lesson.json" --out "$work/x-lesson"
# Unbraced nesting (\sqrt\sqrt…x, x^^^…y): no brace to count, the typesetter's own limit refuses it at load.
lesson "$work/sqrt-lesson.json" 'step["text"]["en"] = "$" + "\\sqrt" * 12000 + " x$"'
one_line_error lesson-bare-sqrt "sqrt-lesson.json: step 1 \(s\): text.en: a formula nests deeper than 48 levels" -- \
  $T10 "$app" export --lesson "$work/sqrt-lesson.json" --out "$work/x-lesson"
lesson "$work/scripts-lesson.json" 'step["text"]["en"] = "$x" + "^" * 20000 + "y$"'
one_line_error lesson-bare-scripts "text.en: a formula nests deeper than 48 levels" -- \
  $T10 "$app" export --lesson "$work/scripts-lesson.json" --out "$work/x-lesson"
lesson "$work/fine-sqrt-lesson.json" 'step["text"]["en"] = "$" + "\\sqrt" * 8 + " x$"'
check lesson-shallow-sqrt 0 "step.md" -- $T10 "$app" export --lesson "$work/fine-sqrt-lesson.json" --out "$work/x-lesson" --format csv
# "N:K" is read the same way by the window and by export: a step number, never a file name.
one_line_error lesson-step-zero "'1:0': steps are numbered from 1" -- $T10 "$app" export --lesson 1:0 --out "$work/x-lesson"
one_line_error lesson-step-past "'1' has [0-9]+ steps; step 99 does not exist" -- $T10 "$app" export --lesson 1:99 --out "$work/x-lesson"
rm -rf "$work/x-one-step"
check lesson-one-step 0 "/02-[a-z-]+/step.md" -- $T10 "$app" export --lesson 1:2 --out "$work/x-one-step" --format csv
check lesson-one-step-only 0 "^1$" -- bash -c "ls '$work/x-one-step'/1-*/ | wc -l"
lesson "$work/type-lesson.json" 'step["scene"]["values"]["softmax.d_k"] = "big"'
check lesson-value-type 2 "scene.values: softmax.d_k: expected an integer" -- \
  $T10 "$app" export --lesson "$work/type-lesson.json" --out "$work/x-lesson"
lesson "$work/dot-lesson.json" 'step["id"] = "a.b"'
check lesson-dot-id 2 "step 1: id: expected an ASCII id" -- \
  $T10 "$app" export --lesson "$work/dot-lesson.json" --out "$work/x-lesson"
lesson "$work/look-lesson.json" 'step["look"] = {"figure": "no-such-figure", "en": "l", "zh": "l"}'
check lesson-look-figure 2 "look.figure: (panel 'softmax' shows no figure 'no-such-figure'|no open panel)" -- \
  timeout -k 2 30 "$app" export --lesson "$work/look-lesson.json" --out "$work/x-lesson" --format csv

exit $fail
