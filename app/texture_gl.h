#pragma once
// Installs the plot layer's texture backend (views/plot/plot_imgui.h) with plain OpenGL 1.1 texture calls,
// so heatmaps are drawn as one texture each. Call once after the GL context and ImGui are initialised.

namespace tw {
void install_gl_texture_backend();
}  // namespace tw
