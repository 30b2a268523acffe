#!/usr/bin/python3
"""Writes the model card (README.md) of a language model trained by `transformer-workbench train` from its run folder.

    scripts/lm-model-card.py assets/models/poems train-lm-poems [PYTORCH_BITS] > assets/models/poems/README.md

PYTORCH_BITS: the held-out bits per character of the identical run in bench/pytorch_train.py --language.

Reads run.json (steps, held-out bits per character, baselines, samples), config.json, scene.json, and
lm_data.json with tokenizer.json for the example prompt (the start of the first held-out record, which the stepper
opens the model on).
"""
import json
import os
import sys

run_dir, scene = sys.argv[1], sys.argv[2]
pytorch_bits = float(sys.argv[3]) if len(sys.argv) > 3 and sys.argv[3] else None
run = json.load(open(os.path.join(run_dir, "run.json")))
cfg = json.load(open(os.path.join(run_dir, "config.json")))
values = json.load(open(os.path.join(run_dir, "scene.json")))["values"]
corpus = values["train.corpus"]
about = {
    "tang300": ("300 Tang poems (唐诗三百首)", "Debian package fortunes-zh, file tang300",
                "GPL-3.0+ (/usr/share/doc/fortunes-zh/copyright)"),
    "song100": ("100 Song ci (宋词一百首)", "Debian package fortunes-zh, file song100",
                "GPL-3.0+ (/usr/share/doc/fortunes-zh/copyright)"),
    "quotes": ("English quotations", "Debian package fortunes, files wisdom and people",
               "as stated in /usr/share/doc/fortunes/copyright"),
}[corpus]
size = os.path.getsize(os.path.join(run_dir, "model.safetensors"))


def byte_level_decoder():
    """GPT-2's bytes_to_unicode, inverted: the printable character of each byte back to the byte."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return {chr(c): b for b, c in zip(bs, cs)}


def heldout_prompt():
    """The start of the first held-out record: the first five words of its first line."""
    tok = json.load(open(os.path.join(run_dir, "tokenizer.json")))
    ids = json.load(open(os.path.join(run_dir, "lm_data.json")))["heldout_ids"][:64]
    by_id = {i: t for t, i in tok["model"]["vocab"].items()}
    data = bytearray()
    if (tok.get("decoder") or {}).get("type") == "ByteLevel":
        inv = byte_level_decoder()
        for i in ids:
            data += bytes(inv[ch] for ch in by_id[i])
    else:  # byte fallback: <0xNN> tokens are bytes, the others their characters
        for i in ids:
            t = by_id[i]
            data += bytes([int(t[3:5], 16)]) if t.startswith("<0x") and len(t) == 6 else t.encode()
    first = data.decode("utf-8", "replace").split("\n")[0].strip()
    return " ".join(first.split()[:5])


# The stepper opens a Chinese model on a famous line (床前明月光…, in the training part) when its card names no prompt.
example = heldout_prompt() if values["train.tokenizer"] != "character" and os.path.exists(
    os.path.join(run_dir, "lm_data.json")) else ""
out = []
w = out.append
w(f"# {scene.replace('train-lm-', '')}: a small LLaMA-style language model of {about[0]}\n")
w(f"Trained by this project's own trainer with `transformer-workbench train --scene {scene} --out DIR` "
  f"(scripts/train-models.sh); `scene.json` is the exact scene.\n")
w("| | |\n|---|---|")
w(f"| corpus | {about[0]}; {about[1]}; cleaned (colour escapes and title/author lines removed) |")
w(f"| licence of the text | {about[2]} |")
w("| split | every tenth record (poem / quotation) held out, never trained on |")
w(f"| tokenizer | {values['train.tokenizer']} (`tokenizer.json`, {run['vocab']} tokens, trained on the training part) |")
w(f"| model | {cfg['num_hidden_layers']} layers, width {cfg['hidden_size']}, {cfg['num_attention_heads']} heads, "
  f"SwiGLU MLP {cfg['intermediate_size']}, RoPE, RMSNorm, tied embeddings, context {run['seq_len']} |")
w(f"| parameters | {run['parameters']:,} ({size / 1e6:.1f} MB float32) |")
took = f"{run['seconds']:.1f} s" if run['seconds'] < 60 else f"{run['seconds'] / 60:.1f} min"
w(f"| training | {run['steps']} steps of {run['batch']} × {run['seq_len']} tokens, AdamW, lr "
  f"{values['train.lr']}, cosine, one thread, {took} on the build machine |")
w(f"| training tokens | {run['train_tokens']:,} |")
if example:
    w(f"| example | {example} |")
w("")
w("## Held-out bits per character\n")
w(f"Held-out text: {run['heldout_chars']:,} characters ({run['heldout_tokens']:,} tokens). Bits per character = total "
  "−log₂ p of every held-out token / held-out characters. Baselines: unigram and bigram models (Witten–Bell) of the "
  "same tokens, counted on the same training part. The character n-grams of the n-gram panel are listed too: they "
  "predict a character never seen in training as one free \"unknown\" symbol, so they pay nothing for which "
  "character it is, while the model and the token baselines spell its UTF-8 bytes.\n")
w("| model | bits / character |\n|---|---|")
w(f"| token unigram | {run['unigram_bits_per_char']:.3f} |")
w(f"| token bigram | {run['bigram_bits_per_char']:.3f} |")
w(f"| character unigram (unknown characters free) | {run['char_unigram_bits_per_char']:.3f} |")
w(f"| character bigram (unknown characters free) | {run['char_bigram_bits_per_char']:.3f} |")
w(f"| **this model** | **{run['final_bits_per_char']:.3f}** |")
if pytorch_bits is not None:
    ours = run["final_bits_per_char"]
    w(f"| the identical run in PyTorch | {pytorch_bits:.3f} |")
    w(f"\nThe PyTorch row is `bench/pytorch_train.py DIR --language`: the same initial weights, batches, AdamW "
      f"schedule and steps in PyTorch; this model's held-out bits per character differ from it by "
      f"{100 * (ours - pytorch_bits) / pytorch_bits:+.2f}%.\n")
else:
    w("\nThe identical run in bench/pytorch_train.py --language was not measured for this card.\n")
w("## Samples at temperature 0.8 (seeded) during training\n")
seen = set()
for s in run["samples"]:
    if s["step"] in seen:  # the last step's sample is recorded at the end of the run too
        continue
    seen.add(s["step"])
    w(f"after step {s['step']}:\n")
    w("```\n" + s["text"].rstrip("\n") + "\n```\n")
print("\n".join(out))
