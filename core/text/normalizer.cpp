#include "core/text/normalizer.h"

#include <unicode/locid.h>
#include <unicode/normalizer2.h>
#include <unicode/uchar.h>
#include <unicode/unistr.h>

#include <nlohmann/json.hpp>

#include "core/base/i18n.h"
#include "core/base/utf8.h"
#include "core/text/tokenizer_json.h"
#include "core/text/unicode_regex.h"

namespace tw {

using nlohmann::json;

struct Normalizer::Step {
  enum Kind { Form, Lowercase, Strip, StripAccents, ReplaceString, ReplaceRegex, Prepend, Bert } kind = Form;
  const icu::Normalizer2* form = nullptr;
  bool left = true, right = true;  // Strip
  std::string pattern, content;    // Replace, Prepend
  UnicodeRegex regex;
  bool clean_text = true, chinese = true, strip_accents = false, lowercase = true;  // BertNormalizer
};

namespace {

std::string to_utf8(const icu::UnicodeString& u) {
  std::string out;
  u.toUTF8String(out);
  return out;
}

bool is_ascii(std::string_view s) {
  for (char c : s)
    if (static_cast<unsigned char>(c) >= 0x80) return false;
  return true;
}

std::string normalize_form(const icu::Normalizer2* n, std::string_view s) {
  if (is_ascii(s)) return std::string(s);  // ASCII is invariant under every form
  UErrorCode status = U_ZERO_ERROR;
  const icu::UnicodeString u = icu::UnicodeString::fromUTF8(icu::StringPiece(s.data(), int32_t(s.size())));
  const icu::UnicodeString r = n->normalize(u, status);
  return U_SUCCESS(status) ? to_utf8(r) : std::string(s);
}

std::string lowercase(std::string_view s) {
  icu::UnicodeString u = icu::UnicodeString::fromUTF8(icu::StringPiece(s.data(), int32_t(s.size())));
  u.toLower(icu::Locale::getRoot());
  return to_utf8(u);
}

std::string strip_accents(std::string_view s) {  // drops nonspacing marks (Mn), as the reference does after NFD
  std::string out;
  for (size_t i = 0; i < s.size();) {
    size_t len = 1;
    const uint32_t cp = decode_utf8_at(s, i, &len);
    if (u_charType(UChar32(cp)) != U_NON_SPACING_MARK) out.append(s.substr(i, len));
    i += len;
  }
  return out;
}

std::string strip(std::string_view s, bool left, bool right) {
  std::vector<uint32_t> cps = decode_utf8(s);
  size_t b = 0, e = cps.size();
  while (left && b < e && u_isUWhiteSpace(UChar32(cps[b]))) ++b;
  while (right && e > b && u_isUWhiteSpace(UChar32(cps[e - 1]))) --e;
  std::string out;
  for (size_t i = b; i < e; ++i) append_utf8(&out, cps[i]);
  return out;
}

// Stops copying once the output passes `bound` bytes (the caller reports it): 40 × "a" → "aa" must not double the
// text 40 times.
std::string replace_all(std::string_view s, const std::string& from, const std::string& to, size_t bound) {
  if (from.empty()) return std::string(s);
  std::string out;
  size_t i = 0;
  for (size_t k; (k = s.find(from, i)) != std::string_view::npos; i = k + from.size()) {
    out.append(s.substr(i, k - i));
    out += to;
    if (out.size() > bound) return out;
  }
  out.append(s.substr(i));
  return out;
}

bool is_chinese(uint32_t cp) {
  return (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0x3400 && cp <= 0x4DBF) || (cp >= 0x20000 && cp <= 0x2A6DF) ||
         (cp >= 0x2A700 && cp <= 0x2B73F) || (cp >= 0x2B740 && cp <= 0x2B81F) || (cp >= 0x2B920 && cp <= 0x2CEAF) ||
         (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0x2F800 && cp <= 0x2FA1F);
}

std::string bert(const Normalizer::Step& st, std::string_view s) {
  std::string out;
  for (uint32_t cp : decode_utf8(s)) {
    if (st.clean_text) {
      const int8_t type = u_charType(UChar32(cp));
      const bool control = (type == U_CONTROL_CHAR || type == U_FORMAT_CHAR || type == U_PRIVATE_USE_CHAR ||
                            type == U_SURROGATE || type == U_UNASSIGNED) &&
                           cp != '\t' && cp != '\n' && cp != '\r';
      if (cp == 0 || cp == 0xFFFD || control) continue;
      if (u_isUWhiteSpace(UChar32(cp))) cp = ' ';
    }
    if (st.chinese && is_chinese(cp)) {
      out += ' ';
      append_utf8(&out, cp);
      out += ' ';
    } else {
      append_utf8(&out, cp);
    }
  }
  if (st.strip_accents) {
    UErrorCode status = U_ZERO_ERROR;
    out = strip_accents(normalize_form(icu::Normalizer2::getNFDInstance(status), out));
  }
  if (st.lowercase) out = lowercase(out);
  return out;
}

bool get_string(const json& j, const char* key, std::string* out) {
  if (!j.contains(key) || !j[key].is_string()) return false;
  *out = j[key].get<std::string>();
  return true;
}

bool parse(const json& j, std::vector<std::shared_ptr<const Normalizer::Step>>* steps, std::string* error,
           std::string* note, int depth) {
  if (j.is_null()) return true;
  std::string type;
  if (!open_component(j, tr("normalizer"), N_("normalizers are nested too deeply"), depth, &type, error)) return false;
  if (type == "Sequence")
    return read_sequence(
        j, tr("normalizer"), "normalizers", [&](const json& s) { return parse(s, steps, error, note, depth + 1); },
        [&] { return steps->size(); }, error);
  auto st = std::make_shared<Normalizer::Step>();
  UErrorCode status = U_ZERO_ERROR;
  if (type == "NFC" || type == "NFD" || type == "NFKC" || type == "NFKD" || type == "Precompiled") {
    st->kind = Normalizer::Step::Form;
    st->form = type == "NFC"    ? icu::Normalizer2::getNFCInstance(status)
               : type == "NFD"  ? icu::Normalizer2::getNFDInstance(status)
               : type == "NFKD" ? icu::Normalizer2::getNFKDInstance(status)
                                : icu::Normalizer2::getNFKCInstance(status);
    if (U_FAILURE(status) || !st->form) {
      *error = subst(tr("ICU has no {0} normalizer"), {type});
      return false;
    }
    if (type == "Precompiled")
      *note =
          tr("the Precompiled normalizer's character map is approximated by NFKC; a few rare characters may "
             "tokenize differently");
  } else if (type == "Lowercase") {
    st->kind = Normalizer::Step::Lowercase;
  } else if (type == "Strip") {
    st->kind = Normalizer::Step::Strip;
    st->left = json_bool(j, "strip_left", true);
    st->right = json_bool(j, "strip_right", true);
  } else if (type == "StripAccents") {
    st->kind = Normalizer::Step::StripAccents;
  } else if (type == "Replace" || type == "Prepend") {
    if (type == "Prepend") {
      st->kind = Normalizer::Step::Prepend;
      if (!get_string(j, "prepend", &st->content)) {
        *error = tr("normalizer Prepend needs a string 'prepend'");
        return false;
      }
    } else {
      const json pattern = j.contains("pattern") && j["pattern"].is_object() ? j["pattern"] : json::object();
      if (!get_string(j, "content", &st->content)) {
        *error = tr("normalizer Replace needs a string 'content'");
        return false;
      }
      if (get_string(pattern, "String", &st->pattern)) {
        st->kind = Normalizer::Step::ReplaceString;
      } else if (get_string(pattern, "Regex", &st->pattern)) {
        st->kind = Normalizer::Step::ReplaceRegex;
        if (!st->regex.compile(st->pattern, error, "normalizer Replace")) return false;
      } else {
        *error = tr("normalizer Replace needs a pattern {\"String\": …} or {\"Regex\": …}");
        return false;
      }
    }
  } else if (type == "BertNormalizer") {
    st->kind = Normalizer::Step::Bert;
    st->clean_text = json_bool(j, "clean_text", true);
    st->chinese = json_bool(j, "handle_chinese_chars", true);
    st->lowercase = json_bool(j, "lowercase", true);
    st->strip_accents = json_bool(j, "strip_accents", st->lowercase);  // null: follows lowercase
  } else {
    *error = subst(tr("unknown normalizer '{0}'"), {type});
    return false;
  }
  steps->push_back(std::move(st));
  return true;
}

}  // namespace

bool Normalizer::from_json(const json& j, std::string* error, std::string* note) {
  std::vector<std::shared_ptr<const Step>> steps;
  if (!parse(j, &steps, error, note, 0)) return false;
  steps_ = std::move(steps);
  return true;
}

std::string Normalizer::apply(std::string_view text) const {
  std::string s(text);
  const size_t bound = kMaxNormalizedGrowth * text.size() + 64;  // 64: a Prepend to a short text
  for (size_t k = 0; k < steps_.size(); ++k) {
    const auto& st = steps_[k];
    if (s.size() > bound) {
      report_pipeline_failure(subst(tr("the normalizer grew the text from {0} to {1} bytes by step {2} of {3}, past "
                                       "its bound of {4}× the input"),
                                    {std::to_string(text.size()), std::to_string(s.size()), std::to_string(k),
                                     std::to_string(steps_.size()), std::to_string(kMaxNormalizedGrowth)}));
      return s;
    }
    switch (st->kind) {
      case Step::Form: s = normalize_form(st->form, s); break;
      case Step::Lowercase: s = lowercase(s); break;
      case Step::Strip: s = strip(s, st->left, st->right); break;
      case Step::StripAccents: s = strip_accents(s); break;
      case Step::ReplaceString: s = replace_all(s, st->pattern, st->content, bound); break;
      case Step::ReplaceRegex: {
        std::string out;
        size_t at = 0;
        for (const auto& [b, e] : st->regex.find_all(s)) {
          out.append(s, at, b - at);
          out += st->content;
          at = e;
          if (out.size() > bound) break;
        }
        out.append(s, at, std::string::npos);
        s = std::move(out);
        break;
      }
      case Step::Prepend:
        if (!s.empty()) s = st->content + s;
        break;
      case Step::Bert: s = bert(*st, s); break;
    }
  }
  if (s.size() > bound)
    report_pipeline_failure(
        subst(tr("the normalizer grew the text from {0} to {1} bytes, past its bound of {2}× the "
                 "input"),
              {std::to_string(text.size()), std::to_string(s.size()), std::to_string(kMaxNormalizedGrowth)}));
  return s;
}

}  // namespace tw
