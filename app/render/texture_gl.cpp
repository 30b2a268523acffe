// OpenGL texture backend for the plot layer. glGenTextures/glTexImage2D are OpenGL 1.1 entry points exported
// by libGL directly, so no loader is needed. The ImGui OpenGL3 backend (1.86) reads ImTextureID as a GLuint.
#include "app/render/texture_gl.h"

#include <GL/gl.h>

#include <cstdint>
#include <unordered_map>

#include "views/plot/plot_imgui.h"

namespace tw {

namespace {

// Each texture's version (texture_version): the texture store's own record, which the damage tracker reads.
std::unordered_map<uintptr_t, uint64_t> g_texture_versions;
uint64_t g_texture_counter = 0;
void note_texture_changed(GLuint tex) { g_texture_versions[tex] = ++g_texture_counter; }

#ifndef GL_CLAMP_TO_EDGE
#define GL_CLAMP_TO_EDGE 0x812F
#endif

GLuint to_gl(ImTextureID id) { return static_cast<GLuint>(reinterpret_cast<intptr_t>(id)); }

// Uploads with the previous binding and unpack state restored, so ImGui's renderer is not disturbed.
void upload(GLuint tex, int width, int height, const uint8_t* rgba, bool create) {
  GLint previous = 0, alignment = 4;
  glGetIntegerv(GL_TEXTURE_BINDING_2D, &previous);
  glGetIntegerv(GL_UNPACK_ALIGNMENT, &alignment);
  glBindTexture(GL_TEXTURE_2D, tex);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
  if (create) {
    // Nearest filtering: one heatmap cell stays one flat colour however far it is zoomed.
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA, width, height, 0, GL_RGBA, GL_UNSIGNED_BYTE, rgba);
  } else {
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, rgba);
  }
  glPixelStorei(GL_UNPACK_ALIGNMENT, alignment);
  glBindTexture(GL_TEXTURE_2D, static_cast<GLuint>(previous));
  note_texture_changed(tex);
}

ImTextureID create_texture(int width, int height, const uint8_t* rgba) {
  GLuint tex = 0;
  glGenTextures(1, &tex);
  if (tex == 0) return nullptr;
  upload(tex, width, height, rgba, true);
  return reinterpret_cast<ImTextureID>(static_cast<intptr_t>(tex));
}

void update_texture(ImTextureID id, int width, int height, const uint8_t* rgba) {
  upload(to_gl(id), width, height, rgba, false);
}

void destroy_texture(ImTextureID id) {
  const GLuint tex = to_gl(id);
  glDeleteTextures(1, &tex);
}

}  // namespace

ImTextureID create_picture_texture(int width, int height, const uint8_t* rgba) {
  const ImTextureID id = create_texture(width, height, rgba);
  if (!id) return nullptr;
  GLint previous = 0;
  glGetIntegerv(GL_TEXTURE_BINDING_2D, &previous);
  glBindTexture(GL_TEXTURE_2D, to_gl(id));
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
  glBindTexture(GL_TEXTURE_2D, static_cast<GLuint>(previous));
  return id;
}

void install_gl_texture_backend() {
  plot::TextureBackend backend;
  backend.create = create_texture;
  backend.update = update_texture;
  backend.destroy = destroy_texture;
  plot::set_texture_backend(backend);
}

uint64_t texture_version(uintptr_t texture) {
  const auto found = g_texture_versions.find(texture);
  return found == g_texture_versions.end() ? uint64_t(0) : found->second;
}

}  // namespace tw
