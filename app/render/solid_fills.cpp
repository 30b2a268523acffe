#include "app/render/solid_fills.h"

#include <GL/gl.h>
#include <imgui.h>

#include <cmath>
#include <cstdint>
#include <vector>

namespace tw {

namespace {

SolidFillStats g_stats;

// A 1×1 opaque white texture with nearest filtering: white × vertex colour is the vertex colour, read in one fetch.
ImTextureID white_texture() {
  static GLuint tex = 0;
  if (tex == 0) {
    const unsigned char white[4] = {255, 255, 255, 255};
    GLint previous = 0, alignment = 4;
    glGetIntegerv(GL_TEXTURE_BINDING_2D, &previous);
    glGetIntegerv(GL_UNPACK_ALIGNMENT, &alignment);
    glGenTextures(1, &tex);
    glBindTexture(GL_TEXTURE_2D, tex);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA, 1, 1, 0, GL_RGBA, GL_UNSIGNED_BYTE, white);
    glPixelStorei(GL_UNPACK_ALIGNMENT, alignment);
    glBindTexture(GL_TEXTURE_2D, static_cast<GLuint>(previous));
  }
  return reinterpret_cast<ImTextureID>(static_cast<intptr_t>(tex));
}

// Opaque colour replaces the destination: blending would read it back only to multiply it by zero.
void disable_blending(const ImDrawList*, const ImDrawCmd*) { glDisable(GL_BLEND); }

float triangle_area(const ImVec2& a, const ImVec2& b, const ImVec2& c) {
  return 0.5f * std::fabs((b.x - a.x) * (c.y - a.y) - (c.x - a.x) * (b.y - a.y));
}

}  // namespace

const SolidFillStats& last_solid_fill_stats() { return g_stats; }

void split_solid_fills(ImDrawData* draw_data) {
  g_stats = {};
  if (!draw_data) return;
  const ImFontAtlas* atlas = ImGui::GetIO().Fonts;
  const ImTextureID font = atlas->TexID;
  const ImVec2 white_uv = atlas->TexUvWhitePixel;
  const ImTextureID white = white_texture();
  std::vector<ImDrawCmd> out;
  for (int l = 0; l < draw_data->CmdListsCount; ++l) {
    ImDrawList* list = draw_data->CmdLists[l];
    out.clear();
    bool split_any = false;
    for (const ImDrawCmd& cmd : list->CmdBuffer) {
      if (cmd.UserCallback || cmd.TextureId != font) {
        out.push_back(cmd);
        continue;
      }
      const ImDrawIdx* idx = list->IdxBuffer.Data + cmd.IdxOffset;
      const ImDrawVert* vtx = list->VtxBuffer.Data + cmd.VtxOffset;
      auto solid = [&](unsigned i) {
        for (unsigned k = i; k < i + 3; ++k) {
          const ImDrawVert& v = vtx[idx[k]];
          if (v.uv.x != white_uv.x || v.uv.y != white_uv.y || (v.col & IM_COL32_A_MASK) != IM_COL32_A_MASK)
            return false;
        }
        return true;
      };
      auto area = [&](unsigned i) { return triangle_area(vtx[idx[i]].pos, vtx[idx[i + 1]].pos, vtx[idx[i + 2]].pos); };
      auto emit = [&](unsigned from, unsigned to, ImTextureID tex) {
        if (to <= from) return;
        ImDrawCmd part = cmd;
        part.IdxOffset = cmd.IdxOffset + from;
        part.ElemCount = to - from;
        part.TextureId = tex;
        out.push_back(part);
      };
      auto emit_callback = [&](ImDrawCallback callback) {
        ImDrawCmd c = cmd;
        c.ElemCount = 0;
        c.UserCallback = callback;
        c.UserCallbackData = nullptr;
        out.push_back(c);
      };
      unsigned start = 0, i = 0;
      const unsigned n = cmd.ElemCount - cmd.ElemCount % 3;
      while (i < n) {
        const float a = area(i);
        g_stats.all_pixels += a;
        if (!solid(i)) {
          i += 3;
          continue;
        }
        unsigned j = i + 3;
        double run = a;
        for (; j < n && solid(j); j += 3) {
          const float aj = area(j);
          run += aj;
          g_stats.all_pixels += aj;
        }
        if (run >= kMinSolidRunPixels) {
          emit(start, i, font);
          emit_callback(disable_blending);
          emit(i, j, white);
          emit_callback(ImDrawCallback_ResetRenderState);  // blending back on (ImGui's state for the rest)
          start = j;
          split_any = true;
          ++g_stats.runs;
          g_stats.pixels += run;
        }
        i = j;
      }
      emit(start, cmd.ElemCount, font);
    }
    if (!split_any) continue;
    list->CmdBuffer.resize(static_cast<int>(out.size()));
    for (size_t c = 0; c < out.size(); ++c) list->CmdBuffer[static_cast<int>(c)] = out[c];
  }
}

}  // namespace tw
