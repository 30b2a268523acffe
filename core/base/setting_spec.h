#pragma once
// How a panel's setting is bounded and shown, declared once beside its field: a settings struct's
// for_each_setting(s, f) calls f(key, field, spec) for each field, and both readers of that one list follow it —
// the panel binds its controls from it (views/bind_settings.h) and the lessons read scene values through it
// (core/lessons/scene_settings.h). Labels and help are marked with N_ and translated where they are shown; they may
// hold $…$ math.
#include <span>

namespace tw {

struct IntSpec {  // an int slider
  int min, max;
  const char* label;
  const char* help;
  bool log = false;  // logarithmic slider
};

struct FloatSpec {  // a float slider
  float min, max;
  const char* label;
  const char* help;
  bool log = false;
  const char* format = nullptr;  // printf format of the value shown ("%.3g"); nullptr: the slider's own
};

struct BoolSpec {  // a checkbox
  const char* label;
  const char* help;
};

struct OptionsSpec {                   // a choice: an enum class field, or an int index
  std::span<const char* const> names;  // option i; what a scene file holds (translated where shown)
  const char* label;
  const char* help;
};

struct TextSpec {  // a line of text
  int max_length;
  const char* label;
  const char* help;
};

struct IntListSpec {  // a comma-separated list of ints
  int min, max, max_items;
  const char* label;
  const char* help;
};

struct SeedSpec {  // the seed of a panel's random inputs: key "seed", 0 … 1,000,000, as every panel names it
  const char* help;
  static constexpr int kMin = 0, kMax = 1000000;
};

}  // namespace tw
