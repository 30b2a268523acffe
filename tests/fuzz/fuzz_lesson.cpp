// libFuzzer target: a lesson file is accepted or refused with messages naming the file, the step and the field, for
// any bytes; every text of an accepted lesson lays out (math included) within a time budget, so a lesson can neither
// crash the math parser (deep nesting) nor stall a frame (a long unbroken run).
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/lessons/lesson.h"
#include "views/plot/math.h"

namespace {
void lay_out(const tw::LessonText& t) {
  for (const std::string* s : {&t.en, &t.zh}) (void)tw::plot::layout_math_uncached(*s, 14.0f);
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto start = std::chrono::steady_clock::now();
  const tw::LessonLoad l = tw::parse_lesson(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.json");
  if (!l.ok) {
    if (l.error.empty() || l.errors.empty()) std::abort();  // a refusal says why
    for (const std::string& e : l.errors)
      if (e.rfind("fuzz.json: ", 0) != 0 || e.find('\n') != std::string::npos) std::abort();  // one line, named
    return 0;
  }
  lay_out(l.lesson.title);
  lay_out(l.lesson.summary);
  for (const tw::LessonStep& st : l.lesson.steps) {
    lay_out(st.title);
    lay_out(st.text);
    lay_out(st.look);
  }
  if (std::chrono::steady_clock::now() - start > std::chrono::seconds(2)) std::abort();  // the time budget
  return 0;
}
