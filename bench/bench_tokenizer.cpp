// Benchmarks for tokenizer.json tokenizers (core/text/tokenizer.h):
//   BM_EncodeMixed1MB/<family>: encoding 1 MB of mixed English and Chinese text (pseudo-random sentences, so few
//     pieces repeat exactly) on one core with a ~150k-vocabulary byte-level BPE (Qwen3: 151,643 tokens; also
//     GPT-4o: 200,000). Target: under 1 s.
//   BM_LoadJson/gemma3: parsing Gemma 3's 33 MB tokenizer.json (262,144 tokens, 514,906 merges, 6,415 added
//     tokens). Target: under 1.5 s.
// The files are the ones the golden tests use: run scripts/fetch-tokenizer-data.sh <dir> and point
// TW_TOKENIZER_DATA at <dir> (default: ./tokenizer-data beside the benchmark).
//
// Run: build/bench_tokenizer --benchmark_repetitions=5 --benchmark_report_aggregates_only=true

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>

#include "core/text/tokenizer.h"

namespace {

std::string data_file(const std::string& family) {
  const char* env = std::getenv("TW_TOKENIZER_DATA");
  return std::string(env ? env : "tokenizer-data") + "/" + family + "/tokenizer.json";
}

std::string mixed_text(size_t bytes) {
  static const char* english[] = {"the",
                                  "attention",
                                  "model",
                                  "learns",
                                  "to",
                                  "weigh",
                                  "tokens",
                                  "by",
                                  "their",
                                  "scaled",
                                  "dot",
                                  "product",
                                  "and",
                                  "softmax",
                                  "of",
                                  "queries",
                                  "keys",
                                  "values",
                                  "rotary",
                                  "position",
                                  "encoding",
                                  "Don't",
                                  "we'll",
                                  "it's",
                                  "2024",
                                  "3.14159",
                                  "x = f(y);",
                                  "(see",
                                  "https://x.org/a?b=1",
                                  "layer-norm",
                                  "GPU",
                                  "KV-cache",
                                  "\n",
                                  "  "};
  static const char* chinese[] = {"注意力",         "机制",     "模型", "学习", "缩放点积", "旋转位置编码",
                                  "归一化",         "困惑度",   "的",   "是",   "在",       "和",
                                  "分组查询注意力", "低秩适配", "，",   "。"};
  std::mt19937 rng(42);
  std::string s;
  s.reserve(bytes + 64);
  while (s.size() < bytes) {
    if (rng() % 3 == 0) {
      for (int k = 0, n = 3 + int(rng() % 8); k < n; ++k) s += chinese[rng() % std::size(chinese)];
    } else {
      for (int k = 0, n = 4 + int(rng() % 10); k < n; ++k) {
        s += english[rng() % std::size(english)];
        s += ' ';
      }
    }
  }
  s.resize(bytes);
  while (!s.empty() && (static_cast<unsigned char>(s.back()) & 0xC0) == 0x80) s.pop_back();  // whole characters
  if (!s.empty() && static_cast<unsigned char>(s.back()) >= 0xC0) s.pop_back();
  return s;
}

void BM_EncodeMixed1MB(benchmark::State& state, const std::string& family) {
  tw::Tokenizer t;
  std::string error;
  if (!tw::load_tokenizer(data_file(family), &t, &error)) {
    state.SkipWithError(error.c_str());
    return;
  }
  const std::string text = mixed_text(1 << 20);
  size_t tokens = 0;
  for (auto _ : state) {
    const std::vector<int> ids = t.encode(text, false);
    tokens = ids.size();
    benchmark::DoNotOptimize(ids.data());
  }
  state.counters["tokens"] = double(tokens);
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(text.size()));
}

void BM_LoadJson(benchmark::State& state, const std::string& family) {
  std::ifstream in(data_file(family), std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  const std::string text = s.str();
  if (text.empty()) {
    state.SkipWithError(("missing " + data_file(family)).c_str());
    return;
  }
  for (auto _ : state) {
    tw::Tokenizer t;
    std::string error;
    if (!tw::tokenizer_from_json(text, &t, &error)) state.SkipWithError(error.c_str());
    benchmark::DoNotOptimize(t.vocab_size());
  }
  state.counters["MB"] = double(text.size()) / 1e6;
}

BENCHMARK_CAPTURE(BM_EncodeMixed1MB, qwen3, std::string("qwen3"))->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_EncodeMixed1MB, gpt4o, std::string("gpt4o"))->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_LoadJson, gemma3, std::string("gemma3"))->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_LoadJson, qwen3, std::string("qwen3"))->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
