#!/usr/bin/python3
"""Writes the model card (README.md) of a shipped language model from its training run and its measured numbers.

    scripts/lm-model-card.py RUN_DIR NAME CARD_JSON HELDOUT [PYTORCH_BITS OURS_IN_PYTORCH_BITS] > assets/models/NAME/README.md

RUN_DIR: what `transformer-workbench train --out` wrote (run.json, config.json, scene.json, tokenizer.json).
CARD_JSON: what `build/lm_card` printed for the model on the shipped held-out text (the app's own code: held-out bits
per character, Kneser–Ney n-grams of orders 1 … 5 on the same training part, seeded samples and their form).
HELDOUT: the held-out text (the example prompt of an English model is the opening of one of its records).
PYTORCH_BITS: the held-out bits per character of the identical run in bench/pytorch_train.py --language, when run,
on the trainer's held-out windows (lm_data.json), and OURS_IN_PYTORCH_BITS this model on the same windows by the same
PyTorch code (bench/pytorch_train.py RUN_DIR --evaluate model.safetensors): like is compared with like.

read_model_card (core/experiments/model_card.h) reads the corpus row, the example row and the "this model" row under
the held-out heading; keep those.
"""
import json
import os
import sys

run_dir, name, card_file, heldout_file = sys.argv[1:5]
pytorch_bits = float(sys.argv[5]) if len(sys.argv) > 5 and sys.argv[5] else None
ours_in_pytorch = float(sys.argv[6]) if len(sys.argv) > 6 and sys.argv[6] else None
run = json.load(open(os.path.join(run_dir, "run.json")))
cfg = json.load(open(os.path.join(run_dir, "config.json")))
values = json.load(open(os.path.join(run_dir, "scene.json")))["values"]
card = json.load(open(card_file))
about = {
    "poems": ("Tang poems (全唐诗)",
              "simplified script: npm package chinese-poetry 2.0.1, quantangshi/poet.tang.*.json, converted by OpenCC "
              "t2s, titles, authors and editorial notes removed",
              "MIT (`LICENSE.text`)", "poem", "zh"),
    "quotes": ("English fortunes", "every file of Debian's fortunes and fortunes-min packages",
               "as stated in the fortunes package's copyright file (`LICENSE.text`)", "fortune", "en"),
}[name]
size = os.path.getsize(os.path.join(run_dir, "model.safetensors"))


def heldout_opening():
    """The first five words of the first held-out record whose first line is a plain sentence of eight words or more
    (many fortunes open with indentation, a heading or a dialogue tag)."""
    for record in open(heldout_file, encoding="utf-8").read().split("\n\n"):
        first = record.split("\n")[0]
        words = first.split()
        if first[:1].isupper() and len(words) >= 8 and all(x.isalpha() for x in words[0:5]):
            return " ".join(words[:5])
    return ""


# The stepper opens a Chinese model on 床前明月光 (in the training part); the English one on a held-out opening.
example = heldout_opening() if name == "quotes" else ""

out = []
w = out.append
w("---\nlanguage:\n- " + about[4] + "\nlicense: see LICENSE.text\n---\n")
w(f"# {name}: a LLaMA-style language model of {about[0]}\n")
w("Trained by this project's own trainer: `scripts/train-models.sh build/transformer-workbench CORPORA` after "
  "`scripts/prepare-corpora.sh CORPORA` (`scene.json` is the exact scene; its `train.text_file` is relative to "
  "CORPORA). The numbers below are the app's own, from `build/lm_card` on this folder's `heldout.txt`.\n")
w("| | |\n|---|---|")
w(f"| corpus | {about[0]}; {about[1]} |")
w(f"| licence of the text | {about[2]} |")
w(f"| split | every tenth {about[3]} in the source's order held out (`heldout.txt`, never trained on) |")
tok = "characters, rare ones as UTF-8 bytes" if values["train.tokenizer"] == "character" else "byte-level BPE"
w(f"| tokenizer | {tok} (`tokenizer.json`, {run['vocab']:,} tokens, made from the training part) |")
w(f"| model | {cfg['num_hidden_layers']} layers, width {cfg['hidden_size']}, {cfg['num_attention_heads']} heads, "
  f"SwiGLU MLP {cfg['intermediate_size']}, RoPE, RMSNorm, tied embeddings, context {run['seq_len']} |")
w(f"| parameters | {run['parameters']:,} ({size / 1e6:.1f} MB float32) |")
threads = "one thread" if run["threads"] == 1 else f"{run['threads']} threads"
w(f"| training | {run['steps']:,} steps of {run['batch']} × {run['seq_len']} tokens, AdamW, lr "
  f"{values['train.lr']}, warm-up {values['train.warmup']} then cosine, {threads}, "
  f"{run['seconds'] / 60:.0f} min wall ({run['cpu_seconds'] / 60:.0f} min CPU) on the 2-core build machine, "
  f"OpenBLAS kernel {run['blas_kernel']} |")
w(f"| training tokens | {run['steps'] * run['batch'] * run['seq_len']:,} seen "
  f"({run['train_tokens']:,} in the training part) |")
if example:
    w(f"| example | {example} |")
w("")
w("## Held-out bits per character\n")
w(f"The whole `heldout.txt` ({card['heldout_chars']:,} characters) read as one stream in windows of the model's "
  f"context, every token predicted once with at least half a window before it ({card['heldout_tokens_scored']:,} "
  "tokens). Bits per character = the sum of −log₂ p over those tokens / characters. The baseline is interpolated "
  "Kneser–Ney (modified) over characters, trained on the same training part; a character it never saw costs an "
  "escape plus log₂ of its script's alphabet, as a model spelling it in bytes pays at best.\n")
w("| model | bits / character |\n|---|---|")
w(f"| this model | {card['model_bits_per_char']:.3f} |")
for k in card["kneser_ney"]:
    w(f"| Kneser–Ney, order {k['order']} | {k['bits_per_char']:.3f} |")
w("")
best = card["kneser_ney_best_bits_per_char"]
w(f"This model is **{100 * card['model_below_kneser_ney']:.1f}% below** the best n-gram (order "
  f"{card['kneser_ney_best_order']}, {best:.3f}).")
if pytorch_bits is None or ours_in_pytorch is None:
    w("The identical run in PyTorch (`bench/pytorch_train.py DIR --language`) was not measured for this card.")
else:
    w(f"The identical run in PyTorch (`bench/pytorch_train.py DIR --language`: the same initial weights, batches, "
      f"dropout masks, schedule, AdamW and clipping, {values['train.steps']:,} steps) reaches **{pytorch_bits:.4f}** "
      f"bits per character on the trainer's held-out windows ({run['heldout_chars']:,} characters); this model, "
      f"evaluated there by the same PyTorch code (`--evaluate model.safetensors`), has **{ours_in_pytorch:.4f}** "
      f"({100 * (ours_in_pytorch - pytorch_bits) / pytorch_bits:+.2f}%).")
w("")
w("## Generation\n")
if name == "poems":
    w(f"100 held-out poems spread over the held-out part (`spread_records`), each cut after its first line (up to "
      f"the first 。) and continued at temperature 0.8, top-p 0.9, seeded: "
      f"**{100 * card['half_lines_five_or_seven']:.1f}%** of the {card['half_lines']} half-lines the model wrote "
      f"(text between ，。？！；) have 5 or 7 characters, and **{100 * card['poems_uniform']:.1f}%** of the "
      f"{card['poems']} poems keep one half-line length throughout.\n")
else:
    w(f"100 held-out fortunes spread over the held-out part, each cut after its first two words and continued at "
      f"temperature 0.8, top-p 0.9, seeded (a word the 48-token budget cut open is not counted): "
      f"**{100 * card['words_known']:.1f}%** of the {card['words']:,} words the model wrote are in Debian's "
      f"`wamerican` list (the held-out text itself: {100 * card['heldout_words_known']:.1f}% by the same count).\n")
w("Ten of them:\n")
for s in card["samples"]:
    w("```\n" + s["text"].rstrip("\n") + "\n```\n")
print("\n".join(out))
