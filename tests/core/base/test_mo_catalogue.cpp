#include "core/base/mo_catalogue.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "core/assets.h"
#include "core/base/i18n.h"

namespace tw {
namespace {

// A .mo file written here from the GNU spec, independently of msgfmt: the entries (sorted by the caller), no hash
// table (so lookups go through the sorted table), in little- or big-endian byte order.
std::string make_mo(const std::vector<std::pair<std::string, std::string>>& entries, bool big_endian = false) {
  std::string out;
  auto put = [&](uint32_t v) {
    for (int i = 0; i < 4; ++i)
      out += static_cast<char>(big_endian ? (v >> (24 - 8 * i)) & 0xff : (v >> (8 * i)) & 0xff);
  };
  const uint32_t n = static_cast<uint32_t>(entries.size());
  const uint32_t orig_at = 28, trans_at = orig_at + 8 * n, strings_at = trans_at + 8 * n;
  put(0x950412de), put(0), put(n), put(orig_at), put(trans_at), put(0), put(strings_at);
  std::string strings;
  std::vector<uint32_t> orig_table, trans_table;
  for (const auto& e : entries) {
    orig_table.push_back(static_cast<uint32_t>(e.first.size())), orig_table.push_back(strings_at + strings.size());
    strings += e.first + '\0';
  }
  for (const auto& e : entries) {
    trans_table.push_back(static_cast<uint32_t>(e.second.size())), trans_table.push_back(strings_at + strings.size());
    strings += e.second + '\0';
  }
  for (uint32_t v : orig_table) put(v);
  for (uint32_t v : trans_table) put(v);
  return out + strings;
}

const std::string kHeader = "Content-Type: text/plain; charset=UTF-8\nPlural-Forms: nplurals=1; plural=0;\n";

TEST(MoCatalogue, FindsTranslationsThroughTheSortedTable) {
  for (bool big : {false, true}) {
    std::string error;
    const auto c = MoCatalogue::parse(make_mo({{"", kHeader},
                                               {"Export", "\xE5\xAF\xBC\xE5\x87\xBA"},   // 导出
                                               {"Zoom in", "\xE6\x94\xBE\xE5\xA4\xA7"},  // 放大
                                               {"empty", ""}},
                                              big),
                                      "test.mo", &error);
    ASSERT_TRUE(c) << error;
    EXPECT_EQ(c->size(), 4u);
    EXPECT_STREQ(c->find("Export"), "\xE5\xAF\xBC\xE5\x87\xBA");
    EXPECT_STREQ(c->find("Zoom in"), "\xE6\x94\xBE\xE5\xA4\xA7");
    EXPECT_EQ(c->find("Zoom"), nullptr);   // a prefix is not a match
    EXPECT_EQ(c->find("empty"), nullptr);  // an untranslated entry falls back to the source
    EXPECT_EQ(c->find(""), nullptr);       // the header is not a translation
    EXPECT_EQ(c->plural_forms(), 1);
  }
}

TEST(MoCatalogue, PluralEntriesPickTheFormTheRuleNames) {
  const std::string russian_rule =
      "Plural-Forms: nplurals=3; plural=(n%10==1 && n%100!=11 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) "
      "? 1 : 2);\n";
  std::string error;
  const auto c = MoCatalogue::parse(
      make_mo({{"", russian_rule},
               {std::string("{0} token") + '\0' + "{0} tokens", std::string("A") + '\0' + "B" + '\0' + "C"}}),
      "ru.mo", &error);
  ASSERT_TRUE(c) << error;
  EXPECT_STREQ(c->find_plural("{0} token", 1), "A");
  EXPECT_STREQ(c->find_plural("{0} token", 21), "A");
  EXPECT_STREQ(c->find_plural("{0} token", 3), "B");
  EXPECT_STREQ(c->find_plural("{0} token", 11), "C");
  EXPECT_STREQ(c->find_plural("{0} token", 25), "C");
  EXPECT_STREQ(c->find("{0} token"), "A");  // the singular key alone finds the entry
  EXPECT_EQ(c->find_plural("{0} tokens", 2), nullptr);
}

TEST(MoCatalogue, PluralExpressions) {
  EXPECT_EQ(eval_plural("0", 7), 0u);
  EXPECT_EQ(eval_plural("n != 1", 1), 0u);
  EXPECT_EQ(eval_plural("n != 1", 2), 1u);
  EXPECT_EQ(eval_plural("n>1", 0), 0u);
  EXPECT_EQ(eval_plural("(n==1) ? 0 : n<=4 ? 1 : 2", 3), 1u);
  EXPECT_EQ(eval_plural("(n==1) ? 0 : n<=4 ? 1 : 2", 9), 2u);
  EXPECT_EQ(eval_plural("!n", 0), 1u);
  EXPECT_FALSE(eval_plural("n %", 1));
  EXPECT_FALSE(eval_plural("n % 0", 1));
  EXPECT_FALSE(eval_plural("m == 1", 1));
}

TEST(MoCatalogue, RejectsDamagedFilesWithOneLine) {
  std::string error;
  EXPECT_FALSE(MoCatalogue::parse("short", "a.mo", &error));
  EXPECT_EQ(error, "a.mo: too short for a .mo file");
  EXPECT_FALSE(MoCatalogue::parse(std::string(40, 'x'), "b.mo", &error));
  EXPECT_EQ(error, "b.mo: not a .mo file (bad magic number)");
  std::string cut = make_mo({{"", kHeader}, {"a", "b"}});
  cut.resize(cut.size() - 3);  // the last string and its NUL are gone
  EXPECT_FALSE(MoCatalogue::parse(cut, "c.mo", &error));
  EXPECT_EQ(error, "c.mo: a string lies outside the file");
  EXPECT_FALSE(MoCatalogue::load("/nonexistent/zh.mo", &error));
  EXPECT_EQ(error, "/nonexistent/zh.mo: cannot be read");
}

// The catalogue the build compiled from po/zh.po with msgfmt (which writes a hash table: the other lookup path).
TEST(MoCatalogue, ReadsTheBuildsChineseCatalogue) {
  const std::string path = find_catalogue("zh");
  ASSERT_FALSE(path.empty()) << "the build writes locale/zh/LC_MESSAGES/transformer-workbench.mo";
  std::string error;
  const auto c = MoCatalogue::load(path, &error);
  ASSERT_TRUE(c) << error;
  EXPECT_GT(c->size(), 100u);
  EXPECT_STREQ(c->find("Language"), "\xE8\xAF\xAD\xE8\xA8\x80");  // 语言
  EXPECT_EQ(c->plural_forms(), 1);
  EXPECT_EQ(c->find("no such message in the catalogue"), nullptr);
}

TEST(Language, SwitchesAtRunTimeAndFallsBackToTheSource) {
  set_language(Language::Zh);
  ASSERT_TRUE(catalogue_loaded());
  EXPECT_STREQ(tr("Language"), "\xE8\xAF\xAD\xE8\xA8\x80");
  EXPECT_STREQ(tr("no such message in the catalogue"), "no such message in the catalogue");
  set_language(Language::En);
  EXPECT_STREQ(tr("Language"), "Language");
  EXPECT_STREQ(trn("{0} token", "{0} tokens", 1), "{0} token");
  EXPECT_STREQ(trn("{0} token", "{0} tokens", 2), "{0} tokens");
}

TEST(Language, CodesAndEnvironment) {
  EXPECT_EQ(parse_language("zh"), Language::Zh);
  EXPECT_EQ(parse_language("zh_CN.UTF-8"), Language::Zh);
  EXPECT_EQ(parse_language("en_US"), Language::En);
  EXPECT_FALSE(parse_language("fr"));
  EXPECT_FALSE(parse_language(""));
  EXPECT_STREQ(language_code(Language::Zh), "zh");
  ::setenv("LANGUAGE", "", 1);
  ::setenv("LC_ALL", "zh_CN.UTF-8", 1);
  EXPECT_EQ(language_from_environment(), Language::Zh);
  ::setenv("LANGUAGE", "en_GB:zh_CN", 1);  // LANGUAGE comes first, and its first entry decides
  EXPECT_EQ(language_from_environment(), Language::En);
  ::unsetenv("LANGUAGE"), ::unsetenv("LC_ALL"), ::unsetenv("LC_MESSAGES");
  ::setenv("LANG", "C.UTF-8", 1);
  EXPECT_EQ(language_from_environment(), Language::En);
}

// Panels format figures on worker threads while the UI thread may switch the language.
TEST(Language, ConcurrentLookupsWhileSwitching) {
  std::vector<std::thread> readers;
  std::atomic<int> bad{0};
  for (int t = 0; t < 4; ++t)
    readers.emplace_back([&] {
      for (int i = 0; i < 20000; ++i) {
        const std::string s = tr("Language");
        if (s != "Language" && s != "\xE8\xAF\xAD\xE8\xA8\x80") ++bad;
      }
    });
  for (int i = 0; i < 2000; ++i) set_language(i % 2 ? Language::Zh : Language::En);
  for (auto& r : readers) r.join();
  set_language(Language::En);
  EXPECT_EQ(bad.load(), 0);
}

}  // namespace
}  // namespace tw
