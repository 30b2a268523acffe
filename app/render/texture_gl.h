#pragma once
// Installs the plot layer's texture backend (views/plot/plot_imgui.h) with plain OpenGL 1.1 texture calls,
// so heatmaps are drawn as one texture each. Call once after the GL context and ImGui are initialised.

#include <imgui.h>

#include <cstdint>

namespace tw {
void install_gl_texture_backend();
// A texture of RGBA8 pixels (row 0 at the top) with linear filtering, for downscaled pictures such as the start
// page's thumbnails (figures use the backend above: nearest filtering keeps heatmap cells flat). Null on failure.
ImTextureID create_picture_texture(int width, int height, const uint8_t* rgba);
// How often the texture's pixels were created or replaced, as a number that grows with every upload of any texture
// (0: never): damage tracking redraws what shows a texture whose version changed (app/render/render_damage.h).
uint64_t texture_version(uintptr_t texture);
}  // namespace tw
