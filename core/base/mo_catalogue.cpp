#include "core/base/mo_catalogue.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <sstream>

namespace tw {

namespace {

constexpr uint32_t kMagic = 0x950412de;

uint32_t swap32(uint32_t v) { return (v >> 24) | ((v >> 8) & 0xff00u) | ((v << 8) & 0xff0000u) | (v << 24); }

// The hash function msgfmt fills the table with (gettext's hash-string.c, "hashpjw" on 32-bit words).
uint32_t hash_pjw(std::string_view s) {
  uint32_t h = 0;
  for (unsigned char c : s) {
    h = (h << 4) + c;
    const uint32_t g = h & 0xf0000000u;
    if (g != 0) h ^= (g >> 24) ^ g;
  }
  return h;
}

// The part of an original string before its first NUL (the singular of a plural entry).
std::string_view key_of(std::string_view original) { return original.substr(0, original.find('\0')); }

// [SECTION] Plural-Forms expressions: a recursive-descent parser over C's precedence levels.
class PluralParser {
 public:
  PluralParser(std::string_view s, unsigned long n) : s_(s), n_(n) {}
  std::optional<unsigned long> run() {
    const unsigned long v = ternary();
    skip();
    if (!ok_ || i_ != s_.size()) return std::nullopt;
    return v;
  }

 private:
  void skip() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n')) ++i_;
  }
  bool eat(std::string_view op) {
    skip();
    if (s_.substr(i_, op.size()) != op) return false;
    // "<" must not swallow the first half of "<=", nor "!" of "!=", nor "|" ... (only whole operators).
    if (op.size() == 1 && i_ + 1 < s_.size() && s_[i_ + 1] == '=' && std::strchr("<>!=", op[0])) return false;
    i_ += op.size();
    return true;
  }
  unsigned long ternary() {
    const unsigned long c = logical_or();
    if (!eat("?")) return c;
    const unsigned long a = ternary();
    if (!eat(":")) ok_ = false;
    const unsigned long b = ternary();
    return c ? a : b;
  }
  unsigned long logical_or() {
    unsigned long v = logical_and();
    while (eat("||")) v = (logical_and() || v) ? 1 : 0;
    return v;
  }
  unsigned long logical_and() {
    unsigned long v = equality();
    while (eat("&&")) v = (equality() && v) ? 1 : 0;
    return v;
  }
  unsigned long equality() {
    unsigned long v = relational();
    for (;;) {
      if (eat("=="))
        v = v == relational();
      else if (eat("!="))
        v = v != relational();
      else
        return v;
    }
  }
  unsigned long relational() {
    unsigned long v = additive();
    for (;;) {
      if (eat("<="))
        v = v <= additive();
      else if (eat(">="))
        v = v >= additive();
      else if (eat("<"))
        v = v < additive();
      else if (eat(">"))
        v = v > additive();
      else
        return v;
    }
  }
  unsigned long additive() {
    unsigned long v = multiplicative();
    for (;;) {
      if (eat("+"))
        v += multiplicative();
      else if (eat("-"))
        v -= multiplicative();
      else
        return v;
    }
  }
  unsigned long multiplicative() {
    unsigned long v = unary();
    for (;;) {
      char op = 0;
      if (eat("*"))
        op = '*';
      else if (eat("/"))
        op = '/';
      else if (eat("%"))
        op = '%';
      else
        return v;
      const unsigned long r = unary();
      if (op == '*')
        v *= r;
      else if (r == 0)
        ok_ = false;
      else
        v = op == '/' ? v / r : v % r;
    }
  }
  unsigned long unary() {
    if (eat("!")) return !unary();
    skip();
    if (eat("(")) {
      const unsigned long v = ternary();
      if (!eat(")")) ok_ = false;
      return v;
    }
    if (i_ < s_.size() && s_[i_] == 'n') {
      ++i_;
      return n_;
    }
    if (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') {
      unsigned long v = 0;
      while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') v = v * 10 + static_cast<unsigned long>(s_[i_++] - '0');
      return v;
    }
    ok_ = false;
    return 0;
  }

  std::string_view s_;
  unsigned long n_;
  size_t i_ = 0;
  bool ok_ = true;
};

}  // namespace

std::optional<unsigned long> eval_plural(std::string_view expr, unsigned long n) { return PluralParser(expr, n).run(); }

std::optional<MoCatalogue> MoCatalogue::load(const std::string& path, std::string* error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (error) *error = path + ": cannot be read";
    return std::nullopt;
  }
  std::ostringstream buf;
  buf << in.rdbuf();
  return parse(std::move(buf).str(), path, error);
}

std::optional<MoCatalogue> MoCatalogue::parse(std::string bytes, const std::string& where, std::string* error) {
  auto fail = [&](const std::string& why) -> std::optional<MoCatalogue> {
    if (error) *error = where + ": " + why;
    return std::nullopt;
  };
  MoCatalogue c;
  c.bytes_ = std::move(bytes);
  const std::string& b = c.bytes_;
  if (b.size() < 28) return fail("too short for a .mo file");
  uint32_t magic;
  std::memcpy(&magic, b.data(), 4);
  const bool swap = magic == swap32(kMagic);
  if (magic != kMagic && !swap) return fail("not a .mo file (bad magic number)");
  auto word = [&](size_t at) {
    uint32_t v;
    std::memcpy(&v, b.data() + at, 4);
    return swap ? swap32(v) : v;
  };
  const uint32_t revision = word(4), n = word(8), orig_at = word(12), trans_at = word(16);
  if ((revision >> 16) > 1) return fail("unsupported .mo revision " + std::to_string(revision >> 16));
  const uint32_t hash_size = word(20), hash_at = word(24);
  auto table_fits = [&](uint64_t at, uint64_t entries, uint64_t entry_bytes) {
    return at + entries * entry_bytes <= b.size();
  };
  if (!table_fits(orig_at, n, 8) || !table_fits(trans_at, n, 8)) return fail("string tables run past the end");
  auto read_strings = [&](uint32_t at, std::vector<std::string_view>* out) {
    out->reserve(n);
    for (uint32_t i = 0; i < n; ++i) {
      const uint64_t len = word(at + 8 * i), off = word(at + 8 * i + 4);
      if (off + len + 1 > b.size() || b[off + len] != '\0') return false;  // every string ends in a NUL
      out->emplace_back(b.data() + off, len);
    }
    return true;
  };
  if (!read_strings(orig_at, &c.originals_) || !read_strings(trans_at, &c.translations_))
    return fail("a string lies outside the file");
  if (hash_size > 2 && table_fits(hash_at, hash_size, 4)) {
    c.hash_.resize(hash_size);
    for (uint32_t i = 0; i < hash_size; ++i) c.hash_[i] = word(hash_at + 4 * i);
  }
  // The header (empty msgid, first in sort order) may set the plural rule.
  if (n > 0 && c.originals_[0].empty()) {
    const std::string_view header = c.translations_[0];
    const size_t at = header.find("Plural-Forms:");
    if (at != std::string_view::npos) {
      std::string_view line = header.substr(at, header.find('\n', at) - at);
      const size_t np = line.find("nplurals="), pl = line.find("plural=", line.find(';'));
      if (np != std::string_view::npos) c.nplurals_ = std::max(1, std::atoi(std::string(line.substr(np + 9)).c_str()));
      if (pl != std::string_view::npos) {
        std::string_view e = line.substr(pl + 7);
        e = e.substr(0, e.find(';'));
        if (!eval_plural(e, 1)) return fail("Plural-Forms expression does not parse: " + std::string(e));
        c.plural_expr_ = std::string(e);
      }
    }
  }
  return c;
}

long MoCatalogue::lookup(std::string_view msgid) const {
  if (!hash_.empty()) {
    const uint32_t size = static_cast<uint32_t>(hash_.size());
    const uint32_t h = hash_pjw(msgid);
    uint32_t idx = h % size;
    const uint32_t incr = 1 + h % (size - 2);
    for (uint32_t probes = 0; probes < size; ++probes) {
      const uint32_t entry = hash_[idx];
      if (entry == 0) return -1;
      if (entry - 1 < originals_.size() && key_of(originals_[entry - 1]) == msgid) return entry - 1;
      idx = idx >= size - incr ? idx - (size - incr) : idx + incr;
    }
    return -1;
  }
  // No hash table (msgfmt --no-hash): the originals are sorted bytewise.
  const auto it = std::lower_bound(originals_.begin(), originals_.end(), msgid,
                                   [](std::string_view a, std::string_view key) { return key_of(a) < key; });
  if (it == originals_.end() || key_of(*it) != msgid) return -1;
  return it - originals_.begin();
}

const char* MoCatalogue::find(std::string_view msgid) const {
  if (msgid.empty()) return nullptr;  // the header is not a translation
  const long i = lookup(msgid);
  if (i < 0 || translations_[i].empty()) return nullptr;
  return translations_[i].data();  // the first (or only) form; NUL-terminated
}

unsigned long MoCatalogue::plural_index(unsigned long n) const {
  const unsigned long k = eval_plural(plural_expr_, n).value_or(n == 1 ? 0 : 1);
  return k < static_cast<unsigned long>(nplurals_) ? k : 0;
}

const char* MoCatalogue::find_plural(std::string_view singular, unsigned long n) const {
  if (singular.empty()) return nullptr;
  const long i = lookup(singular);
  if (i < 0 || translations_[i].empty()) return nullptr;
  std::string_view forms = translations_[i];
  for (unsigned long k = plural_index(n); k > 0; --k) {
    const size_t nul = forms.find('\0');
    if (nul == std::string_view::npos) return translations_[i].data();  // fewer forms than the rule names
    forms = forms.substr(nul + 1);
  }
  return forms.data();
}

}  // namespace tw
