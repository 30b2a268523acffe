#include "core/experiments/architectures.h"

#include "core/base/i18n.h"

namespace tw {

namespace {

// A decoder-only LLaMA-family model: RMSNorm, SwiGLU, RoPE, no biases, untied, two norms per block.
ArchitectureConfig llama(std::string name, std::string source, int year, int64_t d, int layers, int heads, int kv_heads,
                         int64_t d_ff, int64_t vocab, int64_t context) {
  ArchitectureConfig c;
  c.name = std::move(name);
  c.source = std::move(source);
  c.year = year;
  c.d_model = d;
  c.layers = layers;
  c.heads = heads;
  c.kv_heads = kv_heads;
  c.head_dim = d / heads;
  c.d_ff = d_ff;
  c.gated = true;
  c.activation = "SwiGLU";
  c.vocab = vocab;
  c.context = context;
  return c;
}

// GPT-2/GPT-3: LayerNorm with bias, GELU, learned positions, biases everywhere, tied head.
ArchitectureConfig gpt(std::string name, std::string source, int year, int64_t d, int layers, int heads, int64_t vocab,
                       int64_t context) {
  ArchitectureConfig c;
  c.name = std::move(name);
  c.source = std::move(source);
  c.year = year;
  c.d_model = d;
  c.layers = layers;
  c.heads = c.kv_heads = heads;
  c.head_dim = d / heads;
  c.d_ff = 4 * d;
  c.activation = "GELU";
  c.vocab = vocab;
  c.context = context;
  c.positions = ArchPositions::Learned;
  c.norm = ArchNorm::LayerNorm;
  c.attn_bias = c.mlp_bias = c.norm_bias = true;
  c.tied = true;
  return c;
}

// The published parameter count of the row just added, and whether the source gives it exactly.
void published(std::vector<ArchitectureConfig>& t, double n, bool exact) {
  t.back().published_params = n;
  t.back().published_exact = exact;
}

// Encoders, encoder–decoders and the first decoder-only giants, before LLaMA set the recipe.
void add_early_models(std::vector<ArchitectureConfig>& t) {
  {
    ArchitectureConfig c;
    c.name = "BERT-base";
    c.source = "Devlin et al. 2018; bert-base-uncased config.json (BertModel, pooler included)";
    c.year = 2018;
    c.kind = ArchKind::EncoderOnly;
    c.d_model = 768, c.layers = 12, c.heads = c.kv_heads = 12, c.head_dim = 64, c.d_ff = 3072;
    c.activation = "GELU", c.vocab = 30522, c.context = 512;
    c.positions = ArchPositions::Learned, c.norm = ArchNorm::LayerNorm;
    c.attn_bias = c.mlp_bias = c.norm_bias = true;
    c.tied = true;  // the masked-LM head reuses the embedding; BertModel itself has no output head
    c.final_norm = false, c.embedding_norm = true, c.segments = 2;
    t.push_back(c);
    published(t, 109482240, true);
  }
  t.push_back(gpt("GPT-2 small", "Radford et al. 2019; gpt2 config.json", 2019, 768, 12, 12, 50257, 1024));
  published(t, 124439808, true);
  t.push_back(gpt("GPT-2 XL", "Radford et al. 2019; gpt2-xl config.json", 2019, 1600, 48, 25, 50257, 1024));
  published(t, 1557611200, true);
  {
    ArchitectureConfig c;
    c.name = "T5-base";
    c.source = "Raffel et al. 2020; t5-base config.json (v1.0: shared embedding, tied head)";
    c.year = 2019;
    c.kind = ArchKind::EncoderDecoder;
    c.d_model = 768, c.layers = 12, c.heads = c.kv_heads = 12, c.head_dim = 64, c.d_ff = 3072;
    c.activation = "ReLU", c.vocab = 32128, c.context = 512;
    c.positions = ArchPositions::RelativeBias, c.relative_buckets = 32;
    c.tied = true;
    t.push_back(c);
    published(t, 222903552, true);
  }
  t.push_back(gpt("GPT-3 175B", "Brown et al. 2020, Table 2.1", 2020, 12288, 96, 96, 50257, 2048));
  published(t, 175.0e9, false);
  {
    ArchitectureConfig c =
        llama("PaLM 540B", "Chowdhery et al. 2022, Table 1", 2022, 18432, 118, 48, 1, 73728, 256000, 2048);
    c.head_dim = 256;
    c.block = ArchBlock::Parallel, c.norms_per_block = 1, c.norm = ArchNorm::LayerNorm;  // LayerNorm without bias
    c.tied = true;
    t.push_back(c);
    published(t, 540.35e9, false);
  }
  {
    ArchitectureConfig c;
    c.name = "BLOOM 176B";
    c.source = "BigScience 2022 (Le Scao et al.), Table 3; bigscience/bloom config.json";
    c.year = 2022;
    c.d_model = 14336, c.layers = 70, c.heads = c.kv_heads = 112, c.head_dim = 128, c.d_ff = 4 * 14336;
    c.activation = "GELU", c.vocab = 250880, c.context = 2048;
    c.positions = ArchPositions::Alibi, c.norm = ArchNorm::LayerNorm;
    c.attn_bias = c.mlp_bias = c.norm_bias = true;
    c.tied = true, c.embedding_norm = true;
    t.push_back(c);
    published(t, 176247271424, true);
  }
}

// LLaMA and the models that follow its recipe (RMSNorm, RoPE, SwiGLU, GQA), with their variations.
void add_llama_era_models(std::vector<ArchitectureConfig>& t) {
  t.push_back(llama("LLaMA 7B", "Touvron et al. 2023a, Table 2", 2023, 4096, 32, 32, 32, 11008, 32000, 2048));
  published(t, 6.7e9, false);
  t.push_back(llama("LLaMA 65B", "Touvron et al. 2023a, Table 2", 2023, 8192, 80, 64, 64, 22016, 32000, 2048));
  published(t, 65.2e9, false);
  t.push_back(llama("Llama 2 7B", "Touvron et al. 2023b; Llama-2-7b-hf config.json and safetensors index", 2023, 4096,
                    32, 32, 32, 11008, 32000, 4096));
  published(t, 6738415616, true);
  t.push_back(llama("Llama 2 70B", "Touvron et al. 2023b; Llama-2-70b-hf config.json", 2023, 8192, 80, 64, 8, 28672,
                    32000, 4096));
  published(t, 70e9, false);
  {
    ArchitectureConfig c;
    c.name = "Falcon 7B";
    c.source = "Almazrouei et al. 2023; tiiuae/falcon-7b config.json";
    c.year = 2023;
    c.d_model = 4544, c.layers = 32, c.heads = 71, c.kv_heads = 1, c.head_dim = 64, c.d_ff = 4 * 4544;
    c.activation = "GELU", c.vocab = 65024, c.context = 2048;
    c.norm = ArchNorm::LayerNorm, c.norm_bias = true;
    c.block = ArchBlock::Parallel, c.norms_per_block = 1;
    c.tied = true;
    t.push_back(c);
    published(t, 7e9, false);
  }
  {
    ArchitectureConfig c = t.back();
    c.name = "Falcon 40B";
    c.source = "Almazrouei et al. 2023; tiiuae/falcon-40b config.json (two norms per parallel block)";
    c.d_model = 8192, c.layers = 60, c.heads = 128, c.kv_heads = 8, c.head_dim = 64, c.d_ff = 4 * 8192;
    c.norms_per_block = 2;
    t.push_back(c);
    published(t, 40e9, false);
  }
  {
    ArchitectureConfig c = llama("Mistral 7B", "Jiang et al. 2023; Mistral-7B-v0.1 config.json and safetensors index",
                                 2023, 4096, 32, 32, 8, 14336, 32000, 32768);
    t.push_back(c);
    published(t, 7241732096, true);
    c.name = "Mixtral 8x7B";
    c.source = "Jiang et al. 2024; Mixtral-8x7B-v0.1 config.json and safetensors index";
    c.year = 2024;
    c.experts = 8, c.active_experts = 2;
    t.push_back(c);
    published(t, 46702792704, true);
  }
  {
    ArchitectureConfig c = llama("Llama 3 8B",
                                 "Meta 2024 (Llama 3 model card); Meta-Llama-3-8B config.json and "
                                 "safetensors index",
                                 2024, 4096, 32, 32, 8, 14336, 128256, 8192);
    t.push_back(c);
    published(t, 8030261248, true);
    t.push_back(llama("Llama 3 70B", "Meta 2024 (Llama 3 model card); Meta-Llama-3-70B config.json", 2024, 8192, 80, 64,
                      8, 28672, 128256, 8192));
    published(t, 70e9, false);
    t.push_back(llama("Llama 3.1 405B", "Dubey et al. 2024, Table 3; Llama-3.1-405B config.json", 2024, 16384, 126, 128,
                      8, 53248, 128256, 131072));
    published(t, 405e9, false);
  }
  {
    ArchitectureConfig c = llama("Gemma 2 9B", "Gemma Team 2024, Table 1; gemma-2-9b config.json and safetensors index",
                                 2024, 3584, 42, 16, 8, 14336, 256000, 8192);
    c.head_dim = 256, c.activation = "GeGLU", c.tied = true, c.norms_per_block = 4;
    t.push_back(c);
    published(t, 9241705984, true);
    c.name = "Gemma 2 27B";
    c.source = "Gemma Team 2024, Table 1; gemma-2-27b config.json";
    c.d_model = 4608, c.layers = 46, c.heads = 32, c.kv_heads = 16, c.head_dim = 128, c.d_ff = 36864;
    t.push_back(c);
    published(t, 27e9, false);
  }
  {
    ArchitectureConfig c = llama("Qwen2.5 7B", "Qwen Team 2024; Qwen2.5-7B config.json and safetensors index", 2024,
                                 3584, 28, 28, 4, 18944, 152064, 32768);
    c.attn_bias = c.qkv_bias_only = true;
    t.push_back(c);
    published(t, 7615616512, true);
    c.name = "Qwen2.5 72B";
    c.source = "Qwen Team 2024; Qwen2.5-72B config.json";
    c.d_model = 8192, c.layers = 80, c.heads = 64, c.kv_heads = 8, c.head_dim = 128, c.d_ff = 29568;
    t.push_back(c);
    published(t, 72.7e9, false);
  }
  {
    ArchitectureConfig c = llama("OLMo 7B",
                                 "Groeneveld et al. 2024, Table 1; OLMo-7B config (non-parametric "
                                 "LayerNorm)",
                                 2024, 4096, 32, 32, 32, 11008, 50304, 2048);
    c.norm = ArchNorm::LayerNorm, c.norms_per_block = 0, c.final_norm = false;  // no learned norm weights at all
    t.push_back(c);
    published(t, 6.9e9, false);
  }
  {
    ArchitectureConfig c =
        llama("Gemma 3 1B", "Gemma Team 2025; gemma-3-1b-pt config.json", 2025, 1152, 26, 4, 1, 6912, 262144, 32768);
    c.head_dim = 256, c.activation = "GeGLU", c.tied = true, c.norms_per_block = 4, c.qk_norm = true;
    t.push_back(c);
    published(t, 1e9, false);
  }
}

std::vector<ArchitectureConfig> make_table() {
  std::vector<ArchitectureConfig> t;
  add_early_models(t);
  add_llama_era_models(t);
  return t;
}

int64_t norm_params(const ArchitectureConfig& c, int64_t width) {
  return (c.norm == ArchNorm::LayerNorm && c.norm_bias) ? 2 * width : width;
}

int64_t self_attention(const ArchitectureConfig& c) {
  const int64_t d = c.d_model, q = int64_t(c.heads) * c.head_dim, kv = int64_t(c.kv_heads) * c.head_dim;
  int64_t n = d * q + 2 * d * kv + q * d;
  if (c.attn_bias) n += q + 2 * kv + (c.qkv_bias_only ? 0 : d);
  if (c.qk_norm) n += 2 * c.head_dim;
  return n;
}

int64_t mlp_expert(const ArchitectureConfig& c) {
  const int64_t d = c.d_model, f = c.d_ff;
  int64_t n = (c.gated ? 3 : 2) * d * f;
  if (c.mlp_bias) n += (c.gated ? 2 : 1) * f + d;
  return n;
}

}  // namespace

const std::vector<ArchitectureConfig>& published_architectures() {
  static const std::vector<ArchitectureConfig> table = make_table();  // immutable after first use
  return table;
}

ParameterBreakdown count_parameters(const ArchitectureConfig& c) {
  ParameterBreakdown b;
  const int64_t d = c.d_model, L = c.layers;
  const int stacks = c.kind == ArchKind::EncoderDecoder ? 2 : 1;
  b.embedding = c.vocab * d;
  if (c.positions == ArchPositions::Learned) b.embedding += c.context * d;
  b.embedding += int64_t(c.segments) * d;
  if (c.embedding_norm) b.embedding += norm_params(c, d);
  b.attention = stacks * L * self_attention(c);
  if (c.kind == ArchKind::EncoderDecoder) b.attention += L * self_attention(c);  // the decoder's cross-attention
  b.attention += int64_t(stacks) * c.relative_buckets * c.heads;                 // one bias table per stack
  const int64_t router = c.experts > 1 ? d * c.experts : 0;
  b.mlp = stacks * L * (c.experts * mlp_expert(c) + router);
  b.norms = stacks * L * c.norms_per_block * norm_params(c, d);
  if (c.kind == ArchKind::EncoderDecoder) b.norms += L * norm_params(c, d);  // the norm before cross-attention
  if (c.final_norm) b.norms += stacks * norm_params(c, d);
  if (c.kind == ArchKind::EncoderOnly)
    b.head = d * d + d;  // BERT's pooler
  else if (!c.tied)
    b.head = c.vocab * d;
  b.total = b.embedding + b.attention + b.mlp + b.norms + b.head;
  b.active = b.total - stacks * L * (c.experts - c.active_experts) * mlp_expert(c);
  return b;
}

ArchitectureConfig architecture_of(const ModelConfig& m, const std::string& name) {
  ArchitectureConfig c;
  c.name = name;
  c.source = "config.json";
  c.d_model = m.dim, c.layers = m.n_layers, c.heads = m.n_heads, c.kv_heads = m.n_kv_heads;
  c.head_dim = m.head_dim(), c.d_ff = m.hidden, c.gated = m.gated(), c.activation = to_string(m.activation);
  c.vocab = m.vocab, c.context = m.max_seq;
  switch (m.positions) {
    case PositionType::Learned: c.positions = ArchPositions::Learned; break;
    case PositionType::Sinusoidal:
    case PositionType::None: c.positions = ArchPositions::Sinusoidal; break;  // no learned table either way
    case PositionType::RoPE: c.positions = ArchPositions::Rope; break;
    case PositionType::ALiBi: c.positions = ArchPositions::Alibi; break;
  }
  c.norm = m.norm == NormType::LayerNorm ? ArchNorm::LayerNorm : ArchNorm::RmsNorm;
  c.norm_bias = m.norm == NormType::LayerNorm;        // the workbench's LayerNorm has β
  c.attn_bias = m.attn_bias, c.qkv_bias_only = true;  // o_proj never has a bias here
  c.tied = m.tie_embeddings, c.qk_norm = m.qk_norm;
  c.final_norm = m.has_final_norm();
  if (m.moe()) c.experts = m.experts, c.active_experts = m.top_k;
  return c;
}

std::string validate(const ArchitectureConfig& c) {
  if (c.d_model < 1 || c.d_model > 1'000'000) return tr("d_model must be 1 … 1,000,000");
  if (c.layers < 1 || c.layers > 1000) return tr("layers must be 1 … 1000");
  if (c.heads < 1 || c.kv_heads < 1 || c.heads % c.kv_heads != 0)
    return tr("query heads must be a multiple of the key/value heads");
  if (c.head_dim < 1) return tr("head dimension must be at least 1");
  if (c.d_ff < 1) return tr("the MLP width must be at least 1");
  if (c.vocab < 1) return tr("the vocabulary must hold at least one token");
  if (c.experts < 1 || c.active_experts < 1 || c.active_experts > c.experts)
    return tr("active experts must be 1 … the number of experts");
  return "";
}

}  // namespace tw
