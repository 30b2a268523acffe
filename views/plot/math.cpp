#include "views/plot/math.h"

// Index
// [SECTION] Symbols: what each command and character draws, its face and its atom class
// [SECTION] Parser: $…$ source → a list of nodes
// [SECTION] Boxes: nodes → boxes of runs, rules and strokes (TeX appendix G, simplified)
// [SECTION] Public API and cache

#include <algorithm>
#include <cmath>
#include <cstring>
#include <mutex>
#include <unordered_map>

#include "core/base/utf8.h"

namespace tw::plot {

namespace {

// [SECTION] Symbols

// TeX's atom classes: they decide the space between neighbours.
enum class Cls { Ord, Op, Bin, Rel, Open, Close, Punct, Inner };

struct Sym {
  const char* name;
  const char* utf8;
  Cls cls;
};

// Lower-case Greek is italic like Latin variables; upper-case Greek is upright (TeX's default).
constexpr Sym kGreek[] = {
    {"alpha", "α", Cls::Ord},   {"beta", "β", Cls::Ord},       {"gamma", "γ", Cls::Ord}, {"delta", "δ", Cls::Ord},
    {"epsilon", "ϵ", Cls::Ord}, {"varepsilon", "ε", Cls::Ord}, {"zeta", "ζ", Cls::Ord},  {"eta", "η", Cls::Ord},
    {"theta", "θ", Cls::Ord},   {"vartheta", "ϑ", Cls::Ord},   {"iota", "ι", Cls::Ord},  {"kappa", "κ", Cls::Ord},
    {"lambda", "λ", Cls::Ord},  {"mu", "μ", Cls::Ord},         {"nu", "ν", Cls::Ord},    {"xi", "ξ", Cls::Ord},
    {"pi", "π", Cls::Ord},      {"varpi", "ϖ", Cls::Ord},      {"rho", "ρ", Cls::Ord},   {"varrho", "ϱ", Cls::Ord},
    {"sigma", "σ", Cls::Ord},   {"varsigma", "ς", Cls::Ord},   {"tau", "τ", Cls::Ord},   {"upsilon", "υ", Cls::Ord},
    {"phi", "ϕ", Cls::Ord},     {"varphi", "φ", Cls::Ord},     {"chi", "χ", Cls::Ord},   {"psi", "ψ", Cls::Ord},
    {"omega", "ω", Cls::Ord},
};
constexpr Sym kGreekUpper[] = {
    {"Gamma", "Γ", Cls::Ord}, {"Delta", "Δ", Cls::Ord}, {"Theta", "Θ", Cls::Ord}, {"Lambda", "Λ", Cls::Ord},
    {"Xi", "Ξ", Cls::Ord},    {"Pi", "Π", Cls::Ord},    {"Sigma", "Σ", Cls::Ord}, {"Upsilon", "Υ", Cls::Ord},
    {"Phi", "Φ", Cls::Ord},   {"Psi", "Ψ", Cls::Ord},   {"Omega", "Ω", Cls::Ord},
};
// Upright symbols and their classes.
constexpr Sym kSymbols[] = {
    {"cdot", "·", Cls::Bin},
    {"bmod", "mod", Cls::Bin},  // (i − j) mod s: the word, upright, spaced as a binary operator
    {"odot", "⊙", Cls::Bin},
    {"otimes", "⊗", Cls::Bin},
    {"oplus", "⊕", Cls::Bin},
    {"times", "×", Cls::Bin},
    {"div", "÷", Cls::Bin},
    {"pm", "±", Cls::Bin},
    {"mp", "∓", Cls::Bin},
    {"ast", "∗", Cls::Bin},
    {"star", "⋆", Cls::Bin},
    {"circ", "∘", Cls::Bin},
    {"bullet", "∙", Cls::Bin},
    {"cup", "∪", Cls::Bin},
    {"cap", "∩", Cls::Bin},
    {"wedge", "∧", Cls::Bin},
    {"vee", "∨", Cls::Bin},
    {"setminus", "∖", Cls::Bin},
    {"le", "≤", Cls::Rel},
    {"leq", "≤", Cls::Rel},
    {"ge", "≥", Cls::Rel},
    {"geq", "≥", Cls::Rel},
    {"ne", "≠", Cls::Rel},
    {"neq", "≠", Cls::Rel},
    {"approx", "≈", Cls::Rel},
    {"sim", "∼", Cls::Rel},
    {"simeq", "≃", Cls::Rel},
    {"equiv", "≡", Cls::Rel},
    {"propto", "∝", Cls::Rel},
    {"to", "→", Cls::Rel},
    {"rightarrow", "→", Cls::Rel},
    {"leftarrow", "←", Cls::Rel},
    {"gets", "←", Cls::Rel},
    {"Rightarrow", "⇒", Cls::Rel},
    {"Leftarrow", "⇐", Cls::Rel},
    {"Leftrightarrow", "⇔", Cls::Rel},
    {"leftrightarrow", "↔", Cls::Rel},
    {"mapsto", "↦", Cls::Rel},
    {"implies", "⟹", Cls::Rel},
    {"iff", "⟺", Cls::Rel},
    {"in", "∈", Cls::Rel},
    {"notin", "∉", Cls::Rel},
    {"ni", "∋", Cls::Rel},
    {"subset", "⊂", Cls::Rel},
    {"subseteq", "⊆", Cls::Rel},
    {"supset", "⊃", Cls::Rel},
    {"ll", "≪", Cls::Rel},
    {"gg", "≫", Cls::Rel},
    {"mid", "∣", Cls::Rel},
    {"uparrow", "↑", Cls::Rel},
    {"downarrow", "↓", Cls::Rel},
    {"perp", "⊥", Cls::Rel},
    {"colon", ":", Cls::Punct},
    {"infty", "∞", Cls::Ord},
    {"partial", "∂", Cls::Ord},
    {"nabla", "∇", Cls::Ord},
    {"ell", "ℓ", Cls::Ord},
    {"forall", "∀", Cls::Ord},
    {"exists", "∃", Cls::Ord},
    {"top", "⊤", Cls::Ord},
    {"intercal", "⊺", Cls::Bin},
    {"bot", "⊥", Cls::Ord},
    {"prime", "′", Cls::Ord},
    {"emptyset", "∅", Cls::Ord},
    {"varnothing", "∅", Cls::Ord},
    {"hbar", "ℏ", Cls::Ord},
    {"angle", "∠", Cls::Ord},
    {"neg", "¬", Cls::Ord},
    {"lnot", "¬", Cls::Ord},
    {"dagger", "†", Cls::Ord},
    {"ldots", "…", Cls::Inner},
    {"dots", "…", Cls::Inner},
    {"cdots", "⋯", Cls::Inner},
    {"vdots", "⋮", Cls::Ord},
    {"ddots", "⋱", Cls::Inner},
    {"lbrace", "{", Cls::Open},
    {"rbrace", "}", Cls::Close},
    {"langle", "⟨", Cls::Open},
    {"rangle", "⟩", Cls::Close},
    {"lfloor", "⌊", Cls::Open},
    {"rfloor", "⌋", Cls::Close},
    {"lceil", "⌈", Cls::Open},
    {"rceil", "⌉", Cls::Close},
    {"lvert", "|", Cls::Open},
    {"rvert", "|", Cls::Close},
    {"lVert", "‖", Cls::Open},
    {"rVert", "‖", Cls::Close},
    {"vert", "|", Cls::Ord},
    {"Vert", "‖", Cls::Ord},
    {"|", "‖", Cls::Ord},
    {"{", "{", Cls::Open},
    {"}", "}", Cls::Close},
    {"$", "$", Cls::Ord},
    {"%", "%", Cls::Ord},
    {"#", "#", Cls::Ord},
    {"&", "&", Cls::Ord},
    {"_", "_", Cls::Ord},
    {"checkmark", "✓", Cls::Ord},
    {"square", "□", Cls::Ord},
    {"triangleq", "≜", Cls::Rel},
    {"coloneqq", "≔", Cls::Rel},
    {"lessapprox", "≲", Cls::Rel},
    {"lesssim", "≲", Cls::Rel},
};
// Large operators: limits below and above in display style, beside it in running text.
constexpr Sym kLargeOps[] = {
    {"sum", "∑", Cls::Op},       {"prod", "∏", Cls::Op},    {"coprod", "∐", Cls::Op}, {"int", "∫", Cls::Op},
    {"oint", "∮", Cls::Op},      {"bigcup", "⋃", Cls::Op},  {"bigcap", "⋂", Cls::Op}, {"bigoplus", "⨁", Cls::Op},
    {"bigotimes", "⨂", Cls::Op}, {"bigodot", "⨀", Cls::Op},
};
// Operator names set upright; the second flag: takes limits below in display style (\max_j).
struct OpName {
  const char* name;
  bool limits;
};
constexpr OpName kOpNames[] = {
    {"log", false},     {"ln", false},        {"exp", false},     {"sin", false},  {"cos", false},    {"tan", false},
    {"sinh", false},    {"cosh", false},      {"tanh", false},    {"arg", false},  {"dim", false},    {"ker", false},
    {"deg", false},     {"hom", false},       {"lg", false},      {"max", true},   {"min", true},     {"sup", true},
    {"inf", true},      {"lim", true},        {"det", true},      {"gcd", true},   {"Pr", true},      {"argmax", true},
    {"argmin", true},   {"softmax", false},   {"sigmoid", false}, {"diag", false}, {"tr", false},     {"rank", false},
    {"mean", false},    {"Var", false},       {"var", false},     {"std", false},  {"RMS", false},    {"silu", false},
    {"relu", false},    {"ReLU", false},      {"GELU", false},    {"SiLU", false}, {"topk", false},   {"clip", false},
    {"erf", false},     {"sgn", false},       {"sign", false},    {"Attn", false}, {"MLP", false},    {"Norm", false},
    {"RMSNorm", false}, {"LayerNorm", false}, {"FFN", false},     {"cat", false},  {"concat", false},
};

const Sym* find_sym(const Sym* begin, const Sym* end, const std::string& name) {
  for (const Sym* s = begin; s != end; ++s)
    if (name == s->name) return s;
  return nullptr;
}
template <size_t N>
const Sym* find_sym(const Sym (&table)[N], const std::string& name) {
  return find_sym(table, table + N, name);
}

// Ink extents of a character in units of the pixel size (measured from DejaVu Sans): enough to place scripts,
// accents and vinculums the way the glyphs actually sit, without asking the font per glyph.
struct Ink {
  float h, d;
};
Ink ink_of(uint32_t cp) {
  constexpr float kX = 0.48f, kCap = 0.64f, kAsc = 0.66f, kDesc = 0.18f;
  if (cp >= 'a' && cp <= 'z') {
    const bool asc = std::strchr("bdfhklt", static_cast<char>(cp)) != nullptr || cp == 'i' || cp == 'j';
    const bool desc = std::strchr("gjpqy", static_cast<char>(cp)) != nullptr;
    return {asc ? kAsc : kX, desc ? kDesc : 0.0f};
  }
  if ((cp >= 'A' && cp <= 'Z') || (cp >= '0' && cp <= '9')) return {kCap, 0.0f};
  if (cp >= 0x3B1 && cp <= 0x3C9) {  // α … ω
    static const char32_t asc[] = U"βδζθλξ";
    static const char32_t desc[] = U"βγζημξρςφχψ";
    const bool a = std::char_traits<char32_t>::find(asc, 6, cp) != nullptr;
    const bool d = std::char_traits<char32_t>::find(desc, 11, cp) != nullptr;
    return {a ? kAsc : kX, d ? kDesc : 0.0f};
  }
  if (cp == 0x3D5 || cp == 0x3F5 || cp == 0x3D1 || cp == 0x3F1 || cp == 0x3D6) return {kAsc, kDesc};  // ϕ ϵ ϑ ϱ ϖ
  if (cp >= 0x391 && cp <= 0x3A9) return {kCap, 0.0f};
  switch (cp) {
    case '(':
    case ')':
    case '[':
    case ']':
    case '{':
    case '}':
    case '|':
    case 0x2016:
    case 0x27E8:
    case 0x27E9:
    case 0x230A:
    case 0x230B:
    case 0x2308:
    case 0x2309: return {0.66f, 0.12f};
    case '+':
    case 0x2212:
    case 0xB1:
    case 0xD7:
    case 0xF7:
    case 0x2213: return {0.54f, 0.0f};
    case '=':
    case 0x2261:
    case 0x2248:
    case 0x2260:
    case 0x223C: return {0.40f, 0.0f};
    case '<':
    case '>':
    case 0x2264:
    case 0x2265:
    case 0x2208:
    case 0x2209:
    case 0x2192:
    case 0x2190: return {0.52f, 0.0f};
    case 0xB7:
    case 0x22C5:
    case 0x2219: return {0.33f, 0.0f};
    case ',':
    case ';': return {0.1f, 0.12f};
    case '.': return {0.1f, 0.0f};
    case 0x2211:
    case 0x220F:
    case 0x2210: return {0.62f, 0.165f};
    case 0x222B:
    case 0x222E: return {0.65f, 0.18f};
    case 0x2032:  // ′
      return {0.70f, 0.0f};
    default: return {kCap, 0.0f};
  }
}

Ink ink_of(const std::string& utf8) {
  Ink ink{0, 0};
  for (uint32_t cp : decode_utf8(utf8)) {
    const Ink c = ink_of(cp);
    ink.h = std::max(ink.h, c.h);
    ink.d = std::max(ink.d, c.d);
  }
  return ink;
}

// [SECTION] Parser

// How letters of the current font command are set.
enum class Alphabet { Math, Bold, Roman, Italic, Cal, Blackboard };

struct Node;
using List = std::vector<Node>;

struct Node {
  enum Kind { Symbol, Text, Frac, Sqrt, Accent, LeftRight, Space, Group } kind = Symbol;
  Cls cls = Cls::Ord;
  std::string text;   // Symbol / Text: what it draws; Accent: which accent; LeftRight: the left delimiter
  std::string right;  // LeftRight: the right delimiter
  FontStyle style = FontStyle::Regular;
  bool warning = false;  // unsupported command drawn as its source
  bool large = false;    // a large operator (∑): bigger in display style
  bool limits = false;   // scripts as limits above/below in display style
  int frac_style = -1;   // Frac: -1 follows the current style, 0 text (\tfrac), 1 display (\dfrac)
  float space_em = 0;    // Space
  List a, b;             // Frac: numerator, denominator; Sqrt: radicand, index; Accent/LeftRight/Group: body
  List sup, sub;
  bool has_sup = false, has_sub = false;
  bool sub_first = false;  // reading order of the scripts as written
};

bool is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// Unicode's mathematical script capitals (𝒜 …), with the letterlike holes (ℬ ℰ ℱ ℋ ℐ ℒ ℳ ℛ).
uint32_t script_capital(char c) {
  switch (c) {
    case 'B': return 0x212C;
    case 'E': return 0x2130;
    case 'F': return 0x2131;
    case 'H': return 0x210B;
    case 'I': return 0x2110;
    case 'L': return 0x2112;
    case 'M': return 0x2133;
    case 'R': return 0x211B;
    default: return 0x1D49C + static_cast<uint32_t>(c - 'A');
  }
}
uint32_t blackboard(char c) {
  switch (c) {
    case 'C': return 0x2102;
    case 'H': return 0x210D;
    case 'N': return 0x2115;
    case 'P': return 0x2119;
    case 'Q': return 0x211A;
    case 'R': return 0x211D;
    case 'Z': return 0x2124;
    default: return 0x1D538 + static_cast<uint32_t>(c - 'A');
  }
}

Node symbol(std::string text, FontStyle style, Cls cls) {
  Node n;
  n.kind = Node::Symbol;
  n.text = std::move(text);
  n.style = style;
  n.cls = cls;
  return n;
}

Cls class_of_char(uint32_t cp) {
  switch (cp) {
    case '+':
    case '-':
    case 0x2212:
    case '*':
    case 0x2217:
    case 0xB7:
    case 0xD7:
    case 0xB1:
    case 0x2299:
    case 0x2297: return Cls::Bin;
    case '=':
    case '<':
    case '>':
    case ':':
    case 0x2264:
    case 0x2265:
    case 0x2260:
    case 0x2248:
    case 0x2192:
    case 0x2208:
    case 0x2261:
    case 0x223C:
    case 0x221D: return Cls::Rel;
    case '(':
    case '[':
    case 0x27E8: return Cls::Open;
    case ')':
    case ']':
    case '!':
    case '?':
    case 0x27E9: return Cls::Close;
    case ',':
    case ';': return Cls::Punct;
    default: return Cls::Ord;
  }
}

// Deepest nesting of groups, fractions, radicals and scripts the parser follows: each level is a few stack frames
// here and in the typesetter, so a hostile ${{{…}}}$ with 100,000 braces must stop long before the stack does. The
// rest of such a formula is drawn as a warning "…" and named in MathLayout::unsupported.
struct Parser {
  const std::string& s;
  size_t i = 0;
  std::vector<std::string>* unsupported;
  long* nesting_cut = nullptr;
  int depth = 0;

  bool done() const { return i >= s.size(); }
  void skip_spaces() {
    while (!done() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n')) ++i;
  }
  // The command name after a backslash at s[i]: letters, or one other character.
  std::string command() {
    ++i;  // '\'
    if (done()) return "";
    if (!is_letter(s[i])) return std::string(1, s[i++]);
    const size_t start = i;
    while (!done() && is_letter(s[i])) ++i;
    return s.substr(start, i - start);
  }
  // One UTF-8 character at s[i].
  uint32_t next_char() {
    const size_t len = utf8_sequence_length(static_cast<unsigned char>(s[i]));
    const size_t n = std::min(len == 0 ? size_t{1} : len, s.size() - i);
    const std::vector<uint32_t> cps = decode_utf8(s.substr(i, n));
    i += n;
    return cps.empty() ? uint32_t{0xFFFD} : cps[0];
  }
  static size_t utf8_sequence_length(unsigned char c) {
    if (c < 0x80) return 1;
    if ((c >> 5) == 0x6) return 2;
    if ((c >> 4) == 0xE) return 3;
    if ((c >> 3) == 0x1E) return 4;
    return 1;
  }

  Node char_node(uint32_t cp, Alphabet alpha) {
    const bool letter = cp < 0x80 && is_letter(static_cast<char>(cp));
    const bool digit = cp >= '0' && cp <= '9';
    if (letter) {
      switch (alpha) {
        case Alphabet::Math:
        case Alphabet::Italic: return symbol(std::string(1, char(cp)), FontStyle::Italic, Cls::Ord);
        case Alphabet::Bold: return symbol(std::string(1, char(cp)), FontStyle::Bold, Cls::Ord);
        case Alphabet::Roman: return symbol(std::string(1, char(cp)), FontStyle::Regular, Cls::Ord);
        case Alphabet::Cal:
          // Script capitals outside the Basic Multilingual Plane (𝒩 is U+1D4A9) cannot be drawn on screen: Debian's
          // ImGui holds 16-bit characters. One layout serves every target, so those letters are set in italic.
          if (cp >= 'A' && cp <= 'Z' && script_capital(char(cp)) <= 0xFFFF)
            return symbol(encode_utf8(script_capital(char(cp))), FontStyle::Math, Cls::Ord);
          return symbol(std::string(1, char(cp)), FontStyle::Italic, Cls::Ord);
        case Alphabet::Blackboard:
          if (cp >= 'A' && cp <= 'Z' && blackboard(char(cp)) <= 0xFFFF)  // ℝ, ℕ, ℤ, …; the rest as above
            return symbol(encode_utf8(blackboard(char(cp))), FontStyle::Math, Cls::Ord);
          return symbol(std::string(1, char(cp)), FontStyle::Regular, Cls::Ord);
      }
    }
    if (digit)
      return symbol(std::string(1, char(cp)), alpha == Alphabet::Bold ? FontStyle::Bold : FontStyle::Regular, Cls::Ord);
    if (cp >= 0x3B1 && cp <= 0x3C9)  // Greek typed directly: italic like \alpha
      return symbol(encode_utf8(cp), alpha == Alphabet::Bold ? FontStyle::Bold : FontStyle::Italic, Cls::Ord);
    uint32_t shown = cp;
    if (cp == '-') shown = 0x2212;  // minus sign, not hyphen
    if (cp == '*') shown = 0x2217;
    return symbol(encode_utf8(shown), alpha == Alphabet::Bold ? FontStyle::Bold : FontStyle::Regular,
                  class_of_char(cp));
  }

  Node unsupported_node(const std::string& src) {
    if (unsupported) unsupported->push_back(src);
    Node n = symbol(src, FontStyle::Regular, Cls::Ord);
    n.warning = true;
    return n;
  }

  // A delimiter after \left / \right: a character or a command; "." is none.
  std::string delimiter() {
    skip_spaces();
    if (done()) return ".";
    if (s[i] == '\\') {
      const std::string name = command();
      if (const Sym* sym = find_sym(kSymbols, name)) return sym->utf8;
      if (name == "|") return "‖";
      if (unsupported) unsupported->push_back("\\" + name);
      return ".";
    }
    const uint32_t cp = next_char();
    return encode_utf8(cp);
  }

  // The argument of a command or script: a {group}, a command, or one character.
  List argument(Alphabet alpha) {
    skip_spaces();
    List out;
    if (done()) return out;
    if (s[i] == '{') {
      ++i;
      out = list(alpha, false);
      if (!done() && s[i] == '}') ++i;
      return out;
    }
    atom(out, alpha);
    return out;
  }

  // The raw text of a {group} (\text, \operatorname).
  std::string raw_group() {
    skip_spaces();
    if (done() || s[i] != '{') return "";
    ++i;
    std::string out;
    int depth = 1;
    while (!done()) {
      const char c = s[i++];
      if (c == '{') ++depth;
      if (c == '}' && --depth == 0) break;
      if (c == '\\' && !done() && std::strchr("{}$%&#_ ", s[i])) {
        out += s[i++];
        continue;
      }
      out += c;
    }
    return out;
  }

  void attach_script(List& out, bool sup, Alphabet alpha) {
    if (out.empty() || (sup ? out.back().has_sup : out.back().has_sub) || out.back().kind == Node::Space) {
      Node empty;
      empty.kind = Node::Group;
      out.push_back(empty);
    }
    Node& base = out.back();
    List arg = argument(alpha);
    if (sup) {
      base.sup.insert(base.sup.end(), arg.begin(), arg.end());
      base.has_sup = true;
      base.sub_first = base.has_sub;
    } else {
      base.sub = std::move(arg);
      base.has_sub = true;
    }
  }

  // Parses one item at s[i] and appends it to `out` (scripts attach to the last item). Every nesting passes here.
  void atom(List& out, Alphabet alpha) {
    if (depth >= kMaxMathDepth) {
      if (unsupported)
        unsupported->push_back("nested deeper than " + std::to_string(kMaxMathDepth) + " levels at character " +
                               std::to_string(i));
      if (nesting_cut && *nesting_cut < 0) *nesting_cut = long(i);
      Node n = symbol("…", FontStyle::Regular, Cls::Ord);
      n.warning = true;
      out.push_back(std::move(n));
      i = s.size();  // the rest of the formula is not parsed
      return;
    }
    ++depth;
    atom_at(out, alpha);
    --depth;
  }
  void atom_at(List& out, Alphabet alpha) {
    const char c = s[i];
    if (c == '^' || c == '_') {
      ++i;
      attach_script(out, c == '^', alpha);
      return;
    }
    if (c == '\'') {  // prime: a superscript ′
      ++i;
      if (out.empty() || out.back().kind == Node::Space) {
        Node empty;
        empty.kind = Node::Group;
        out.push_back(empty);
      }
      out.back().sup.push_back(symbol("′", FontStyle::Regular, Cls::Ord));
      out.back().has_sup = true;
      return;
    }
    if (c == '{') {
      ++i;
      Node g;
      g.kind = Node::Group;
      g.a = list(alpha, false);
      if (!done() && s[i] == '}') ++i;
      out.push_back(std::move(g));
      return;
    }
    if (c == '}') {  // unbalanced: shown, not dropped
      ++i;
      out.push_back(unsupported_node("}"));
      return;
    }
    if (c == '~') {
      ++i;
      Node sp;
      sp.kind = Node::Space;
      sp.space_em = 0.333f;
      out.push_back(sp);
      return;
    }
    if (c == '\\') {
      command_node(out, alpha);
      return;
    }
    out.push_back(char_node(next_char(), alpha));
  }

  // \, \: \; \! \  \quad \qquad: a space of so many ems; false for any other command.
  static bool space_command(const std::string& name, List& out) {
    float em = 0;
    if (name == ",")
      em = 3.0f / 18;
    else if (name == ":" || name == ">")
      em = 4.0f / 18;
    else if (name == ";")
      em = 5.0f / 18;
    else if (name == "!")
      em = -3.0f / 18;
    else if (name == " ")
      em = 0.333f;
    else if (name == "quad")
      em = 1.0f;
    else if (name == "qquad")
      em = 2.0f;
    else
      return false;
    Node sp;
    sp.kind = Node::Space;
    sp.space_em = em;
    out.push_back(sp);
    return true;
  }

  // Greek letters, symbols, large operators and operator names (\operatorname too); false for any other command.
  bool symbol_command(const std::string& name, List& out, Alphabet alpha) {
    if (const Sym* g = find_sym(kGreek, name)) {
      out.push_back(symbol(g->utf8, alpha == Alphabet::Bold ? FontStyle::Bold : FontStyle::Italic, Cls::Ord));
      return true;
    }
    if (const Sym* g = find_sym(kGreekUpper, name)) {
      out.push_back(symbol(g->utf8, alpha == Alphabet::Bold ? FontStyle::Bold : FontStyle::Regular, Cls::Ord));
      return true;
    }
    if (const Sym* sym = find_sym(kSymbols, name)) {
      out.push_back(symbol(sym->utf8, FontStyle::Regular, sym->cls));
      return true;
    }
    if (const Sym* op = find_sym(kLargeOps, name)) {
      Node n = symbol(op->utf8, FontStyle::Regular, Cls::Op);
      n.large = true;
      n.limits = name != "int" && name != "oint";
      out.push_back(std::move(n));
      return true;
    }
    for (const OpName& op : kOpNames)
      if (name == op.name) {
        Node n = symbol(op.name, FontStyle::Regular, Cls::Op);
        n.limits = op.limits;
        out.push_back(std::move(n));
        return true;
      }
    if (name == "operatorname" || name == "mathop") {
      bool star = false;
      if (!done() && s[i] == '*') star = true, ++i;
      Node n = symbol(raw_group(), FontStyle::Regular, Cls::Op);
      n.limits = star;
      out.push_back(std::move(n));
      return true;
    }
    return false;
  }

  // \sqrt[index]{radicand}, after the command's name.
  Node sqrt_node(Alphabet alpha) {
    Node n;
    n.kind = Node::Sqrt;
    skip_spaces();
    if (!done() && s[i] == '[') {
      ++i;
      List index;
      while (!done() && s[i] != ']') {
        if (s[i] == ' ') {
          ++i;
          continue;
        }
        atom(index, alpha);
      }
      if (!done()) ++i;
      n.b = std::move(index);
    }
    n.a = argument(alpha);
    return n;
  }

  // \left<delim> … \right<delim>, after \left: the items between, grown delimiters around them.
  Node left_right_node(Alphabet alpha) {
    Node n;
    n.kind = Node::LeftRight;
    n.cls = Cls::Inner;
    n.text = delimiter();
    while (true) {
      skip_spaces();
      if (done()) break;
      if (s[i] == '}') break;
      if (s.compare(i, 6, "\\right") == 0 && (i + 6 >= s.size() || !is_letter(s[i + 6]))) break;
      atom(n.a, alpha);
    }
    n.right.push_back('.');  // none unless \right names one
    if (s.compare(i, 6, "\\right") == 0) {
      i += 6;
      n.right = delimiter();
    }
    return n;
  }

  // \mathbf{…} and the other alphabets, \text{…} and its kin; false for any other command.
  bool font_command(const std::string& name, List& out) {
    struct FontCmd {
      const char* name;
      Alphabet alpha;
    };
    static const FontCmd kFonts[] = {{"mathbf", Alphabet::Bold},   {"boldsymbol", Alphabet::Bold},
                                     {"bm", Alphabet::Bold},       {"mathrm", Alphabet::Roman},
                                     {"mathsf", Alphabet::Roman},  {"mathtt", Alphabet::Roman},
                                     {"mathit", Alphabet::Italic}, {"mathcal", Alphabet::Cal},
                                     {"mathscr", Alphabet::Cal},   {"mathbb", Alphabet::Blackboard}};
    for (const FontCmd& f : kFonts)
      if (name == f.name) {
        Node g;
        g.kind = Node::Group;
        g.a = argument(f.alpha);
        out.push_back(std::move(g));
        return true;
      }
    if (name == "text" || name == "textrm" || name == "mbox" || name == "textup" || name == "textit" ||
        name == "textbf" || name == "mathnormal") {
      Node n;
      n.kind = Node::Text;
      n.text = raw_group();
      n.style = name == "textit" ? FontStyle::Italic : name == "textbf" ? FontStyle::Bold : FontStyle::Regular;
      out.push_back(std::move(n));
      return true;
    }
    return false;
  }

  void command_node(List& out, Alphabet alpha) {
    const std::string name = command();
    if (space_command(name, out) || symbol_command(name, out, alpha)) return;
    if (name == "limits" || name == "nolimits") {
      if (!out.empty() && out.back().cls == Cls::Op) out.back().limits = name == "limits";
      return;
    }
    if (name == "frac" || name == "dfrac" || name == "tfrac") {
      Node n;
      n.kind = Node::Frac;
      n.cls = Cls::Inner;
      n.frac_style = name == "dfrac" ? 1 : name == "tfrac" ? 0 : -1;
      n.a = argument(alpha);
      n.b = argument(alpha);
      return out.push_back(std::move(n));
    }
    if (name == "sqrt") return out.push_back(sqrt_node(alpha));
    static const char* const kAccents[] = {"hat",       "widehat", "bar",   "overline", "tilde",
                                           "widetilde", "vec",     "dot",   "ddot",     "check",
                                           "breve",     "acute",   "grave", "mathring", "overrightarrow"};
    for (const char* acc : kAccents)
      if (name == acc) {
        Node n;
        n.kind = Node::Accent;
        n.text = name;
        n.a = argument(alpha);
        return out.push_back(std::move(n));
      }
    if (name == "left") return out.push_back(left_right_node(alpha));
    if (name == "right") {  // without \left: an ordinary delimiter
      const std::string d = delimiter();
      return out.push_back(symbol(d == "." ? "" : d, FontStyle::Regular, Cls::Close));
    }
    if (name == "big" || name == "Big" || name == "bigg" || name == "Bigg" || name == "bigl" || name == "bigr" ||
        name == "Bigl" || name == "Bigr" || name == "middle") {
      const std::string d = delimiter();  // drawn at the running size (the layout grows \left only)
      const Cls cls = name.back() == 'l' ? Cls::Open : name.back() == 'r' ? Cls::Close : Cls::Ord;
      return out.push_back(symbol(d == "." ? "" : d, FontStyle::Regular, cls));
    }
    if (font_command(name, out)) return;
    if (name == "displaystyle" || name == "textstyle") return;  // styles follow the target (formula line or label)
    out.push_back(unsupported_node("\\" + name));
  }

  // Items until a closing brace (not consumed) or the end.
  List list(Alphabet alpha, bool in_left) {
    List out;
    while (true) {
      skip_spaces();
      if (done() || s[i] == '}') break;
      if (in_left && s.compare(i, 6, "\\right") == 0) break;
      atom(out, alpha);
    }
    return out;
  }
};

// [SECTION] Boxes

// TeX's four styles; script styles shrink the size one level each.
enum Style { D = 0, T = 1, S = 2, SS = 3 };
float style_scale(int st) { return st <= T ? 1.0f : st == S ? 0.7f : 0.5f; }
int sup_style(int st) { return st <= T ? S : SS; }
int num_style(int st) { return st == D ? T : st == T ? S : SS; }

struct Box {
  float w = 0, h = 0, d = 0;
  float italic = 0;  // italic correction: how far the last glyph leans past the advance
  std::vector<MathRun> runs;
  std::vector<MathRule> rules;
  std::vector<MathStroke> strokes;

  // Appends `b` with its origin (left, baseline) at (x, y).
  void put(const Box& b, float x, float y) {
    for (MathRun r : b.runs) {
      r.x += x, r.y += y;
      runs.push_back(std::move(r));
    }
    for (MathRule r : b.rules) rules.push_back({r.x0 + x, r.y0 + y, r.x1 + x, r.y1 + y});
    for (MathStroke st : b.strokes) {
      for (MathPoint& p : st.points) p.x += x, p.y += y;
      strokes.push_back(std::move(st));
    }
  }
};

struct Typesetter {
  float base;  // pixel size of text style

  float sz(int st) const { return base * style_scale(st); }
  static float em(float size) { return 0.859f * size; }  // DejaVu: unitsPerEm / (ascent − descent)
  static float x_height(float size) { return 0.47f * size; }
  static float axis(float size) { return 0.27f * size; }  // centre of the minus sign
  static float rule(float size) { return std::max(0.5f, 0.06f * size); }

  Box run_box(const std::string& text, FontStyle style, float size, bool warning = false) const {
    Box b;
    if (text.empty()) return b;
    const float w = text_width(text, size, style);
    const Ink ink = ink_of(text);
    b.w = w;
    b.h = ink.h * size;
    b.d = ink.d * size;
    b.italic = style == FontStyle::Italic ? 0.07f * size : 0.0f;
    b.runs.push_back({.text = text, .style = style, .size = size, .x = 0, .y = 0, .width = w, .warning = warning});
    return b;
  }

  Box hlist(const List& list, int st, bool cramped) const {
    // Atom boxes with their classes; spaces are glue (transparent to the class spacing).
    struct Item {
      Box box;
      Cls cls;
      bool glue;
    };
    std::vector<Item> items;
    items.reserve(list.size());
    for (const Node& n : list) {
      if (n.kind == Node::Space) {
        Box b;
        b.w = n.space_em * em(sz(st));
        items.push_back({std::move(b), Cls::Ord, true});
        continue;
      }
      items.push_back({atom(n, st, cramped), n.cls, false});
    }
    // TeX rule 5/6: a Bin with nothing to combine on its left (or a Rel/Close/Punct on its right) is an Ord.
    Cls prev = Cls::Op;  // as if preceded by an operator: a leading Bin is unary
    int prev_index = -1;
    for (size_t k = 0; k < items.size(); ++k) {
      if (items[k].glue) continue;
      Cls& c = items[k].cls;
      if (c == Cls::Bin && (prev == Cls::Bin || prev == Cls::Op || prev == Cls::Rel || prev == Cls::Open ||
                            prev == Cls::Punct || prev_index < 0))
        c = Cls::Ord;
      if ((c == Cls::Rel || c == Cls::Close || c == Cls::Punct) && prev_index >= 0 &&
          items[size_t(prev_index)].cls == Cls::Bin)
        items[size_t(prev_index)].cls = Cls::Ord;
      prev = c;
      prev_index = static_cast<int>(k);
    }
    if (prev_index >= 0 && items[size_t(prev_index)].cls == Cls::Bin) items[size_t(prev_index)].cls = Cls::Ord;

    // TeX's spacing table (The TeXbook p. 170): 1 thin, 2 medium, 3 thick; negative: only in display/text style.
    static const int kSpace[8][8] = {
        // Ord Op  Bin Rel Open Close Punct Inner
        {0, 1, -2, -3, 0, 0, 0, -1},      // Ord
        {1, 1, 0, -3, 0, 0, 0, -1},       // Op
        {-2, -2, 0, 0, -2, 0, 0, -2},     // Bin
        {-3, -3, 0, 0, -3, 0, 0, -3},     // Rel
        {0, 0, 0, 0, 0, 0, 0, 0},         // Open
        {0, 1, -2, -3, 0, 0, 0, -1},      // Close
        {-1, -1, 0, -1, -1, -1, -1, -1},  // Punct
        {-1, 1, -2, -3, -1, 0, -1, -1},   // Inner
    };
    const float mu = em(sz(st)) / 18;
    Box out;
    int last = -1;
    for (size_t k = 0; k < items.size(); ++k) {
      const Item& it = items[k];
      if (!it.glue && last >= 0) {
        const int code = kSpace[int(items[size_t(last)].cls)][int(it.cls)];
        if (code > 0 || (code < 0 && st <= T)) out.w += mu * (std::abs(code) == 1 ? 3 : std::abs(code) == 2 ? 4 : 5);
      }
      // An italic letter followed by an upright one gets its italic correction (TeX inserts it after \mathit).
      if (!it.glue && last >= 0 && !it.box.runs.empty() && it.box.runs.front().style != FontStyle::Italic)
        out.w += items[size_t(last)].box.italic * 0.5f;
      out.put(it.box, out.w, 0);
      out.w += it.box.w;
      out.h = std::max(out.h, it.box.h);
      out.d = std::max(out.d, it.box.d);
      if (!it.glue) {
        out.italic = it.box.italic;
        last = static_cast<int>(k);
      }
    }
    return out;
  }

  // The nucleus of `n` with its scripts.
  Box atom(const Node& n, int st, bool cramped) const {
    Box nucleus = nucleus_box(n, st, cramped);
    if (!n.has_sup && !n.has_sub) return nucleus;
    if (n.cls == Cls::Op && n.limits && st == D) return limits(nucleus, n, st, cramped);
    return scripts(nucleus, n, st, cramped);
  }

  Box nucleus_box(const Node& n, int st, bool cramped) const {
    const float size = sz(st);
    switch (n.kind) {
      case Node::Symbol: {
        if (!n.large) return run_box(n.text, n.style, size, n.warning);
        // Large operators: 1.4× in display style, centred on the math axis.
        Box b = run_box(n.text, n.style, st == D ? size * 1.4f : size);
        const float shift = (b.h - b.d) / 2 - axis(size);  // move the ink's centre onto the axis
        for (MathRun& r : b.runs) r.y += shift;
        b.h -= shift;
        b.d += shift;
        b.italic = 0;
        return b;
      }
      case Node::Text: return run_box(n.text, n.style, size);
      case Node::Group: return hlist(n.a, st, cramped);
      case Node::Frac: return fraction(n, st, cramped);
      case Node::Sqrt: return radical(n, st);
      case Node::Accent: return accent(n, st, cramped);
      case Node::LeftRight: return left_right(n, st, cramped);
      case Node::Space: break;
    }
    return {};
  }

  // TeX rule 18, simplified: superscript up, subscript down, both apart by at least 4θ.
  Box scripts(const Box& nucleus, const Node& n, int st, bool cramped) const {
    const float size = sz(st), e = em(size);
    const int ss = sup_style(st);
    const float script_em = em(sz(ss));
    const bool single = n.kind == Node::Symbol || n.kind == Node::Text;
    float u = single ? 0 : nucleus.h - 0.386f * script_em;
    float v = single ? 0 : nucleus.d + 0.05f * script_em;
    Box sup, sub;
    if (n.has_sup) sup = hlist(n.sup, ss, cramped);
    if (n.has_sub) sub = hlist(n.sub, ss, true);
    Box out = nucleus;
    const float ic = n.cls == Cls::Op ? 0 : nucleus.italic;
    if (n.has_sup) {
      const float p = st == D ? 0.413f * e : cramped ? 0.289f * e : 0.363f * e;
      u = std::max({u, p, sup.d + x_height(size) / 4});
    }
    if (n.has_sub && !n.has_sup) v = std::max({v, 0.15f * e, sub.h - 0.8f * x_height(size)});
    if (n.has_sub && n.has_sup) {
      v = std::max(v, 0.247f * e);
      const float theta = rule(size);
      const float gap = (u - sup.d) - (sub.h - v);
      if (gap < 4 * theta) {
        v += 4 * theta - gap;
        const float psi = 0.8f * x_height(size) - (u - sup.d);
        if (psi > 0) u += psi, v -= psi;
      }
    }
    const float x = nucleus.w;
    float w = nucleus.w;
    const auto put_sup = [&] {
      out.put(sup, x + ic, -u);
      w = std::max(w, x + ic + sup.w);
      out.h = std::max(out.h, u + sup.h);
      out.d = std::max(out.d, sup.d - u);
    };
    const auto put_sub = [&] {
      out.put(sub, x, v);
      w = std::max(w, x + sub.w);
      out.d = std::max(out.d, v + sub.d);
      out.h = std::max(out.h, sub.h - v);
    };
    if (n.has_sub && (n.sub_first || !n.has_sup)) put_sub();
    if (n.has_sup) put_sup();
    if (n.has_sub && !(n.sub_first || !n.has_sup)) put_sub();
    out.w = w + 0.05f * e;  // \scriptspace
    out.italic = 0;
    return out;
  }

  // TeX rule 13a: limits centred above and below a large operator in display style.
  Box limits(const Box& nucleus, const Node& n, int st, bool cramped) const {
    const float e = em(sz(st));
    Box sup, sub;
    if (n.has_sup) sup = hlist(n.sup, sup_style(st), cramped);
    if (n.has_sub) sub = hlist(n.sub, sup_style(st), true);
    const float w = std::max({nucleus.w, sup.w, sub.w});
    Box out;
    out.w = w;
    out.put(nucleus, (w - nucleus.w) / 2, 0);
    out.h = nucleus.h;
    out.d = nucleus.d;
    if (n.has_sup) {
      const float y = -(nucleus.h + std::max(0.111f * e, 0.2f * e - sup.d) + sup.d);
      out.put(sup, (w - sup.w) / 2, y);
      out.h = -y + sup.h + 0.1f * e;
    }
    if (n.has_sub) {
      const float y = nucleus.d + std::max(0.167f * e, 0.6f * e - sub.h) + sub.h;
      out.put(sub, (w - sub.w) / 2, y);
      out.d = y + sub.d + 0.1f * e;
    }
    return out;
  }

  // TeX rule 15: numerator over denominator around a bar on the math axis.
  Box fraction(const Node& n, int st, bool /*cramped*/) const {
    const int fs = n.frac_style == 1 ? D : n.frac_style == 0 ? std::max(st, int(T)) : st;
    const float size = sz(fs), e = em(size);
    const Box num = hlist(n.a, num_style(fs), false);
    const Box den = hlist(n.b, num_style(fs), true);
    const float theta = rule(size), a = axis(size);
    float u = fs == D ? 0.677f * e : 0.394f * e;
    float v = fs == D ? 0.686f * e : 0.345f * e;
    const float phi = fs == D ? 3 * theta : theta;
    if ((u - num.d) - (a + theta / 2) < phi) u += phi - ((u - num.d) - (a + theta / 2));
    if ((a - theta / 2) - (den.h - v) < phi) v += phi - ((a - theta / 2) - (den.h - v));
    const float pad = 0.08f * e, nd = 0.1f * e;  // bar overhang, \nulldelimiterspace
    const float inner = std::max(num.w, den.w) + 2 * pad;
    Box out;
    out.put(num, nd + (inner - num.w) / 2, -u);
    out.put(den, nd + (inner - den.w) / 2, v);
    out.rules.push_back({nd, -(a + theta / 2), nd + inner, -(a - theta / 2)});
    out.w = inner + 2 * nd;
    out.h = u + num.h;
    out.d = v + den.d;
    return out;
  }

  // TeX rule 11: a radical sign whose vinculum covers the radicand.
  Box radical(const Node& n, int st) const {
    const float size = sz(st), e = em(size);
    const Box rad = hlist(n.a, st, true);
    const float theta = rule(size);
    const float psi = theta + (st == D ? x_height(size) : theta) / 4 + 0.06f * size;
    const float rad_h = std::max(rad.h, x_height(size)), rad_d = std::max(rad.d, 0.0f);
    const float top = -(rad_h + psi + theta / 2);  // centre line of the vinculum
    const float bottom = rad_d + 0.04f * size;
    const float height = bottom - top;
    const float sign_w = 0.5f * e * std::clamp(height / size, 1.0f, 1.6f);
    float x0 = 0;
    Box index;
    if (!n.b.empty()) {
      index = hlist(n.b, SS, false);
      x0 = std::max(0.0f, index.w - 0.45f * sign_w);
    }
    Box out;
    const float stroke = std::max(0.6f, 0.07f * size);
    const float tick = std::min(height, 1.1f * size);
    out.strokes.push_back({{{x0, bottom - 0.42f * tick},
                            {x0 + 0.2f * sign_w, bottom - 0.5f * tick},
                            {x0 + 0.48f * sign_w, bottom},
                            {x0 + sign_w, top}},
                           stroke});
    const float body_x = x0 + sign_w + 0.06f * e;
    out.put(rad, body_x, 0);
    const float end = body_x + rad.w + 0.08f * e;
    out.rules.push_back({x0 + sign_w - stroke * 0.3f, top - theta / 2, end, top + theta / 2});
    if (!n.b.empty()) out.put(index, x0 + 0.45f * sign_w - index.w, bottom - 0.6f * height - index.d);
    out.w = end + 0.05f * e;
    out.h = -top + theta / 2 + theta;
    if (!n.b.empty()) out.h = std::max(out.h, 0.6f * height - bottom + index.d + index.h);
    out.d = std::max(rad.d, bottom + stroke / 2);
    return out;
  }

  Box accent(const Node& n, int st, bool cramped) const {
    const float size = sz(st), e = em(size);
    Box base = hlist(n.a, st, true);
    (void)cramped;
    const bool single = n.a.size() == 1 && n.a[0].kind == Node::Symbol && !n.a[0].has_sup && !n.a[0].has_sub;
    const float skew = single && base.italic > 0 ? 0.08f * size : 0;  // over the slanted letter's top
    const float top = std::max(base.h, x_height(size));
    Box out = base;
    const std::string& kind = n.text;
    if (kind == "bar" || kind == "overline") {
      const float theta = rule(size), y = -(top + 0.1f * size);
      const float inset = kind == "bar" && single ? 0.1f * base.w : 0;
      out.rules.push_back({inset + skew, y - theta, base.w - inset + skew, y});
      out.h = std::max(base.h, -y + theta + theta);
      return out;
    }
    if (kind == "vec" || kind == "overrightarrow") {
      const float y = -(top + 0.14f * size), len = std::max(base.w * 0.9f, 0.45f * size);
      const float x0 = (base.w - len) / 2 + skew, x1 = x0 + len, head = 0.13f * size,
                  stroke = std::max(0.6f, 0.06f * size);
      out.strokes.push_back({{{x0, y}, {x1, y}}, stroke});
      out.strokes.push_back({{{x1 - head, y - head * 0.7f}, {x1, y}, {x1 - head, y + head * 0.7f}}, stroke});
      out.h = std::max(base.h, -y + head * 0.7f + stroke);
      (void)e;
      return out;
    }
    // Glyph accents are drawn for x-height letters: raise them by how much taller the base is.
    const char* glyph = kind == "hat" || kind == "widehat"       ? "ˆ"
                        : kind == "tilde" || kind == "widetilde" ? "˜"
                        : kind == "dot"                          ? "˙"
                        : kind == "ddot"                         ? "¨"
                        : kind == "check"                        ? "ˇ"
                        : kind == "breve"                        ? "˘"
                        : kind == "acute"                        ? "´"
                        : kind == "grave"                        ? "`"
                                                                 : "˚";
    const float raise = top - x_height(size) + 0.02f * size;
    Box acc = run_box(glyph, FontStyle::Regular, size);
    out.put(acc, (base.w - acc.w) / 2 + skew, -raise);
    out.h = std::max(base.h, raise + 0.69f * size);
    return out;
  }

  // A delimiter `d` covering from `top` to `bottom` (y down); its box width is returned.
  float delimiter(Box& out, const std::string& d, float x, float top, float bottom, float size) const {
    const float e = em(size);
    if (d == "." || d.empty()) return 0.1f * e;
    const float height = bottom - top;
    // At the running size a glyph looks best; grown delimiters are drawn as strokes.
    if (height <= 0.8f * size) {
      Box g = run_box(d, FontStyle::Regular, size);
      out.put(g, x, 0);
      return g.w;
    }
    const float w = std::min(0.28f * size + 0.04f * height, 0.6f * size);
    const float stroke = std::max(0.7f, 0.075f * size);
    MathStroke st;
    st.width = stroke;
    const float mid = (top + bottom) / 2;
    auto pts = [&](std::initializer_list<MathPoint> p) { st.points.assign(p.begin(), p.end()); };
    if (d == "(" || d == ")") {
      const int segments = 16;
      for (int k = 0; k <= segments; ++k) {
        const float t = float(k) / segments;
        const float bulge = std::sin(t * 3.14159265f);
        const float px = d == "(" ? 0.8f * w - 0.55f * w * bulge : 0.2f * w + 0.55f * w * bulge;
        st.points.push_back({x + px, top + t * height});
      }
    } else if (d == "[" || d == "⌈" || d == "⌊") {
      const float l = 0.32f * w, r = 0.78f * w;
      if (d == "[") pts({{x + r, top}, {x + l, top}, {x + l, bottom}, {x + r, bottom}});
      if (d == "⌈") pts({{x + r, top}, {x + l, top}, {x + l, bottom}});
      if (d == "⌊") pts({{x + l, top}, {x + l, bottom}, {x + r, bottom}});
    } else if (d == "]" || d == "⌉" || d == "⌋") {
      const float l = 0.22f * w, r = 0.68f * w;
      if (d == "]") pts({{x + l, top}, {x + r, top}, {x + r, bottom}, {x + l, bottom}});
      if (d == "⌉") pts({{x + l, top}, {x + r, top}, {x + r, bottom}});
      if (d == "⌋") pts({{x + r, top}, {x + r, bottom}, {x + l, bottom}});
    } else if (d == "|") {
      pts({{x + 0.5f * w, top}, {x + 0.5f * w, bottom}});
    } else if (d == "‖") {
      out.strokes.push_back({{{x + 0.35f * w, top}, {x + 0.35f * w, bottom}}, stroke});
      pts({{x + 0.75f * w, top}, {x + 0.75f * w, bottom}});
    } else if (d == "⟨") {
      pts({{x + 0.8f * w, top}, {x + 0.2f * w, mid}, {x + 0.8f * w, bottom}});
    } else if (d == "⟩") {
      pts({{x + 0.2f * w, top}, {x + 0.8f * w, mid}, {x + 0.2f * w, bottom}});
    } else if (d == "{" || d == "}") {
      const float q = height * 0.06f;
      const float o = d == "{" ? 0.8f : 0.2f, m = d == "{" ? 0.5f : 0.5f, tip = d == "{" ? 0.15f : 0.85f;
      pts({{x + o * w, top},
           {x + m * w, top + q},
           {x + m * w, mid - q},
           {x + tip * w, mid},
           {x + m * w, mid + q},
           {x + m * w, bottom - q},
           {x + o * w, bottom}});
    } else {  // anything else: the glyph at the running size
      Box g = run_box(d, FontStyle::Regular, size);
      out.put(g, x, 0);
      return g.w;
    }
    out.strokes.push_back(std::move(st));
    out.h = std::max(out.h, -top + stroke / 2);
    out.d = std::max(out.d, bottom + stroke / 2);
    return w;
  }

  // TeX rule 19: \left and \right grow to cover the body symmetrically about the axis.
  Box left_right(const Node& n, int st, bool cramped) const {
    const float size = sz(st);
    const Box body = hlist(n.a, st, cramped);
    const float a = axis(size);
    const float delta = std::max(body.h - a, body.d + a);
    const float need = 2 * std::max(delta, 0.0f);  // drawn to measure: no \delimitershortfall needed
    const float top = -(a + need / 2), bottom = need / 2 - a;
    Box out;
    const float lw = delimiter(out, n.text, 0, top, bottom, size);
    out.put(body, lw, 0);
    const float rw = delimiter(out, n.right, lw + body.w, top, bottom, size);
    out.w = lw + body.w + rw;
    out.h = std::max({out.h, body.h, need > 0.8f * size ? -top : 0.0f});
    out.d = std::max({out.d, body.d, need > 0.8f * size ? bottom : 0.0f});
    for (const MathRun& r : out.runs)
      if (r.size == size && (r.text == n.text || r.text == n.right)) {
        const Ink ink = ink_of(r.text);
        out.h = std::max(out.h, ink.h * size);
        out.d = std::max(out.d, ink.d * size);
      }
    return out;
  }
};

// Joins runs that continue each other (same face, size, baseline; no gap): "10" is one run, not two.
void merge_runs(std::vector<MathRun>& runs) {
  std::vector<MathRun> out;
  out.reserve(runs.size());
  for (MathRun& r : runs) {
    if (!out.empty()) {
      MathRun& p = out.back();
      if (!p.warning && !r.warning && p.style == r.style && p.size == r.size && p.y == r.y &&
          std::fabs(p.x + p.width - r.x) < 1e-3f) {
        p.text += r.text;
        p.width += r.width;
        continue;
      }
    }
    out.push_back(std::move(r));
  }
  runs = std::move(out);
}

// The text and math spans of `s`: {is_math, text}; "\$" outside math becomes "$".
std::vector<std::pair<bool, std::string>> spans(const std::string& s) {
  std::vector<std::pair<bool, std::string>> out;
  std::string text;
  size_t i = 0;
  while (i < s.size()) {
    if (s[i] == '\\' && i + 1 < s.size() && s[i + 1] == '$') {
      text += '$';
      i += 2;
      continue;
    }
    if (s[i] == '$') {
      // Find the closing dollar (not escaped).
      size_t j = i + 1;
      while (j < s.size() && !(s[j] == '$' && s[j - 1] != '\\')) ++j;
      if (j < s.size() && j > i + 1) {
        if (!text.empty()) out.emplace_back(false, std::move(text)), text.clear();
        out.emplace_back(true, s.substr(i + 1, j - i - 1));
        i = j + 1;
        continue;
      }
    }
    text += s[i++];
  }
  if (!text.empty()) out.emplace_back(false, std::move(text));
  return out;
}

}  // namespace

// [SECTION] Public API and cache

bool has_math(const std::string& s) {
  if (s.find('$') == std::string::npos) return false;
  for (const auto& [math, text] : spans(s))
    if (math) return true;
  return false;
}

bool inside_math(const std::string& s, size_t pos) {
  bool in = false;
  size_t open = 0;
  for (size_t i = 0; i < s.size() && i < pos; ++i) {
    if (s[i] == '\\' && i + 1 < s.size() && s[i + 1] == '$') {
      ++i;
      continue;
    }
    if (s[i] == '$') {
      if (!in) {
        // An opening dollar counts only if a closing one follows.
        size_t j = i + 1;
        while (j < s.size() && !(s[j] == '$' && s[j - 1] != '\\')) ++j;
        if (j >= s.size() || j == i + 1) continue;
        open = j;
      }
      in = !in;
    }
  }
  (void)open;
  return in;
}

std::vector<std::string> label_units(const std::string& s) {
  std::vector<std::string> out;
  for (const auto& [math, text] : spans(s)) {
    if (math) {
      out.push_back("$" + text + "$");
      continue;
    }
    for (std::string& c : utf8_chars(text)) out.push_back(c == "$" ? "\\$" : std::move(c));
  }
  return out;
}

namespace {
// One character (a label unit that is not a formula) as a code point; 0 for a formula or an empty unit.
uint32_t unit_char(const std::string& u) {
  if (u.empty() || u[0] == '$') return 0;
  size_t len = 0;
  return decode_utf8_at(u, 0, &len);
}
bool is_cjk(uint32_t c) {
  return (c >= 0x2E80 && c <= 0x9FFF) || (c >= 0xAC00 && c <= 0xD7AF) || (c >= 0xF900 && c <= 0xFAFF) ||
         (c >= 0xFF00 && c <= 0xFFEF) || c >= 0x20000;
}
// Punctuation a line must not start with / end with (Chinese line-breaking rules, and their ASCII kin).
bool no_break_before(uint32_t c) {
  static const std::u32string kClosing =
      U"\uFF0C\u3002\u3001\uFF1B\uFF1A\uFF1F\uFF01\uFF09\u300B\u300D\u300F\u3011\u3009\u3015\uFF05\u2026,.;:!?)]%";
  return kClosing.find(char32_t(c)) != std::u32string::npos;
}
bool no_break_after(uint32_t c) {
  static const std::u32string kOpening = U"\uFF08\u300A\u300C\u300E\u3010\u3008\u3014([";
  return kOpening.find(char32_t(c)) != std::u32string::npos;
}
}  // namespace

std::vector<std::string> label_words(const std::string& s) {
  const std::vector<std::string> units = label_units(s);
  std::vector<std::string> words;
  std::string word;
  for (size_t i = 0; i < units.size(); ++i) {
    word += units[i];
    if (i + 1 == units.size()) break;
    const uint32_t a = unit_char(units[i]), b = unit_char(units[i + 1]);
    bool brk = false;
    if (b == ' ')
      brk = false;  // spaces stay with the word before them
    else if (a == ' ')
      brk = true;
    else if (is_cjk(a) || is_cjk(b))
      brk = !no_break_before(b) && !no_break_after(a);
    if (brk) words.push_back(std::move(word)), word.clear();
  }
  if (!word.empty()) words.push_back(std::move(word));
  return words;
}

std::vector<std::string> wrap_plain_text(std::string_view text, float max_width,
                                         const std::function<float(std::string_view)>& width) {
  std::vector<std::string> lines;
  const auto trimmed = [](std::string_view s) { return s.substr(0, s.find_last_not_of(' ') + 1); };
  size_t from = 0;
  while (from <= text.size()) {  // paragraphs
    const size_t nl = std::min(text.find('\n', from), text.size());
    const std::string_view para = text.substr(from, nl - from);
    // Words as label_words cuts them (spaces stay with the word before them), without reading "$" as math.
    std::vector<std::string_view> words;
    size_t start = 0, at = 0;
    uint32_t prev = 0;
    while (at < para.size()) {
      size_t len = 0;
      const uint32_t c = decode_utf8_at(para, at, &len);
      len = std::max<size_t>(len, 1);
      if (at > start) {
        bool brk = false;
        if (c == ' ')
          brk = false;
        else if (prev == ' ')
          brk = true;
        else if (is_cjk(prev) || is_cjk(c))
          brk = !no_break_before(c) && !no_break_after(prev);
        if (brk) words.push_back(para.substr(start, at - start)), start = at;
      }
      prev = c;
      at += len;
    }
    if (start < para.size()) words.push_back(para.substr(start));
    std::string line;
    float line_w = 0;  // with its trailing spaces: the next word starts after them
    for (std::string_view word : words) {
      const float word_w = width(trimmed(word));
      if (!line.empty() && line_w + word_w > max_width) {
        lines.emplace_back(trimmed(line));
        line.clear();
        line_w = 0;
      }
      if (line.empty() && word_w > max_width) {  // alone wider than a line: cut between characters
        size_t a = 0;
        while (a < word.size()) {
          size_t b = a, len = 0;
          std::string_view piece;
          while (b < word.size()) {
            decode_utf8_at(word, b, &len);
            const size_t next = b + std::max<size_t>(len, 1);
            if (b > a && width(word.substr(a, next - a)) > max_width) break;
            b = next;
          }
          piece = word.substr(a, b - a);
          a = b;
          if (a < word.size()) {
            lines.emplace_back(trimmed(piece));
          } else {
            line.assign(piece);
            line_w = width(piece);
          }
        }
        continue;
      }
      line.append(word);
      line_w += width(word);
    }
    lines.emplace_back(trimmed(line));
    from = nl + 1;
  }
  return lines;
}

MathLayout layout_math_uncached(const std::string& s, float size, MathOptions options) {
  MathLayout out;
  const Typesetter ts{size};
  Box line;
  for (const auto& [math, text] : spans(s)) {
    if (!math) {
      Box t = ts.run_box(text, FontStyle::Regular, size);
      t.h = t.d = 0;  // the font's ascent and descent below cover plain text
      line.put(t, line.w, 0);
      line.w += t.w;
      continue;
    }
    out.has_math = true;
    Parser p{text, 0, &out.unsupported, &out.nesting_cut};
    const List list = p.list(Alphabet::Math, false);
    // Anything left (an unbalanced closing brace) is shown rather than lost.
    List all = list;
    while (!p.done()) {
      if (p.s[p.i] == '}') {
        ++p.i;
        all.push_back(p.unsupported_node("}"));
      }
      List more = p.list(Alphabet::Math, false);
      all.insert(all.end(), more.begin(), more.end());
    }
    const Box b = ts.hlist(all, options.display ? D : T, false);
    line.put(b, line.w, 0);
    line.w += b.w;
    line.h = std::max(line.h, b.h);
    line.d = std::max(line.d, b.d);
  }
  merge_runs(line.runs);
  out.runs = std::move(line.runs);
  out.rules = std::move(line.rules);
  out.strokes = std::move(line.strokes);
  out.width = line.w;
  const float font_ascent = text_baseline(size);
  out.ascent = std::max(font_ascent, line.h);
  out.descent = std::max(size - font_ascent, line.d);
  return out;
}

namespace {
struct Cache {
  std::mutex mutex;
  std::unordered_map<std::string, MathLayoutPtr> map;
};
Cache& cache() {
  static Cache c;  // process-wide layout cache (not panel state)
  return c;
}
}  // namespace

MathLayoutPtr layout_math(const std::string& s, float size, MathOptions options) {
  std::string key = s;
  key.push_back('\0');
  key.append(reinterpret_cast<const char*>(&size), sizeof size);
  key.push_back(options.display ? 'D' : 'T');
  Cache& c = cache();
  {
    std::lock_guard<std::mutex> lock(c.mutex);
    const auto it = c.map.find(key);
    if (it != c.map.end()) return it->second;
  }
  auto laid = std::make_shared<const MathLayout>(layout_math_uncached(s, size, options));
  std::lock_guard<std::mutex> lock(c.mutex);
  if (c.map.size() > 16384) c.map.clear();  // zoom changes sizes; keep the cache bounded
  c.map.emplace(std::move(key), laid);
  return laid;
}

void clear_math_cache() {
  Cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  c.map.clear();
}

float label_width(const std::string& s, float size) {
  if (s.find('$') == std::string::npos) return text_width(s, size);
  return layout_math(s, size)->width;
}

float label_height(const std::string& s, float size) {
  if (s.find('$') == std::string::npos) return size;
  const MathLayoutPtr m = layout_math(s, size);
  return std::max(size, m->ascent + m->descent);
}

std::string math_plain_text(const std::string& s) {
  if (!has_math(s)) return s;
  std::string out;
  for (const MathRun& r : layout_math(s, 12)->runs) out += r.text;
  return out;
}

}  // namespace tw::plot
