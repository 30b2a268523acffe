// The forward stepper's model list says which models are trained and which are random: the shipped task models'
// labels carry the task and held-out accuracy their own folder's card.json states (read here independently), the
// seeded presets say "random weights", and the language model's label comes from its card.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/model/stepper_model.h"
#include "views/forward/forward_panel.h"

namespace tw {
namespace {

nlohmann::json card_of(const std::string& dir) {
  std::ifstream in(dir + "/card.json");
  std::stringstream text;
  text << in.rdbuf();
  return nlohmann::json::parse(text.str());
}

TEST(ModelLabels, TrainedModelsSayWhatTheyLearnedAndRandomOnesSaySo) {
  const std::string models = shipped_models_dir();
  ASSERT_FALSE(models.empty());
  const std::vector<ShippedLanguageModel> lms = shipped_language_models(models);
  set_language(Language::En);
  const std::vector<std::string> labels = forward_model_labels(models, lms);
  ASSERT_EQ(labels.size(), size_t(ForwardModel::Language) + 1);
  for (ForwardModel m : {ForwardModel::Tiny, ForwardModel::Small, ForwardModel::Custom})
    EXPECT_NE(labels[size_t(m)].find("random weights"), std::string::npos) << labels[size_t(m)];
  for (const auto& [m, name] :
       {std::pair{ForwardModel::Sort, "sort"}, std::pair{ForwardModel::Induction, "induction"}}) {
    const nlohmann::json card = card_of(models + "/" + name);
    const std::string& label = labels[size_t(m)];
    EXPECT_EQ(label.rfind(std::string(name) + ": trained to " + card["task"].get<std::string>(), 0), 0u) << label;
    char accuracy[32];
    std::snprintf(accuracy, sizeof accuracy, "%.3g%%", 100 * card["heldout_accuracy"].get<double>());
    EXPECT_NE(label.find(accuracy), std::string::npos) << label << " lacks " << accuracy;
    EXPECT_EQ(label.find("random weights"), std::string::npos) << label;
  }
  const std::string& language = labels[size_t(ForwardModel::Language)];
  EXPECT_NE(language.find("trained on text"), std::string::npos) << language;
  ASSERT_NE(language_model_for(lms, "en"), nullptr);
  EXPECT_NE(language.find(language_model_for(lms, "en")->label()), std::string::npos) << language;

  // In Chinese: the card's Chinese task.
  set_language(Language::Zh);
  const std::vector<std::string> zh = forward_model_labels(models, lms);
  set_language(Language::En);
  EXPECT_NE(zh[size_t(ForwardModel::Sort)].find(card_of(models + "/sort")["task_zh"].get<std::string>()),
            std::string::npos)
      << zh[size_t(ForwardModel::Sort)];
}

}  // namespace
}  // namespace tw
