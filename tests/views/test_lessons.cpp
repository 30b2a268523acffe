// Lessons (core/lessons, app/lesson_scene): every shipped lesson loads; every step's scene applies without warnings
// and its "look" figure exists; every exercise's stored solution passes its check and the step's starting state does
// not; bad files give one clear line naming file, step and field; progress reads back.
#include <gtest/gtest.h>
#include <imgui.h>
#include <imgui_internal.h>

#include <cmath>
#include <random>
#include <regex>
#include <set>
#include <sstream>

#include "app/fonts.h"
#include "app/lesson_scene.h"
#include "core/base/read_file.h"
#include "core/experiments/family_steps.h"
#include "core/lessons/exercise_check.h"
#include "core/lessons/lesson_progress.h"
#include "core/lessons/lesson_quantity.h"
#include "views/panel_test_util.h"
#include "views/plot/export.h"
#include "views/plot/math.h"

namespace tw {
namespace {

std::vector<Lesson> shipped(const AppState& state) {
  std::vector<std::string> errors;
  std::vector<Lesson> lessons = load_shipped_lessons(state, &errors);
  for (const std::string& e : errors) ADD_FAILURE() << e;
  return lessons;
}

TEST(Lessons, EveryShippedLessonLoadsInOrderWithSixToFifteenSteps) {
  const AppState state = make_app_state();
  const auto files = shipped_lesson_files();
  ASSERT_GE(files.size(), 1u);
  const auto lessons = shipped(state);
  ASSERT_EQ(lessons.size(), files.size());
  std::set<std::string> ids;
  for (size_t i = 0; i < lessons.size(); ++i) {
    EXPECT_EQ(lessons[i].number, int(i) + 1) << lessons[i].path;
    EXPECT_TRUE(ids.insert(lessons[i].id).second) << lessons[i].id;
    EXPECT_GE(lessons[i].steps.size(), 6u) << lessons[i].id;
    EXPECT_LE(lessons[i].steps.size(), 15u) << lessons[i].id;
  }
}

TEST(Lessons, QuantityNamesAreUnique) {
  std::set<std::string> names;
  for (const LessonQuantity& q : all_lesson_quantities()) EXPECT_TRUE(names.insert(q.name).second) << q.name;
  EXPECT_NE(find_lesson_quantity("softmax.unscaled_top_prob"), nullptr);
  EXPECT_EQ(find_lesson_quantity("softmax.no_such"), nullptr);
}

// Every lesson text is typeset math where it has formulas: no command the layout cannot draw.
TEST(Lessons, EveryTextTypesetsWithoutUnsupportedCommands) {
  const AppState state = make_app_state();
  std::vector<std::string> bad;
  auto check = [&](const LessonText& t, const std::string& where) {
    for (const std::string* s : {&t.en, &t.zh}) {
      if (!plot::has_math(*s)) continue;
      for (const std::string& cmd : plot::layout_math_uncached(*s, 15).unsupported) bad.push_back(where + ": " + cmd);
    }
  };
  for (const Lesson& l : shipped(state)) {
    check(l.title, l.id + " title");
    check(l.summary, l.id + " summary");
    for (const LessonStep& st : l.steps) {
      const std::string w = l.id + "/" + st.id;
      check(st.title, w + " title");
      check(st.text, w + " text");
      check(st.look, w + " look");
      if (!st.exercise) continue;
      check(st.exercise->question, w + " question");
      check(st.exercise->solution_text, w + " solution");
      for (const LessonText& h : st.exercise->hints) check(h, w + " hint");
    }
  }
  std::string report;
  for (const std::string& b : bad) report += "  " + b + "\n";
  EXPECT_TRUE(bad.empty()) << report;
}

std::set<std::string> open_figure_ids(AppState& state, const std::string& panel) {
  std::set<std::string> ids;
  for (PanelSlot& slot : state.panels) {
    if (!slot.open || slot.info.id != panel) continue;
    slot.panel->update();
    slot.panel->wait_idle();
    for (const plot::Figure& f : slot.panel->figures()) ids.insert(f.id);
  }
  return ids;
}

// The heart of the lesson contract: scenes apply cleanly, the figure to look at exists, no exercise passes by doing
// nothing and every stored solution passes.
TEST(Lessons, StepsApplyCleanlyAndEverySolutionPassesWhileTheStartDoesNot) {
  AppState state = make_app_state();
  int exercises = 0;
  for (const Lesson& l : shipped(state)) {
    for (const LessonStep& st : l.steps) {
      const std::string where = l.id + "/" + st.id;
      const SceneLoad applied = apply_lesson_step(state, st);
      ASSERT_TRUE(applied.ok) << where << ": " << applied.error;
      EXPECT_TRUE(applied.warnings.empty()) << where << ": " << applied.warnings.front();
      if (!st.look_figure.empty()) {
        EXPECT_TRUE(open_figure_ids(state, st.look_panel).count(st.look_figure))
            << where << ": panel " << st.look_panel << " shows no figure " << st.look_figure;
      }
      if (!st.exercise) continue;
      ++exercises;
      const Exercise& ex = *st.exercise;
      const nlohmann::json start = current_scene_values(state);
      const SceneLoad solved = apply_lesson_step(state, st, ex.solution_values);
      ASSERT_TRUE(solved.ok) << where << ": " << solved.error;
      EXPECT_TRUE(solved.warnings.empty()) << where;
      const nlohmann::json after = current_scene_values(state);
      if (ex.check.kind == CheckKind::State) {
        const CheckResult before = check_exercise_state(ex.check, start);
        ASSERT_TRUE(before.actual.has_value()) << where << ": quantity not computable at the start";
        EXPECT_EQ(before.status, CheckStatus::NotYet)
            << where << ": passes by doing nothing (" << *before.actual << ")";
        const CheckResult sol = check_exercise_state(ex.check, after);
        ASSERT_TRUE(sol.actual.has_value()) << where;
        EXPECT_EQ(sol.status, CheckStatus::Passed) << where << ": the solution gives " << *sol.actual;
      } else {
        ASSERT_TRUE(ex.solution_number.has_value()) << where;
        const CheckResult sol = check_exercise_number(ex.check, after, *ex.solution_number);
        ASSERT_TRUE(sol.actual.has_value()) << where;
        EXPECT_EQ(sol.status, CheckStatus::Passed)
            << where << ": typed " << *ex.solution_number << ", core has " << *sol.actual;
        // Nothing typed (0) and a wrong order of magnitude do not pass.
        EXPECT_EQ(check_exercise_number(ex.check, after, 0.0).status, CheckStatus::NotYet) << where;
        EXPECT_EQ(check_exercise_number(ex.check, after, *ex.solution_number * 10 + 1).status, CheckStatus::NotYet)
            << where;
      }
    }
  }
  EXPECT_GE(exercises, 4);
}

// The words of every <text> element of an SVG (its <tspan> runs joined), entities and the Unicode minus undone.
std::vector<std::string> svg_texts(const std::string& svg) {
  std::vector<std::string> out;
  for (size_t at = svg.find("<text"); at != std::string::npos; at = svg.find("<text", at + 1)) {
    const size_t end = svg.find("</text>", at);
    if (end == std::string::npos) break;
    std::string words;
    bool in_tag = false;
    for (size_t i = at; i < end; ++i) {
      if (svg[i] == '<')
        in_tag = true;
      else if (svg[i] == '>')
        in_tag = false;
      else if (!in_tag)
        words += svg[i];
    }
    for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
             {"\xE2\x88\x92", "-"}, {"&amp;", "&"}, {"&lt;", "<"}, {"&gt;", ">"}, {",", ""}}) {
      for (size_t k = words.find(from); k != std::string::npos; k = words.find(from, k + to.size()))
        words.replace(k, from.size(), to);
    }
    out.push_back(words);
  }
  return out;
}

// Every number written in `text` ("7.342e+06", "0.003906", "1 GiB" -> 7342000, 0.003906, 1).
std::vector<double> numbers_in(const std::string& text) {
  static const std::regex number(R"([-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?)");
  std::vector<double> out;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), number); it != std::sregex_iterator(); ++it)
    out.push_back(std::strtod(it->str().c_str(), nullptr));
  return out;
}

// Everything a panel's window prints when drawn (its read-outs, messages, control values, typeset lines): ImGui's
// log of one frame of panel.draw() in a 1600 × 1000 window.
std::string panel_window_text(Panel& panel) {
  std::string text;
  const DrawContext ctx{};
  for (int frame = 0; frame < 2; ++frame) {
    ImGui::NewFrame();
    ImGui::SetNextWindowPos(ImVec2(0, 0));
    ImGui::SetNextWindowSize(ImVec2(1600, 1000));
    ImGui::Begin("panel", nullptr, ImGuiWindowFlags_NoDecoration);
    ImGui::LogToBuffer();
    panel.draw(ctx);
    text = ImGui::GetCurrentContext()->LogBuffer.c_str();
    ImGui::LogFinish();
    ImGui::End();
    ImGui::Render();
  }
  return text;
}

// A number exercise asks for something the learner works out: at the step's start no number the panel prints —
// figure titles and notes, labels, legends, ticks, the read-outs and messages of its window — nor the step's own
// words passes the check, to the check's precision; and when the answer is a count, no printed percentage of the
// square of a printed number gives it ("56.2% of the T × T scores" with T = 8 answers "how many of the 8 × 8
// cells").
// Lesson 3's "GPT-2 beside LLaMA" step opens the forward stepper on its side-by-side view, whose figure holds
// core's comparison of the two shapes, and its answer is core's count of rows not marked the same.
TEST(Lessons, SinceGpt2OpensGpt2BesideLlama) {
  AppState state = make_app_state();
  const LessonStep* step = nullptr;
  const std::vector<Lesson> lessons = shipped(state);
  for (const Lesson& l : lessons)
    for (const LessonStep& st : l.steps)
      if (l.id == "since-gpt2" && st.id == "gpt2-beside-llama") step = &st;
  ASSERT_NE(step, nullptr);
  const SceneLoad applied = apply_lesson_step(state, *step);
  ASSERT_TRUE(applied.ok) << applied.error;
  Panel* forward = nullptr;
  for (PanelSlot& slot : state.panels)
    if (slot.info.id == "forward" && slot.open) forward = slot.panel.get();
  ASSERT_NE(forward, nullptr);
  EXPECT_EQ(forward->controls().to_json()["tab"], "families");
  forward->update();
  forward->wait_idle();
  const FamilyComparison cmp = compare_family_steps(gpt2_shaped_config(), llama_shaped_config());
  const std::vector<plot::Figure> figs = forward->figures();
  const plot::Figure* fig = testing::by_id(figs, "families");
  ASSERT_NE(fig, nullptr);
  EXPECT_EQ(testing::heatmap(fig->grid.at(0)).rows, static_cast<int>(cmp.rows.size()));
  ASSERT_TRUE(step->exercise.has_value());
  ASSERT_TRUE(step->exercise->solution_number.has_value());
  EXPECT_EQ(*step->exercise->solution_number, cmp.changed());
}

TEST(Lessons, NoNumberExerciseAnswerIsPrintedAtTheStart) {
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;
  io.DisplaySize = ImVec2(1600, 1000);
  io.DeltaTime = 1.0f / 60.0f;
  load_fonts(TW_FONT_DIR, plot::kBaseFontSize);
  unsigned char* pixels = nullptr;
  int tex_w = 0, tex_h = 0;
  io.Fonts->GetTexDataAsRGBA32(&pixels, &tex_w, &tex_h);
  AppState state = make_app_state();
  int checked = 0, readouts = 0;
  for (const Lesson& l : shipped(state)) {
    for (const LessonStep& st : l.steps) {
      if (!st.exercise || st.exercise->check.kind != CheckKind::Number) continue;
      const std::string where = l.id + "/" + st.id;
      ASSERT_TRUE(apply_lesson_step(state, st).ok) << where;
      const nlohmann::json start = current_scene_values(state);
      std::vector<std::string> shown;
      for (const LessonText* t : {&st.text, &st.look, &st.exercise->question})
        for (const std::string* s : {&t->en, &t->zh}) shown.push_back(*s);
      for (PanelSlot& slot : state.panels) {
        if (!slot.open) continue;
        slot.panel->update();
        slot.panel->wait_idle();
        for (const plot::Figure& f : slot.panel->figures()) {
          for (const std::string& words : svg_texts(plot::render_svg(f, {})))
            shown.push_back(slot.info.id + "-" + f.id + ": " + words);
          shown.push_back(slot.info.id + "-" + f.id + " title: " + f.title);
          shown.push_back(slot.info.id + "-" + f.id + " note: " + f.note);
        }
        const std::string window = panel_window_text(*slot.panel);
        readouts += !window.empty();
        std::istringstream lines(window);
        for (std::string line; std::getline(lines, line);) shown.push_back(slot.info.id + " window: " + line);
      }
      ASSERT_GT(shown.size(), 6u) << where << ": no figure text found";
      ++checked;
      const ExerciseCheck& check = st.exercise->check;
      const std::optional<double> answer = check_exercise_number(check, start, 0.0).actual;
      ASSERT_TRUE(answer.has_value()) << where;
      const auto passes = [&](double x) {  // check_exercise_number's comparison, with the answer computed once
        return compare_with(x, CheckOp::Equal, *answer, check.tolerance, check.relative);
      };
      std::vector<double> all;
      for (const std::string& words : shown)
        for (double x : numbers_in(words)) all.push_back(x);
      for (const std::string& words : shown) {
        for (double x : numbers_in(words))
          EXPECT_FALSE(passes(x)) << where << ": the answer is on screen at the start as " << x << " in \"" << words
                                  << "\"";
        const bool count = !check.relative && check.tolerance <= 0.5 && *answer == std::round(*answer);
        static const std::regex percent(R"((\d+\.?\d*)\s*%)");
        for (auto it = std::sregex_iterator(words.begin(), words.end(), percent); count && it != std::sregex_iterator();
             ++it) {
          const double p = std::strtod((*it)[1].str().c_str(), nullptr) / 100.0;
          for (double n : all)
            if (n >= 2 && n == std::round(n) && passes(p * n * n)) {
              ADD_FAILURE() << where << ": " << (*it)[0] << " of " << n << " x " << n << " gives the answer away in \""
                            << words << "\"";
              break;
            }
        }
      }
    }
  }
  EXPECT_GE(checked, 10);
  EXPECT_GE(readouts, checked) << "every step's panel window printed something";
  ImGui::DestroyContext();
}

// The solution shows on request or after a second failed check, never before: one wrong answer leaves the learner a
// second try, and the message says which (another try, or the solution below). A state exercise's live verdict is
// not a check (only its Check button is), and a check that cannot be computed is not a failed one.
TEST(Lessons, SolutionShowsOnlyAfterASecondFailedCheckOrOnRequest) {
  ExerciseAttempts a;
  EXPECT_FALSE(solution_visible(a));
  a.record(CheckStatus::Unavailable);
  EXPECT_FALSE(solution_visible(a));
  a.record(CheckStatus::Passed);
  EXPECT_FALSE(solution_visible(a));
  a.record(CheckStatus::NotYet);
  EXPECT_FALSE(solution_visible(a)) << "one wrong answer must leave a second try";
  const std::string first = failed_check_message(a);
  EXPECT_NE(first.find("try once more"), std::string::npos) << first;
  a.record(CheckStatus::NotYet);
  EXPECT_TRUE(solution_visible(a));
  const std::string second = failed_check_message(a);
  EXPECT_NE(second.find("solution is shown"), std::string::npos) << second;
  EXPECT_NE(first, second);
  ExerciseAttempts asked;
  asked.solution_requested = true;
  EXPECT_TRUE(solution_visible(asked));
  // Both messages are translated.
  {
    const testing::LanguageScope zh("lessons@zh");
    EXPECT_STRNE(tr(failed_check_message({1, false})), failed_check_message({1, false}));
    EXPECT_STRNE(tr(failed_check_message({2, false})), failed_check_message({2, false}));
  }
  // Every shipped state exercise starts not passed, so Check pressed twice doing nothing is two failed checks: the
  // solution appears after the second and not before.
  AppState state = make_app_state();
  for (const Lesson& l : shipped(state)) {
    for (const LessonStep& st : l.steps) {
      if (!st.exercise || st.exercise->check.kind != CheckKind::State) continue;
      ASSERT_TRUE(apply_lesson_step(state, st).ok);
      ExerciseAttempts at_start;
      EXPECT_FALSE(solution_visible(at_start)) << l.id << "/" << st.id;
      at_start.record(check_exercise_state(st.exercise->check, current_scene_values(state)).status);
      EXPECT_FALSE(solution_visible(at_start)) << l.id << "/" << st.id;
      at_start.record(check_exercise_state(st.exercise->check, current_scene_values(state)).status);
      EXPECT_TRUE(solution_visible(at_start)) << l.id << "/" << st.id;
    }
  }
}

// A lesson that opens a language panel opens it on text in the interface language: lesson 4's n-gram steps show
// English quotations in English and the Tang poems in Chinese ("values_zh"), and each step applies cleanly in both.
TEST(Lessons, LanguagePanelsOpenOnTextInTheInterfaceLanguage) {
  AppState state = make_app_state();
  int ngram_steps = 0;
  for (const Lesson& l : shipped(state))
    for (const LessonStep& st : l.steps) {
      if (!st.scene.contains("values") || !st.scene["values"].contains("ngram.corpus")) continue;
      ++ngram_steps;
      for (const char* lang : {"en", "zh"}) {
        const testing::LanguageScope scope(std::string("lessons@") + lang);
        const SceneLoad applied = apply_lesson_step(state, st);
        ASSERT_TRUE(applied.ok) << l.id << "/" << st.id << " " << lang << ": " << applied.error;
        EXPECT_TRUE(applied.warnings.empty()) << l.id << "/" << st.id << " " << lang;
        const std::string corpus = current_scene_values(state)["ngram.corpus"].get<std::string>();
        if (std::string(lang) == "zh")
          EXPECT_TRUE(corpus == "tang300" || corpus == "song100") << l.id << "/" << st.id << ": " << corpus;
        else
          EXPECT_EQ(corpus, "quotes") << l.id << "/" << st.id;
      }
    }
  EXPECT_GE(ngram_steps, 2);
}

// Reference values computed independently of the panels: the lesson's worked numbers are what core computes.
TEST(Lessons, LessonOneQuantitiesMatchIndependentValues) {
  AppState state = make_app_state();
  nlohmann::json v = current_scene_values(state);
  v["softmax.logits_a"] = "1.0, 0.5, -0.5";
  v["softmax.temperature"] = 1.0;
  const double e1 = std::exp(1.0), e2 = std::exp(0.5), e3 = std::exp(-0.5), s = e1 / (e1 + e2 + e3);
  const auto g = find_lesson_quantity("softmax.worked_a_top_gradient")->compute(v);
  ASSERT_TRUE(g.has_value());
  EXPECT_NEAR(*g, s * (1 - s), 1e-5);
  v["lora.d_in"] = 128;
  v["lora.d_out"] = 128;
  v["lora.rank"] = 4;
  EXPECT_DOUBLE_EQ(*find_lesson_quantity("lora.param_percent")->compute(v), 6.25);
  EXPECT_DOUBLE_EQ(*find_lesson_quantity("lora.trainable_params")->compute(v), 1024.0);
  v["softmax.d_k"] = 256;
  v["softmax.samples"] = 20000;
  const auto var = find_lesson_quantity("softmax.score_variance")->compute(v);
  ASSERT_TRUE(var.has_value());
  EXPECT_NEAR(*var / 256.0, 1.0, 0.05);  // Var(q·k) = d_k; 20000 samples: sd of the estimate ≈ 1%
  const auto sd = find_lesson_quantity("softmax.score_std")->compute(v);
  ASSERT_TRUE(sd.has_value());
  EXPECT_NEAR(*sd * *sd, *var, 1e-9 * *var);  // the same samples' variance, rooted
  // A measured device is not a pure function of the settings: not computable, never a guess.
  v["roofline.device"] = "this machine (measured)";
  EXPECT_FALSE(find_lesson_quantity("roofline.decode_intensity")->compute(v).has_value());
  v["softmax.d_k"] = "sixty";
  EXPECT_FALSE(find_lesson_quantity("softmax.unscaled_top_prob")->compute(v).has_value());
}

TEST(Lessons, ChecksCompareAndPreconditionsHold) {
  EXPECT_TRUE(compare_with(0.9, CheckOp::GreaterEqual, 0.9, 0, false));
  EXPECT_FALSE(compare_with(0.89, CheckOp::GreaterEqual, 0.9, 0, false));
  EXPECT_TRUE(compare_with(0.49, CheckOp::Less, 0.5, 0, false));
  EXPECT_TRUE(compare_with(105, CheckOp::Equal, 100, 0.05, true));
  EXPECT_FALSE(compare_with(106, CheckOp::Equal, 100, 0.05, true));
  EXPECT_FALSE(compare_with(NAN, CheckOp::Less, 1, 0, false));
  ExerciseCheck c;
  c.quantity = "lora.param_percent";
  c.op = CheckOp::Less;
  c.value = 10;
  c.also = {{"lora.optimizer", "adam"}};
  nlohmann::json v = {{"lora.d_in", 128}, {"lora.d_out", 128}, {"lora.rank", 4}, {"lora.optimizer", "sgd"}};
  CheckResult r = check_exercise_state(c, v);
  EXPECT_EQ(r.status, CheckStatus::NotYet);
  EXPECT_EQ(r.unmet_key, "lora.optimizer");
  v["lora.optimizer"] = "adam";
  EXPECT_EQ(check_exercise_state(c, v).status, CheckStatus::Passed);
  v.erase("lora.rank");
  EXPECT_EQ(check_exercise_state(c, v).status, CheckStatus::Unavailable);
}

// One line naming file, step and field for each kind of mistake a lecturer can make.
TEST(Lessons, BadFilesAreRefusedWithLinesNamingFileStepAndField) {
  const AppState state = make_app_state();
  const LessonNames names = lesson_names(state);
  const std::string good_step =
      R"({"id":"s","title":{"en":"T","zh":"T"},"text":{"en":"x","zh":"x"},"scene":{"open":["softmax"],"values":{"softmax.d_k":64}}})";
  auto lesson = [](const std::string& steps) {
    return R"({"format":1,"id":"mine","number":7,"title":{"en":"A","zh":"A"},"summary":{"en":"B","zh":"B"},"steps":[)" +
           steps + "]}";
  };
  auto first_error = [&](const std::string& text) {
    const LessonLoad l = parse_lesson(text, "/some/dir/mine.json", names);
    EXPECT_FALSE(l.ok);
    return l.errors.empty() ? std::string() : l.errors.front();
  };
  ASSERT_TRUE(parse_lesson(lesson(good_step), "mine.json", names).ok);
  EXPECT_NE(first_error("{").find("mine.json: not valid JSON"), std::string::npos) << first_error("{");
  std::string s = good_step;
  s.replace(s.find("\"softmax.d_k\""), 13, "\"softmax.dk\"");
  EXPECT_EQ(first_error(lesson(s)), "mine.json: step 1 (s): scene.values: unknown scene key \"softmax.dk\"");
  s = good_step;
  s.replace(s.find(R"("zh":"x")"), 8, R"("zz":"x")");
  EXPECT_EQ(first_error(lesson(s)), "mine.json: step 1 (s): text.zh: missing or not a non-empty string");
  const std::string ex_start =
      good_step.substr(0, good_step.size() - 1) + R"(,"exercise":{"question":{"en":"q","zh":"q"},)";
  EXPECT_EQ(
      first_error(lesson(
          ex_start +
          R"("check":{"kind":"state","quantity":"softmax.foo","op":">=","value":1},"solution":{"values":{"softmax.d_k":1},"text":{"en":"a","zh":"a"}}}})")),
      "mine.json: step 1 (s): exercise.check.quantity: unknown quantity \"softmax.foo\"");
  EXPECT_EQ(
      first_error(lesson(
          ex_start +
          R"("check":{"kind":"state","quantity":"softmax.scaled_top_prob","op":"=>","value":1},"solution":{"values":{"softmax.d_k":1},"text":{"en":"a","zh":"a"}}}})")),
      "mine.json: step 1 (s): exercise.check.op: expected one of <, <=, >, >=, ==");
  EXPECT_EQ(first_error(lesson(
                ex_start + R"("check":{"kind":"state","quantity":"softmax.scaled_top_prob","op":">=","value":1}}})")),
            "mine.json: step 1 (s): exercise.solution: missing: every exercise ships a solution (\"values\" or "
            "\"number\", and \"text\")");
  EXPECT_EQ(first_error(lesson(good_step + "," + good_step)), "mine.json: step 2 (s): id: used by an earlier step too");
  // Wrong types anywhere are messages, never exceptions.
  EXPECT_NE(
      first_error(
          lesson(
              ex_start +
              R"("check":{"kind":5,"quantity":[],"op":{},"value":"x","also":7},"hints":3,"solution":{"values":[],"number":"n","text":1}}})"))
          .find("exercise.check.kind"),
      std::string::npos);
  EXPECT_NE(
      first_error(
          lesson(R"({"id":3,"title":[],"text":{"en":1,"zh":null},"scene":{"open":"softmax","values":5},"look":"x"})"))
          .find("step 1"),
      std::string::npos);
  EXPECT_NE(first_error(R"({"format":"1","id":"","number":1.5,"title":"t","summary":{},"steps":{}})").find("format"),
            std::string::npos);
  // Nesting beyond the limit is refused before the library sees it.
  EXPECT_NE(first_error(std::string(1000, '[') + std::string(1000, ']')).find("nests deeper"), std::string::npos);
  const LessonLoad missing = load_lesson_file("/nonexistent/lesson.json", names);
  EXPECT_FALSE(missing.ok);
  EXPECT_EQ(missing.error.rfind("lesson.json: ", 0), 0u) << missing.error;
}

// Mutated lesson files (bytes replaced, cut short, values swapped for other JSON types) are refused or loaded, never
// thrown on or crashed on.
TEST(Lessons, MutatedFilesNeverThrow) {
  const AppState state = make_app_state();
  const LessonNames names = lesson_names(state);
  const auto files = shipped_lesson_files();
  ASSERT_FALSE(files.empty());
  std::string text, error;
  ASSERT_TRUE(read_file_bounded(files.front(), 1 << 22, &text, &error)) << error;
  std::mt19937 rng(7);
  const char* swaps[] = {"5", "\"x\"", "[]", "{}", "null", "true", "-1e308", "[[[[1]]]]"};
  for (int i = 0; i < 400; ++i) {
    std::string t = text;
    const size_t at = rng() % t.size();
    switch (i % 3) {
      case 0: t[at] = static_cast<char>(rng() % 256); break;
      case 1: t.resize(at); break;
      default: {  // a value after a colon replaced by another type
        const size_t colon = t.find(':', at);
        if (colon == std::string::npos) break;
        const size_t end = t.find_first_of(",}", colon);
        t.replace(colon + 1, end == std::string::npos ? 0 : end - colon - 1, swaps[rng() % 8]);
      }
    }
    EXPECT_NO_THROW(parse_lesson(t, "fuzz.json", names)) << i;
  }
}

TEST(Lessons, ProgressReadsBackAndIgnoresBrokenFields) {
  LessonProgress p;
  p.lesson = "high-dimensional";
  p.open = true;
  p.steps["high-dimensional"] = 3;
  p.mark_done("high-dimensional", "saturation");
  p.mark_done("high-dimensional", "lora-parameters");
  p.mark_done("other", "x");
  EXPECT_EQ(p.done_in("high-dimensional"), 2);
  EXPECT_EQ(progress_from_json(progress_to_json(p)), p);
  p.forget("high-dimensional", "saturation");
  EXPECT_FALSE(p.is_done("high-dimensional", "saturation"));
  const LessonProgress broken = progress_from_json(nlohmann::json::parse(
      R"({"lesson": 5, "open": true, "steps": {"a": -1, "b": 2, "../x": 1}, "done": [1, "a/s"]})"));
  EXPECT_EQ(broken.lesson, "");
  EXPECT_TRUE(broken.open);
  EXPECT_EQ(broken.steps.size(), 1u);
  EXPECT_EQ(broken.step_of("b"), 2);
  EXPECT_EQ(broken.done, std::set<std::string>{"a/s"});
}

}  // namespace
}  // namespace tw
