#!/usr/bin/python3
"""Writes tests/core/data/pretokenize_golden.json: how the real pre-tokenizer regexes (GPT-2, Llama 3, Qwen2,
run by the `regex` module, which has \\p{L}, \\p{N} and look-ahead) split a set of tricky strings. The C++ splitters in
core/text/tokenizer.cpp are written by hand; test_tokenizer checks them against this file.

    apt-get install python3-regex && /usr/bin/python3 scripts/gen-pretokenize-golden.py
"""
import json
import os
import random

import regex

PATTERNS = {
    "gpt2": r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+""",
    "llama3": r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+""",
    "qwen2": r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+""",
}

FIXED = [
    "Hello world's  test 12345!!\n\nend (hello",
    "I'm sure they'LL say 'DON'T' — we've 3,141.59 reasons.",
    "  leading\tand\r\ntrailing   \n",
    "日本語のテキスト、中文字符。한국어 텍스트",
    "emoji 🙂👍🏽 flags 🇩🇪 ZWJ 👩‍💻 done",
    "Größe naïve café ½ ¾ ² ³ Ⅻ ٣٤٥",
    "tabs\t\tand\u00a0nbsp\u3000ideographic\u2028line",
    "x=1+2*(3-4)/5; y = [a, b]; z == 'q'",
    "\n\n\n", "   ", "", "a", "'", "'s's'S", "1234567890",
]

ALPHABET = list("aZé日🙂 \t\n\r'.,!-1٣½_") + ["\u00a0", "\u3000", "'s", "'LL", " \n", "12"]


def main():
    rng = random.Random(7)
    samples = FIXED + ["".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 24))) for _ in range(300)]
    out = {"samples": samples,
           "splits": {name: [regex.findall(p, s) for s in samples] for name, p in PATTERNS.items()}}
    for name, splits in out["splits"].items():
        for s, pieces in zip(samples, splits):
            assert "".join(pieces) == s, (name, s)  # the patterns tile the text
    path = os.path.join(os.path.dirname(__file__), "..", "tests", "core", "data", "pretokenize_golden.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(out, f, ensure_ascii=False, indent=0)
        f.write("\n")
    print(f"wrote {len(samples)} samples x {len(PATTERNS)} patterns to {os.path.normpath(path)}")


if __name__ == "__main__":
    main()
