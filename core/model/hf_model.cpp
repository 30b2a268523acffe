#include "core/model/hf_model.h"
#include "core/base/json_parse.h"
#include "core/fail.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>

#include "core/base/i18n.h"
#include "core/base/read_file.h"
#include "core/io/atomic_file.h"
#include "core/model/hf_layout.h"

namespace tw {

namespace {

using nlohmann::json;
namespace fs = std::filesystem;

// A JSON file of the folder (config, index, tokenizer_config): through the bounded reader, as every file a user
// points at, so a FIFO or a huge file named config.json is refused instead of read. Why it failed is dropped: the
// callers name the file in their own message.
bool read_json_text(const fs::path& path, std::string* out, std::string* why = nullptr) {
  std::string ignored;
  return read_file_bounded(path.string(), kMaxConfigBytes, out, why ? why : &ignored);
}

}  // namespace

// [SECTION] config.json

bool hf_config_from_json(const std::string& text, const HfLoadOptions& options, ModelConfig* out,
                         std::string* architecture, std::string* error) {
  json j;
  std::string why;
  if (!parse_json_object(text, &j, &why)) return fail(error, "config.json: " + why);
  std::string arch;
  if (j.contains("architectures") && j["architectures"].is_array() && !j["architectures"].empty())
    arch = j["architectures"][0].is_string() ? j["architectures"][0].get<std::string>() : "?";
  else if (j.contains("model_type") && j["model_type"].is_string())  // older configs name only the model type
    arch = j["model_type"].get<std::string>();
  Family family = Family::Llama;
  if (!family_from_architecture(arch, &family))
    return fail(error, subst(tr("config.json: architecture '{0}' is not supported (supported: {1})"),
                             {arch.empty() ? std::string(tr("(none given)")) : arch, supported_architectures()}));
  arch = hf_class_name(arch);  // a model_type: name the class
  if (j.contains("quantization_config"))
    return fail(error, tr("config.json: quantized checkpoints (quantization_config) are not supported; use an F32, "
                          "F16 or BF16 export"));
  if (j.contains("mlp_bias") && j["mlp_bias"].is_boolean() && j["mlp_bias"].get<bool>())
    return fail(error, tr("config.json: mlp_bias (biases in the MLP projections) is not supported"));
  // Hugging Face's defaults for the LLaMA classes where ours differ (the other families' in config_from_json).
  if (family == Family::Llama && !j.contains("rms_norm_eps")) j["rms_norm_eps"] = 1e-6;
  if (family == Family::Llama && !j.contains("tie_word_embeddings")) j["tie_word_embeddings"] = false;
  if (!j.contains("architectures") || !j["architectures"].is_array()) j["architectures"] = json::array({arch});
  // A folder the workbench wrote names its own MLP in tw_activation (hidden_act then only mirrors it for other
  // readers, "relu" for an ungated ReLU MLP): config_from_json reads that one.
  if (family == Family::Llama && !j.contains("tw_activation") && j.contains("hidden_act") &&
      j["hidden_act"].is_string() && j["hidden_act"].get<std::string>() != "silu")
    return fail(error, subst(tr("config.json: hidden_act '{0}' is not supported for {1} (silu)"),
                             {j["hidden_act"].get<std::string>(), arch}));
  // The trained context stays what the file says (rope scaling measures against it); the workbench runs at most
  // options.max_seq tokens.
  int trained = 2048;
  const char* positions_key =
      family == Family::GPT2 && j.contains("n_positions") ? "n_positions" : "max_position_embeddings";
  if (j.contains(positions_key)) {
    const json& m = j[positions_key];
    if (!m.is_number_integer() || m.get<int64_t>() < 1)
      return fail(error, subst(tr("config.json: {0} must be a whole number of at least 1, not {1}"),
                               {positions_key, m.dump()}));
    trained = static_cast<int>(std::min<int64_t>(m.get<int64_t>(), 1 << 24));
  }
  if (j.contains("rope_scaling") && j["rope_scaling"].is_object() &&
      !j["rope_scaling"].contains("original_max_position_embeddings"))
    j["rope_scaling"]["original_max_position_embeddings"] = trained;
  const int max_seq = std::max(1, std::min(trained, options.max_seq));
  j["max_position_embeddings"] = max_seq;
  if (family == Family::GPT2) j["n_positions"] = max_seq;  // wpe keeps its rows on disk; the first max_seq are read
  // A window at least as long as the sequences the workbench runs never masks anything: keep the layers full
  // (Gemma 3 keeps its pattern: its local layers also rotate with their own RoPE base).
  if (family != Family::Gemma3 && j.contains("sliding_window") && j["sliding_window"].is_number_integer() &&
      j["sliding_window"].get<int64_t>() >= max_seq)
    j["sliding_window"] = nullptr;
  j["tw_memory_cap_mb"] = options.memory_cap_mb;
  ModelConfig c;
  if (!config_from_json(j.dump(), &c, error)) return false;
  *out = c;
  *architecture = arch;
  return true;
}

// [SECTION] weights

namespace {

// Where each tensor lives: the shard files (index.json's weight_map, or the one model.safetensors).
struct TensorSource {
  std::vector<SafeTensorsFile> files;
  std::map<std::string, std::pair<size_t, const TensorEntry*>> tensors;  // name → (file, entry)
};

bool open_sources(const fs::path& dir, TensorSource* src, std::string* error) {
  const fs::path index = dir / "model.safetensors.index.json";
  std::vector<std::string> names;
  std::map<std::string, std::string> weight_map;
  std::string write_id;  // metadata.tw_write_id of an index the workbench wrote
  std::error_code ec;
  if (fs::exists(index, ec)) {
    std::string text;
    if (!read_json_text(index, &text)) return fail(error, subst(tr("cannot read '{0}'"), {index.string()}));
    const json j = parse_json_or_discarded(text);
    if (j.is_discarded() || !j.is_object() || !j.contains("weight_map") || !j["weight_map"].is_object())
      return fail(error,
                  index.string() + ": " + tr("expected an object with a 'weight_map' of tensor name → shard file"));
    if (j.contains("metadata") && j["metadata"].is_object() && j["metadata"].contains("tw_write_id") &&
        j["metadata"]["tw_write_id"].is_string())
      write_id = j["metadata"]["tw_write_id"].get<std::string>();
    for (auto it = j["weight_map"].begin(); it != j["weight_map"].end(); ++it) {
      if (!it.value().is_string())
        return fail(error, index.string() + ": " + tr("weight_map values must be file names"));
      const std::string file = it.value().get<std::string>();
      // Shards live beside the index: a path elsewhere is refused rather than followed.
      if (file.empty() || file.find('/') != std::string::npos || file.find('\\') != std::string::npos || file == "." ||
          file == "..")
        return fail(error, index.string() + ": " +
                               subst(tr("shard name '{0}' must be a plain file name in the folder"), {file}));
      weight_map[it.key()] = file;
      if (std::find(names.begin(), names.end(), file) == names.end()) names.push_back(file);
    }
  } else if (fs::exists(dir / "model.safetensors", ec)) {
    names.push_back("model.safetensors");
  } else {
    return fail(error,
                subst(tr("'{0}' has neither model.safetensors nor model.safetensors.index.json"), {dir.string()}));
  }
  src->files.resize(names.size());
  for (size_t i = 0; i < names.size(); ++i)
    if (!src->files[i].open((dir / names[i]).string(), error)) return false;
  // An index written by the workbench names its write; every shard it lists must come from that write.
  if (!write_id.empty())
    for (size_t i = 0; i < names.size(); ++i) {
      const auto& meta = src->files[i].header().metadata;
      const auto it = meta.find("tw_write_id");
      if (it == meta.end() || it->second != write_id)
        return fail(error, subst(tr("{0} belongs to another write than model.safetensors.index.json (a dump into "
                                    "this folder was interrupted?); write the checkpoint again"),
                                 {(dir / names[i]).string()}));
    }
  for (size_t i = 0; i < names.size(); ++i)
    for (const TensorEntry& e : src->files[i].header().entries) {
      if (!weight_map.empty()) {
        auto it = weight_map.find(e.name);
        if (it == weight_map.end() || it->second != names[i]) continue;  // the index decides which copy counts
      }
      src->tensors[e.name] = {i, &e};
    }
  for (const auto& [name, file] : weight_map)
    if (!src->tensors.count(name))
      return fail(error,
                  subst(tr("model.safetensors.index.json puts '{0}' in {1}, which does not hold it"), {name, file}));
  return true;
}

}  // namespace

namespace {

// config.json of a folder, read and understood; the folder itself checked first.
bool read_folder_config(const fs::path& dir, const HfLoadOptions& options, HfModel* m, std::string* text,
                        std::string* error) {
  const std::string dir_name = dir.string();
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return fail(error, subst(tr("'{0}' is not a folder"), {dir_name}));
  // `train` writes run.json last: a folder it wrote into (metrics.csv) without one is a run that stopped half-way.
  if (fs::exists(dir / "metrics.csv", ec) && !fs::exists(dir / "run.json", ec))
    return fail(error, subst(tr("'{0}' has no run.json, so the training run that wrote it did not finish; train again"),
                             {dir_name}));
  if (std::string why; !read_json_text(dir / "config.json", text, &why))  // why: a symlink loop, a FIFO, ...
    return fail(error, subst(tr("'{0}' has no readable config.json: {1}"), {dir_name, why}));
  if (!hf_config_from_json(*text, options, &m->config, &m->architecture, error)) {
    *error = (dir / "config.json").string() + ": " + error->substr(error->find(':') + 2);
    return false;
  }
  return true;
}

// Where each of the model's tensors comes from in the checkpoint, checked against it before anything is read.
struct CheckpointPlan {
  std::string prefix;                                  // "transformer." for a GPT2LMHeadModel checkpoint, else ""
  std::map<std::string, HfSource> sources;             // model tensor name → its part of a checkpoint tensor
  std::map<std::string, std::vector<int64_t>> needed;  // checkpoint tensor name → shape, in no particular order
  std::vector<std::string> needed_order;               // ... and in forward order, for the first missing one
  int64_t total_bytes = 0;                             // bytes of the checkpoint tensors the model reads
};

// Every tensor of the checkpoint must be one the model uses (a tied checkpoint may still carry lm_head), and every
// needed tensor must be present with the right shape, before a single float is allocated or read: a wrong folder
// fails in milliseconds instead of after reading gigabytes.
bool plan_checkpoint(const HfModel& m, const TensorSource& src, CheckpointPlan* plan, std::string* error) {
  // GPT-2 checkpoints name their tensors with or without the "transformer." prefix (GPT2LMHeadModel vs GPT2Model).
  plan->prefix = m.config.family == Family::GPT2 && src.tensors.count("transformer.wte.weight") ? "transformer." : "";
  // Fused and transposed parts for GPT-2 and Phi-3.
  for (const TensorSpec& spec : tensor_specs(m.config)) {
    HfSource s = hf_source(m.config, spec.name, spec.shape, plan->prefix);
    if (!plan->needed.count(s.name)) plan->needed_order.push_back(s.name);
    plan->needed[s.name] = s.shape;
    plan->sources[spec.name] = std::move(s);
  }
  for (const auto& [name, where] : src.tensors) {
    const bool used = plan->needed.count(name) > 0;
    const bool ignorable = (name == "lm_head.weight" && m.config.tie_embeddings) || hf_ignored_tensor(m.config, name);
    if (!used && !ignorable)
      return fail(error, subst(tr("checkpoint has tensor '{0}' that a {1} with this config.json does not use"),
                               {name, m.architecture}));
    if (used) plan->total_bytes += static_cast<int64_t>(where.second->end - where.second->begin);
  }
  // GPT-2's wpe may hold more positions than the workbench runs (n_positions on disk, max_seq here): its first
  // max_seq rows are read.
  const std::string positions = plan->prefix + "wpe.weight";
  for (const std::string& name : plan->needed_order) {
    auto it = src.tensors.find(name);
    const std::vector<int64_t>& want = plan->needed[name];
    if (it == src.tensors.end())
      return fail(error, subst(tr("checkpoint has no tensor '{0}' (shape {1}) that config.json needs"),
                               {name, shape_text(want)}));
    const std::vector<int64_t>& have = it->second.second->shape;
    const bool longer_positions = m.config.family == Family::GPT2 && name == positions && have.size() == 2 &&
                                  want.size() == 2 && have[1] == want[1] && have[0] >= want[0];
    if (have != want && !longer_positions)
      return fail(error, subst(tr("tensor '{0}' has shape {1} but config.json needs {2}"),
                               {name, shape_text(have), shape_text(want)}));
  }
  return true;
}

// A NaN or infinite weight poisons every activation downstream: name the tensor now, not the first activation it
// reaches ("q_rope has NaN") nor a "diverged" fine-tune.
bool check_finite_tensor(const std::string& name, const float* data, const std::vector<int64_t>& shape,
                         std::string* error) {
  size_t count = 1, bad = 0, first = 0;
  for (int64_t d : shape) count *= size_t(d);
  for (size_t i = 0; i < count; ++i)
    if (!std::isfinite(data[i]) && bad++ == 0) first = i;
  if (!bad) return true;
  return fail(error, subst(trn("tensor '{0}' has {1} non-finite value (first: {2} at flat index {3}); the "
                               "checkpoint is damaged or comes from a diverged training run",
                               "tensor '{0}' has {1} non-finite values (first: {2} at flat index {3}); the "
                               "checkpoint is damaged or comes from a diverged training run",
                               bad),
                           {name, std::to_string(bad),
                            std::isnan(data[first]) ? "NaN"
                            : data[first] > 0       ? "inf"
                                                    : "-inf",
                            std::to_string(first)}));
}

// Reads the model's tensors out of the checkpoint files. A fused checkpoint tensor is read once and kept while its
// parts are taken (c_attn's q, k, v and its bias alternate, so two slots, reused in turn). The slots' storage is
// reused and never zero-filled: a GPT-2 reads every Conv1D tensor through them, and fresh zeroed buffers cost a
// quarter of its load time.
class CheckpointReader {
 public:
  CheckpointReader(TensorSource& src, const CheckpointPlan& plan, const HfLoadOptions& options)
      : src_(src), plan_(plan), options_(options) {}

  bool read(const std::string& name, const std::vector<int64_t>& shape, float* dst, std::string* err) {
    const HfSource& s = plan_.sources.at(name);
    const auto& [file, entry] = src_.tensors.at(s.name);
    const bool whole = !s.transposed && s.offset == 0 && entry->shape == shape;
    if (whole) {
      if (!src_.files[file].read(*entry, dst, err)) return false;
      done_bytes_ += static_cast<int64_t>(entry->end - entry->begin);
    } else {
      const float* fused = fused_tensor(s.name, file, *entry, err);
      if (!fused) return false;
      HfSource part = s;
      part.shape = entry->shape;
      take_part(dst, shape, fused, part);
    }
    if (!check_finite_tensor(s.name, dst, shape, err)) return false;
    const double fraction = plan_.total_bytes > 0 ? double(done_bytes_) / double(plan_.total_bytes) : 1.0;
    if (options_.progress && !options_.progress(fraction)) return fail(err, tr("loading cancelled"));
    return true;
  }
  int64_t done_bytes() const { return done_bytes_; }

 private:
  struct FusedSlot {
    std::string name;
    std::unique_ptr<float[]> data;
    size_t capacity = 0;
  };

  // The whole checkpoint tensor `name`, from a slot when it was read for an earlier part; nullptr on a read error.
  const float* fused_tensor(const std::string& name, size_t file, const TensorEntry& entry, std::string* err) {
    for (FusedSlot& slot : fused_)
      if (slot.name == name) return slot.data.get();
    FusedSlot& slot = fused_[next_slot_];
    next_slot_ = 1 - next_slot_;
    slot.name.clear();  // (stays empty if the read fails)
    size_t count = 1;
    for (const int64_t d : entry.shape) count *= static_cast<size_t>(d);
    if (slot.capacity < count) {
      slot.data.reset(new float[count]);
      slot.capacity = count;
    }
    if (!src_.files[file].read(entry, slot.data.get(), err)) return nullptr;
    slot.name = name;
    done_bytes_ += static_cast<int64_t>(entry.end - entry.begin);
    return slot.data.get();
  }

  TensorSource& src_;
  const CheckpointPlan& plan_;
  const HfLoadOptions& options_;
  std::array<FusedSlot, 2> fused_;
  size_t next_slot_ = 0;
  int64_t done_bytes_ = 0;
};

// The tokenizer is optional (token ids still work without one); a file we cannot read is reported, not fatal.
void attach_tokenizer(const fs::path& dir, const std::string& config_text, HfModel* m) {
  const fs::path tok = dir / "tokenizer.json";
  std::error_code ec;
  if (!fs::exists(tok, ec)) return;
  std::string tok_error;
  if (!load_tokenizer(tok.string(), &m->tokenizer, &tok_error)) {
    m->tokenizer_warning = tok_error;
    return;
  }
  m->has_tokenizer = true;
  // "bos as the config says": tokenizer_config.json's add_bos_token overrides the template, and config.json's
  // bos_token_id names the token when the template does not.
  const json cfg = parse_json_or_discarded(config_text);
  int bos = m->tokenizer.bos_id();
  bool add = m->tokenizer.adds_bos();
  if (bos < 0 && cfg.contains("bos_token_id") && cfg["bos_token_id"].is_number_integer())
    bos = cfg["bos_token_id"].get<int>();
  std::string tc;
  if (read_json_text(dir / "tokenizer_config.json", &tc)) {
    const json t = parse_json_or_discarded(tc);
    if (t.is_object() && t.contains("add_bos_token") && t["add_bos_token"].is_boolean())
      add = t["add_bos_token"].get<bool>();
  }
  if (bos >= m->config.vocab) bos = -1;
  m->tokenizer.set_bos(bos, add);
  if (m->tokenizer.vocab_size() > m->config.vocab)
    m->tokenizer_warning = subst(tr("tokenizer.json has {0} tokens but the model only {1}"),
                                 {std::to_string(m->tokenizer.vocab_size()), std::to_string(m->config.vocab)});
}

}  // namespace

bool load_hf_model(const std::string& dir_name, const HfLoadOptions& options, HfModel* out, std::string* error) {
  const fs::path dir(dir_name);
  HfModel m;
  m.dir = dir_name;
  std::string config_text;
  if (!read_folder_config(dir, options, &m, &config_text, error)) return false;
  TensorSource src;
  if (!open_sources(dir, &src, error)) return false;
  CheckpointPlan plan;
  if (!plan_checkpoint(m, src, &plan, error)) return false;
  if (!src.tensors.empty()) m.stored_dtype = src.tensors.begin()->second.second->dtype;
  // Gemma's embedding scale is √C cast to the weights' dtype (Gemma3TextScaledWordEmbedding): the checkpoint's.
  if (m.config.embed_scale > 0)
    m.config.embed_scale = round_to_storage(std::sqrt(static_cast<float>(m.config.dim)), m.stored_dtype);
  CheckpointReader reader(src, plan, options);
  const TensorReader read = [&](const std::string& name, const std::vector<int64_t>& shape, float* dst,
                                std::string* err) { return reader.read(name, shape, dst, err); };
  if (!weights_from_reader(m.config, read, &m.weights, error)) return false;
  m.stored_bytes = reader.done_bytes();
  m.shards = static_cast<int>(src.files.size());
  attach_tokenizer(dir, config_text, &m);
  *out = std::move(m);
  return true;
}

// [SECTION] saving

bool save_hf_checkpoint(const std::string& dir_name, const ModelWeights& weights, const ModelConfig& config,
                        const HfSaveOptions& options, std::vector<std::string>* files, std::string* error) {
  const fs::path dir(dir_name);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return fail(error, subst(tr("cannot create '{0}': {1}"), {dir_name, ec.message()}));
  files->clear();
  if (!save_config((dir / "config.json").string(), config, error)) return false;
  files->push_back("config.json");
  // Streamed from the model's own matrices (no SafeTensors copy, no byte buffer): the memory estimate counts none.
  // GPT-2 and Phi-3 store fused (and GPT-2 transposed) tensors: those are assembled once for the write.
  std::vector<std::vector<float>> fused;
  const std::vector<TensorView> all = hf_tensor_views(tensor_views(weights, config), config, &fused);
  // Every shard and the index carry the id of this write, so a folder mixing shards of two writes (a re-dump killed
  // half-way) is refused by the loader instead of loading mixed weights.
  const std::string run_id =
      std::to_string(std::chrono::system_clock::now().time_since_epoch().count()) + "-" + std::to_string(::getpid());
  std::map<std::string, std::string> metadata = {{"format", "pt"}, {"producer", "transformer-workbench"}};
  const int64_t es = storage_bytes(options.dtype);
  // Greedy shards in tensor order, as transformers' shard_checkpoint does.
  std::vector<std::vector<TensorView>> shards;
  int64_t current = 0;
  for (const TensorView& t : all) {
    const int64_t bytes = static_cast<int64_t>(t.count) * es;
    if (shards.empty() || (options.shard_bytes > 0 && current > 0 && current + bytes > options.shard_bytes)) {
      shards.emplace_back();
      current = 0;
    }
    shards.back().push_back(t);
    current += bytes;
  }
  if (shards.empty()) shards.emplace_back();
  const fs::path single = dir / "model.safetensors", index = dir / "model.safetensors.index.json";
  if (shards.size() == 1) {
    if (!write_safetensors(single.string(), shards[0], metadata, error, options.dtype)) return false;
    fs::remove(index, ec);  // a stale index would take precedence over the new file
    files->push_back("model.safetensors");
    return true;
  }
  // The index is written last: an earlier write's index goes first, so a write killed half-way leaves no index that
  // names a mix of old and new shards.
  fs::remove(index, ec);
  metadata["tw_write_id"] = run_id;
  json weight_map = json::object();
  int64_t total = 0;
  for (size_t i = 0; i < shards.size(); ++i) {
    char name[64];
    std::snprintf(name, sizeof name, "model-%05zu-of-%05zu.safetensors", i + 1, shards.size());
    if (!write_safetensors((dir / name).string(), shards[i], metadata, error, options.dtype)) return false;
    files->push_back(name);
    for (const TensorView& t : shards[i]) {
      weight_map[t.name] = name;
      total += static_cast<int64_t>(t.count) * es;
    }
  }
  json j = {{"metadata", {{"total_size", total}, {"tw_write_id", run_id}}}, {"weight_map", weight_map}};
  if (!write_file_atomic(index.string(), j.dump(2) + "\n", error)) return false;
  fs::remove(single, ec);  // the index is read first anyway; no second copy of the weights lying around
  files->push_back("model.safetensors.index.json");
  return true;
}

}  // namespace tw
