#pragma once
// Draw data filled by hand for the render-path tests (tests/app/test_damage.cpp, test_window_move.cpp): no GL,
// no ImGui frame.

#include <imgui.h>

#include <memory>
#include <vector>

namespace tw {

// A frame made of draw lists filled by hand (each quad its own command).
struct Frame {
  std::vector<std::unique_ptr<ImDrawList>> lists;
  std::vector<ImDrawList*> pointers;
  ImDrawData data;

  ImDrawList& list(size_t i) {
    while (lists.size() <= i) lists.push_back(std::make_unique<ImDrawList>(nullptr));
    return *lists[i];
  }
  // An axis-aligned quad (two triangles) in list `l`, as its own command.
  void quad(size_t l, ImVec2 a, ImVec2 b, ImU32 col, ImTextureID tex = nullptr,
            ImVec4 clip = ImVec4(0, 0, 10000, 10000)) {
    ImDrawList& dl = list(l);
    ImDrawCmd cmd;
    cmd.ClipRect = clip;
    cmd.TextureId = tex;
    cmd.VtxOffset = 0;
    cmd.IdxOffset = unsigned(dl.IdxBuffer.Size);
    cmd.ElemCount = 6;
    const auto base = ImDrawIdx(dl.VtxBuffer.Size);
    for (ImVec2 p : {a, ImVec2(b.x, a.y), b, ImVec2(a.x, b.y)}) dl.VtxBuffer.push_back({p, ImVec2(0, 0), col});
    for (int k : {0, 1, 2, 0, 2, 3}) dl.IdxBuffer.push_back(ImDrawIdx(base + k));
    dl.CmdBuffer.push_back(cmd);
  }
  void callback(size_t l, ImDrawCallback fn) {
    ImDrawCmd cmd;
    cmd.UserCallback = fn;
    cmd.IdxOffset = unsigned(list(l).IdxBuffer.Size);
    list(l).CmdBuffer.push_back(cmd);
  }
  ImDrawData& draw_data() {
    pointers.clear();
    for (auto& l : lists) pointers.push_back(l.get());
    data.CmdLists = pointers.data();
    data.CmdListsCount = int(pointers.size());
    data.DisplayPos = ImVec2(0, 0);
    data.FramebufferScale = ImVec2(1, 1);
    return data;
  }
};

}  // namespace tw
