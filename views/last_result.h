#pragma once
// The last result of one expensive part of a panel's compute, kept with the inputs it was computed from, so a drag
// of a control the part does not read reuses it instead of computing it again (issue 27: "compute what changed").
// The compute runs on the panel's worker, the UI thread asks holds() for its cost estimate: guarded by a mutex.

#include <memory>
#include <mutex>
#include <utility>

namespace tw {

template <class Key, class Value>
class LastResult {
 public:
  // Whether the value for `key` is at hand (the compute will not need to run it).
  bool holds(const Key& key) const {
    std::lock_guard<std::mutex> lock(mutex_);
    return value_ && key_ == key;
  }
  // The value for `key`: the kept one, or `compute()` (run outside the lock), kept when `complete(value)` says it
  // is whole (a cancelled compute's partial value is returned but never kept).
  template <class Compute, class Complete>
  std::shared_ptr<const Value> get(const Key& key, Compute&& compute, Complete&& complete) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (value_ && key_ == key) return value_;
    }
    auto value = std::make_shared<const Value>(compute());
    if (complete(*value)) {
      std::lock_guard<std::mutex> lock(mutex_);
      key_ = key;
      value_ = value;
    }
    return value;
  }

 private:
  mutable std::mutex mutex_;
  Key key_{};
  std::shared_ptr<const Value> value_;
};

}  // namespace tw
