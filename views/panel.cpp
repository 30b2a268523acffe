#include "views/panel.h"

#include <algorithm>

#include "views/handoffs.h"

namespace tw {

Handoffs& Panel::handoffs() {
  if (!handoffs_) handoffs_ = std::make_shared<Handoffs>();
  return *handoffs_;
}

namespace {
std::vector<PanelFactory>& factories() {
  static std::vector<PanelFactory> list;  // function-local so registration order across files is safe
  return list;
}
}  // namespace

bool register_panel(PanelFactory factory) {
  factories().push_back(std::move(factory));
  return true;
}

std::vector<std::unique_ptr<Panel>> make_all_panels() {
  std::vector<std::unique_ptr<Panel>> panels;
  for (const auto& f : factories()) {
    panels.push_back(f());
    panels.back()->bind_controls();
  }
  std::stable_sort(panels.begin(), panels.end(), [](const auto& a, const auto& b) {
    const PanelInfo ia = a->info(), ib = b->info();
    if (ia.category != ib.category) return ia.category < ib.category;
    return ia.name < ib.name;
  });
  return panels;
}

std::unique_ptr<Panel> make_panel(const std::string& id) {
  for (const auto& f : factories()) {
    auto p = f();
    if (p->info().id == id) {
      p->bind_controls();
      return p;
    }
  }
  return nullptr;
}

std::vector<PanelInfo> panel_infos() {
  std::vector<PanelInfo> infos;
  for (auto& p : make_all_panels()) infos.push_back(p->info());
  return infos;
}

}  // namespace tw
