#include "core/model/stepper_model.h"

#include <algorithm>
#include <filesystem>

#include "core/assets.h"
#include "core/base/i18n.h"
#include "core/base/read_file.h"
#include "core/base/utf8.h"
#include "core/model/hf_model.h"
#include "core/text/byte_tokenizer.h"

namespace tw {

namespace fs = std::filesystem;

// [SECTION] vocabulary

namespace {
constexpr const char* kVisibleSpace = "\xE2\x90\xA3";  // ␣, the task's name for a space token

// The first UTF-8 character of `text` from `pos` (a lone byte when it is not valid UTF-8), for messages.
std::string char_at(const std::string& text, size_t pos) {
  const size_t n = utf8_sequence_length(text, pos);
  return text.substr(pos, n ? n : 1);
}
}  // namespace

std::shared_ptr<const TokenVocabulary> TokenVocabulary::bytes() {
  static const auto shared = [] {
    auto v = std::make_shared<TokenVocabulary>();
    for (int b = 0; b < 256; ++b) v->bytes_.push_back(std::string(1, static_cast<char>(b)));
    v->bytes_.push_back("");  // <bos>
    return std::shared_ptr<const TokenVocabulary>(std::move(v));
  }();
  return shared;
}

std::shared_ptr<const TokenVocabulary> TokenVocabulary::symbols(std::vector<std::string> token_strings,
                                                                std::string task) {
  auto v = std::make_shared<TokenVocabulary>();
  v->kind_ = Kind::Symbols;
  v->symbols_ = std::move(token_strings);
  v->task_ = std::move(task);
  return v;
}

std::shared_ptr<const TokenVocabulary> TokenVocabulary::bpe(std::shared_ptr<const Tokenizer> tokenizer) {
  auto v = std::make_shared<TokenVocabulary>();
  v->kind_ = Kind::Bpe;
  v->bpe_ = std::move(tokenizer);
  v->bytes_.reserve(size_t(v->bpe_->vocab_size()));
  for (int id = 0; id < v->bpe_->vocab_size(); ++id)
    v->bytes_.push_back(v->bpe_->is_special(id) ? std::string() : v->bpe_->token_bytes(id));
  return v;
}

std::string TokenVocabulary::decode(const std::vector<int>& ids) const {
  if (kind_ == Kind::Bpe) return bpe_->decode(ids, /*skip_special=*/true);
  std::string out;
  for (int id : ids)
    out += kind_ == Kind::Bytes && id >= 0 && size_t(id) < bytes_.size() ? bytes_[size_t(id)] : label(id);
  return out;
}

std::vector<char> TokenVocabulary::utf8_allowed_after(const std::vector<int>& ids) const {
  if (bytes_.empty()) return {};
  std::string text;
  for (size_t i = 0; i < ids.size(); ++i)
    if (ids[i] >= 0 && size_t(ids[i]) < bytes_.size()) text += bytes_[size_t(ids[i])];
  std::vector<char> allowed = utf8_allowed_tokens(bytes_, utf8_unfinished_tail(text));
  // Special tokens (bytes "") end or mark the text: allowed only between whole characters.
  const bool whole = utf8_unfinished_tail(text).empty();
  for (size_t id = 0; id < bytes_.size(); ++id)
    if (bytes_[id].empty()) allowed[id] = whole ? 1 : 0;
  return allowed;
}

std::shared_ptr<const TokenVocabulary> TokenVocabulary::ids(int vocab_size) {
  auto v = std::make_shared<TokenVocabulary>();
  v->kind_ = Kind::Ids;
  v->id_count_ = std::max(vocab_size, 0);
  return v;
}

namespace {
// "1 15043, 29892": numbers separated by spaces or commas, each in [0, count).
bool parse_token_ids(const std::string& text, int count, std::vector<int>* ids, std::string* error) {
  std::vector<int> out;
  size_t pos = 0;
  while (pos < text.size()) {
    const unsigned char c = static_cast<unsigned char>(text[pos]);
    if (c == ' ' || c == ',' || c == '\t' || c == '\n' || c == '\r') {
      ++pos;
      continue;
    }
    size_t end = pos;
    while (end < text.size() && text[end] != ' ' && text[end] != ',' && text[end] != '\t' && text[end] != '\n' &&
           text[end] != '\r')
      ++end;
    const std::string word = text.substr(pos, end - pos);
    long long value = -1;
    bool digits = word.size() <= 12;
    for (char d : word) digits = digits && d >= '0' && d <= '9';
    if (digits) value = std::stoll(word);
    if (!digits || value >= count) {
      std::string shown = word;
      if (shown.size() > 24) shown.resize(24), shown += "...";
      *error = subst(tr("'{0}' is not a token id: this folder has no tokenizer.json, so type ids from 0 to {1} "
                        "separated by spaces"),
                     {shown, std::to_string(count - 1)});
      return false;
    }
    out.push_back(static_cast<int>(value));
    pos = end;
  }
  *ids = std::move(out);
  return true;
}
}  // namespace

bool TokenVocabulary::encode(const std::string& text, bool bos, std::vector<int>* ids, std::string* error) const {
  switch (kind_) {
    case Kind::Bytes: *ids = ByteTokenizer::encode(text, bos); return true;
    case Kind::Bpe: return bpe_->encode_checked(text, bos && bpe_->bos_id() >= 0, ids, error);
    case Kind::Ids: return parse_token_ids(text, id_count_, ids, error);
    case Kind::Symbols: break;
  }
  // Longest match, so a vocabulary with "1" and "17" reads "17" as one token, as the task wrote it.
  bool has_space = false;
  for (const std::string& s : symbols_) has_space = has_space || s == " " || s == kVisibleSpace;
  std::vector<int> out;
  size_t pos = 0;
  while (pos < text.size()) {
    int best = -1;
    size_t best_len = 0;
    for (size_t id = 0; id < symbols_.size(); ++id) {
      const std::string& s = symbols_[id];
      size_t len = 0;
      if (!s.empty() && text.compare(pos, s.size(), s) == 0)
        len = s.size();
      else if (s == kVisibleSpace && text[pos] == ' ')
        len = 1;
      if (len > best_len) best = static_cast<int>(id), best_len = len;
    }
    if (best < 0 && text[pos] == ' ' && !has_space) {
      ++pos;  // spaces only separate symbols here
      continue;
    }
    if (best < 0) {
      std::string list;
      for (size_t id = 0; id < symbols_.size() && id < 24; ++id) list += (id ? " " : "") + symbols_[id];
      if (symbols_.size() > 24) list += " ...";
      *error = subst(tr("'{0}' is not in the {1} vocabulary ({2})"), {char_at(text, pos), task_, list});
      return false;
    }
    out.push_back(best);
    pos += best_len;
  }
  *ids = std::move(out);
  return true;
}

std::string TokenVocabulary::label(int id) const {
  switch (kind_) {
    case Kind::Bytes: return ByteTokenizer::label(id);
    case Kind::Symbols:
      if (id >= 0 && id < static_cast<int>(symbols_.size())) return symbols_[static_cast<size_t>(id)];
      return "<id " + std::to_string(id) + ">";
    case Kind::Bpe: {
      std::string l = bpe_->label(id);
      return l.empty() ? "<id " + std::to_string(id) + ">" : l;
    }
    case Kind::Ids: return std::string("#").append(std::to_string(id));
  }
  return {};
}

std::string TokenVocabulary::text(const std::vector<int>& ids) const {
  switch (kind_) {
    case Kind::Bytes: return ByteTokenizer::decode(ids);
    case Kind::Bpe: return bpe_->decode(ids, true);
    case Kind::Symbols: {
      std::string out;
      for (int id : ids) {
        const std::string l = label(id);
        out += l == "\xE2\x90\xA3" ? std::string(" ") : l;  // ␣
      }
      return out;
    }
    case Kind::Ids: {
      std::string out;
      for (int id : ids) out += (out.empty() ? "" : " ") + label(id);
      return out;
    }
  }
  return {};
}

std::string TokenVocabulary::spelling(int id) const {
  if (kind_ == Kind::Bpe) return bpe_->token_string(id);
  if (kind_ == Kind::Bytes && id >= 0 && id < 256) return std::string(1, static_cast<char>(id));
  return label(id);
}

TokenDisplay TokenVocabulary::display(const std::vector<int>& ids, size_t i) const {
  if (i >= ids.size()) return {};
  if (kind_ == Kind::Symbols || kind_ == Kind::Ids) {  // whole symbols or bare ids: nothing to assemble
    TokenDisplay d;
    d.text = label(ids[i]);
    return d;
  }
  // A character spans at most 4 bytes, so 3 tokens either side are enough context.
  const size_t b = i >= 3 ? i - 3 : 0, e = std::min(ids.size(), i + 4);
  const std::vector<int> window(ids.begin() + std::ptrdiff_t(b), ids.begin() + std::ptrdiff_t(e));
  if (kind_ == Kind::Bpe) return display_tokens(*bpe_, window)[i - b];
  // Bytes: a byte of a longer character shows as ⟨E5⟩, with the character its neighbours complete.
  std::vector<std::string> bytes;
  std::vector<bool> special;
  for (int id : window) {
    special.push_back(id < 0 || id >= 256);
    bytes.push_back(special.back() ? label(id) : std::string(1, static_cast<char>(id)));
  }
  return display_token_bytes(bytes, special)[i - b];
}

int TokenVocabulary::size() const {
  switch (kind_) {
    case Kind::Bytes: return ByteTokenizer::kBos + 1;
    case Kind::Symbols: return static_cast<int>(symbols_.size());
    case Kind::Bpe: return bpe_->vocab_size();
    case Kind::Ids: return id_count_;
  }
  return 0;
}

bool TokenVocabulary::has_bos() const { return kind_ == Kind::Bytes || (kind_ == Kind::Bpe && bpe_->bos_id() >= 0); }

std::string TokenVocabulary::describe() const {
  switch (kind_) {
    case Kind::Bytes: return tr("byte tokenizer: every UTF-8 byte is one token");
    case Kind::Symbols: {
      std::string list;
      for (size_t id = 0; id < symbols_.size() && id < 24; ++id) list += (id ? " " : "") + symbols_[id];
      return subst(tr("{0} symbols: {1}"), {task_, list + (symbols_.size() > 24 ? " ..." : "")});
    }
    case Kind::Bpe:
      // A BPE file without merges and with byte fallback is a character vocabulary (the shipped Chinese model's):
      // calling it BPE would tell a learner the wrong thing about how its text is cut.
      if (bpe_->model() == TokenizerModel::BPE && bpe_->merge_count() == 0 && bpe_->byte_fallback())
        return subst(tr("characters, rare ones as UTF-8 bytes (BPE without merges), {0} tokens"),
                     {std::to_string(bpe_->vocab_size())});
      return subst(bpe_->kind() == BpeKind::ByteLevel ? tr("byte-level BPE, {0} tokens")
                                                      : tr("SentencePiece-style BPE, {0} tokens"),
                   {std::to_string(bpe_->vocab_size())});
    case Kind::Ids:
      return subst(tr("token ids 0 to {0} typed as numbers (no tokenizer.json)"), {std::to_string(id_count_ - 1)});
  }
  return {};
}

// [SECTION] models

std::string shipped_models_dir() { return find_asset_dir("models"); }

bool load_hf_folder_model(const std::string& dir, const std::function<bool(double)>& progress, StepperModel* out,
                          std::string* error) {
  std::error_code ec;
  HfLoadOptions options;
  options.progress = progress;
  HfModel hf;
  if (!load_hf_model(dir, options, &hf, error)) return false;
  const fs::path p = fs::weakly_canonical(dir, ec);
  out->name = (ec ? fs::path(dir) : p).filename().string();
  if (out->name.empty()) out->name = dir;
  out->source =
      subst(hf.shards == 1 ? tr("{0} from {1} (1 safetensors file)") : tr("{0} from {1} ({2} safetensors files)"),
            {hf.architecture, dir, std::to_string(hf.shards)});
  out->config = hf.config;
  out->weights = std::make_shared<const ModelWeights>(std::move(hf.weights));
  out->tokenizer_json.clear();
  if (hf.has_tokenizer) {
    // The file load_hf_model has just parsed, kept as text for a fine-tune's language data.
    std::string why;
    if (!read_file_bounded((fs::path(dir) / "tokenizer.json").string(), kMaxTokenizerBytes, &out->tokenizer_json, &why))
      out->tokenizer_json.clear();
    out->vocabulary = TokenVocabulary::bpe(std::make_shared<const Tokenizer>(std::move(hf.tokenizer)));
    out->example = "The capital of France is";
  } else {  // the stepper still runs: the prompt is typed as ids
    out->vocabulary = TokenVocabulary::ids(hf.config.vocab);
    out->source += "; " + (hf.tokenizer_warning.empty() ? std::string(tr("no tokenizer.json: type token ids"))
                                                        : subst(tr("{0}: type token ids"), {hf.tokenizer_warning}));
    const int n = std::min(hf.config.vocab, 4);
    for (int id = 1; id < n; ++id) out->example.append(id > 1 ? " " : "").append(std::to_string(id));
  }
  return true;
}

}  // namespace tw
