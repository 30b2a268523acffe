#include "views/train_handoff.h"

#include <utility>

#include "views/model_handoff.h"

namespace tw {

namespace {
struct Board {
  std::optional<TrainComparison> comparison;  // posted to the Training panel, not taken yet
  std::shared_ptr<const TrainSnapshot> run;   // the Training panel's latest snapshot
};
Board& board() {
  static Board b;
  return b;
}
}  // namespace

// [SECTION] comparison hand-off

void post_train_comparison(TrainComparison c) {
  if (handoffs_detached()) return;
  board().comparison = std::move(c);
  request_focus("train");
}

std::optional<TrainComparison> take_train_comparison() {
  if (handoffs_detached()) return std::nullopt;
  return std::exchange(board().comparison, std::nullopt);
}

// [SECTION] the latest run

void publish_training_run(std::shared_ptr<const TrainSnapshot> snapshot) {
  if (!handoffs_detached()) board().run = std::move(snapshot);
}
std::shared_ptr<const TrainSnapshot> latest_training_run() { return handoffs_detached() ? nullptr : board().run; }

}  // namespace tw
