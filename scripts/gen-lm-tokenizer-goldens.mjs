// Writes the golden token ids of the shipped language models' tokenizers (assets/models/<name>/tokenizer.json) as
// Hugging Face's reference JavaScript implementation (@huggingface/tokenizers, "tokenizers.js") encodes them, so
// tests/core/train/test_lm_tokenizer_goldens.cpp can check that our tokenizer gives the same ids. Run by hand after
// retraining a model; Node is never needed to build or run the app.
//
//   mkdir -p /tmp/tokref && cd /tmp/tokref && npm install @huggingface/tokenizers@0.2.0
//   node scripts/gen-lm-tokenizer-goldens.mjs /tmp/tokref/node_modules
//
// Output: tests/core/data/tokenizers/lm-<name>.golden.json (texts, ids, decoded text, SHA-256 of the tokenizer.json).
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync, existsSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "..");
const modules = path.resolve(process.argv[2] ?? "/tmp/tokref/node_modules");
const require = createRequire(path.join(modules, "x.js"));
const mod = await import(require.resolve("@huggingface/tokenizers"));
const Tokenizer = mod.Tokenizer ?? mod.default?.Tokenizer;
const refVersion = JSON.parse(readFileSync(path.join(modules, "@huggingface/tokenizers/package.json"), "utf8")).version;

// Our own texts (no corpus text is copied): classical lines, modern Chinese, rare characters that fall back to
// bytes, emoji, English with punctuation and digits, and the shared tokenizer test corpus.
const texts = [
  "床前明月光，疑是地上霜。\n举头望明月，低头思故乡。\n\n",
  "白日依山尽，黄河入海流。欲穷千里目，更上一层楼。",
  "春眠不觉晓，处处闻啼鸟。夜来风雨声，花落知多少。",
  "这是一个用来测试分词器的句子：鑫龘齉 🙂 ok 123",
  "The cat sat on the mat. It said: \"Don't panic!\" -- 42 times.\n\n",
  "Wisdom is knowing what to do next; virtue is doing it.",
  "",
  ...JSON.parse(readFileSync(path.join(root, "tests/core/data/tokenizers/corpus.json"), "utf8")).texts,
];

for (const name of ["poems", "quotes"]) {
  const file = path.join(root, "assets/models", name, "tokenizer.json");
  if (!existsSync(file)) continue;
  const bytes = readFileSync(file);
  const tok = new Tokenizer(JSON.parse(bytes.toString("utf8")), {});
  const cases = texts.map((text) => {
    const ids = tok.encode(text, { add_special_tokens: false }).ids;
    const decoded = ids.length === 0 ? "" : tok.decode(ids, { skip_special_tokens: false, clean_up_tokenization_spaces: false });
    return { text, ids, decoded };
  });
  const out = {
    model: name,
    sha256: createHash("sha256").update(bytes).digest("hex"),
    reference: `@huggingface/tokenizers@${refVersion}`,
    cases,
  };
  writeFileSync(path.join(root, "tests/core/data/tokenizers", `lm-${name}.golden.json`), JSON.stringify(out) + "\n");
  const roundTrips = cases.filter((c) => c.decoded === c.text).length;
  console.log(`${name}: ${cases.length} texts, ${roundTrips} round-trip`);
}
