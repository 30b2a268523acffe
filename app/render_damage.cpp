#include "app/render_damage.h"

#define GLFW_INCLUDE_NONE
#include <GL/gl.h>
#include <GL/glext.h>
#include <GL/glx.h>
#include <GLFW/glfw3.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

#include "app/damage.h"

namespace tw {

namespace {

// At most this many rectangles (more are merged, app/damage.h limit_rects): every rectangle repeats the draw calls
// touching it.
constexpr int kMaxDamageRects = 12;

// TW_DAMAGE, words separated by commas: "off", "full", "check", "offscreen" (the image path even where the back
// buffer is kept, to test it); unset: tracked.
struct Settings {
  bool off = false, full = false, check = false, offscreen = false;
};
const Settings& settings() {
  static const Settings m = [] {
    Settings s;
    const char* v = std::getenv("TW_DAMAGE");
    const std::string words = v ? std::string(",") + v + "," : "";
    auto has = [&](const char* word) { return words.find(std::string(",") + word + ",") != std::string::npos; };
    s.off = has("off") || has("0");
    s.full = has("full");
    s.check = has("check");
    s.offscreen = has("offscreen");
    return s;
  }();
  return m;
}

// Framebuffer-object entry points (OpenGL 3.0): not exported by every libGL, so looked up through GLFW once.
struct FboApi {
  PFNGLGENFRAMEBUFFERSPROC gen = nullptr;
  PFNGLDELETEFRAMEBUFFERSPROC del = nullptr;
  PFNGLBINDFRAMEBUFFERPROC bind = nullptr;
  PFNGLFRAMEBUFFERTEXTURE2DPROC texture = nullptr;
  PFNGLCHECKFRAMEBUFFERSTATUSPROC status = nullptr;
  PFNGLBLITFRAMEBUFFERPROC blit = nullptr;
  bool ok() const { return gen && del && bind && texture && status && blit; }
};
const FboApi& fbo_api() {
  static const FboApi api = [] {
    FboApi a;
    a.gen = reinterpret_cast<PFNGLGENFRAMEBUFFERSPROC>(glfwGetProcAddress("glGenFramebuffers"));
    a.del = reinterpret_cast<PFNGLDELETEFRAMEBUFFERSPROC>(glfwGetProcAddress("glDeleteFramebuffers"));
    a.bind = reinterpret_cast<PFNGLBINDFRAMEBUFFERPROC>(glfwGetProcAddress("glBindFramebuffer"));
    a.texture = reinterpret_cast<PFNGLFRAMEBUFFERTEXTURE2DPROC>(glfwGetProcAddress("glFramebufferTexture2D"));
    a.status = reinterpret_cast<PFNGLCHECKFRAMEBUFFERSTATUSPROC>(glfwGetProcAddress("glCheckFramebufferStatus"));
    a.blit = reinterpret_cast<PFNGLBLITFRAMEBUFFERPROC>(glfwGetProcAddress("glBlitFramebuffer"));
    return a;
  }();
  return api;
}

// Mesa's software renderers on X11 (GLX) keep the back buffer's pixels across a swap (the swap copies them to the
// window), so the last frame is already where the next one is drawn. A GPU driver, or Wayland's shared-memory
// buffers, may hand out another buffer after each swap: there the frame is kept in an offscreen image.
bool back_buffer_kept() {
  const auto* name = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
  const std::string renderer = name ? name : "";
  const bool software = renderer.rfind("llvmpipe", 0) == 0 || renderer.rfind("softpipe", 0) == 0;
  return software && glXGetCurrentContext() != nullptr;
}

// An offscreen colour image the size of the window.
struct Offscreen {
  GLuint fbo = 0, tex = 0;
  int width = 0, height = 0;
  void release() {
    if (fbo) fbo_api().del(1, &fbo);
    if (tex) glDeleteTextures(1, &tex);
    fbo = tex = 0;
    width = height = 0;
  }
  // (Re)creates it at w × h; false when the driver refuses.
  bool ensure(int w, int h, bool* recreated) {
    *recreated = false;
    if (fbo && width == w && height == h) return true;
    release();
    const FboApi& api = fbo_api();
    GLint previous = 0;
    glGetIntegerv(GL_TEXTURE_BINDING_2D, &previous);
    glGenTextures(1, &tex);
    glBindTexture(GL_TEXTURE_2D, tex);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, w, h, 0, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
    glBindTexture(GL_TEXTURE_2D, static_cast<GLuint>(previous));
    api.gen(1, &fbo);
    api.bind(GL_FRAMEBUFFER, fbo);
    api.texture(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, tex, 0);
    const bool complete = api.status(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;
    api.bind(GL_FRAMEBUFFER, 0);
    if (!complete) {
      release();
      return false;
    }
    width = w;
    height = h;
    *recreated = true;
    return true;
  }
};

struct DamageRenderer {
  bool started = false;
  bool in_back_buffer = false;  // draws into the back buffer (kept across swaps), else into `image`
  Offscreen image;              // the persistent frame when the back buffer is not kept
  Offscreen check;              // TW_DAMAGE=check: the last frame, kept while this one is drawn in full
  TileHashes last;              // the tiles of the last frame drawn
  float clear[3] = {-1, -1, -1};
  bool full_requested = true;
  DamageStats stats;
  long long mismatches = 0;             // TW_DAMAGE=check: frames that differed from the full redraw
  long long compared = 0, partial = 0;  // frames compared; of them, drawn only in part
  long long merged = 0;                 // of those, drawn in rectangles merged from more (limit_rects)
  long long frame = 0;
};
DamageRenderer g_renderer;

std::unordered_map<uintptr_t, uint64_t> g_texture_versions;
uint64_t g_texture_counter = 0;

void copy_image(GLuint from, GLuint to, int w, int h) {
  const FboApi& api = fbo_api();
  api.bind(GL_READ_FRAMEBUFFER, from);
  api.bind(GL_DRAW_FRAMEBUFFER, to);
  api.blit(0, 0, w, h, 0, 0, w, h, GL_COLOR_BUFFER_BIT, GL_NEAREST);
  api.bind(GL_FRAMEBUFFER, 0);
}

// Draws the frame inside `rects` only, over what framebuffer `target` holds (its pixels elsewhere are kept).
void draw_rects(ImDrawData* draw_data, GLuint target, const std::vector<PixelRect>& rects, int w, int h,
                const float c[3]) {
  fbo_api().bind(GL_FRAMEBUFFER, target);
  glViewport(0, 0, w, h);
  glEnable(GL_SCISSOR_TEST);
  glClearColor(c[0], c[1], c[2], 1.0f);
  for (const PixelRect& r : rects) {
    glScissor(r.x0, h - r.y1, r.x1 - r.x0, r.y1 - r.y0);  // OpenGL counts rows from the bottom
    glClear(GL_COLOR_BUFFER_BIT);
  }
  glDisable(GL_SCISSOR_TEST);
  restrict_to_rects(draw_data, rects, w, h);
  ImGui_ImplOpenGL3_RenderDrawData(draw_data);
}

void draw_full(ImDrawData* draw_data, int w, int h, const float c[3]) {
  glViewport(0, 0, w, h);
  glDisable(GL_SCISSOR_TEST);
  glClearColor(c[0], c[1], c[2], 1.0f);
  glClear(GL_COLOR_BUFFER_BIT);
  ImGui_ImplOpenGL3_RenderDrawData(draw_data);
}

std::vector<unsigned char> read_rgba(GLuint fbo, int w, int h) {
  std::vector<unsigned char> pixels(size_t(w) * h * 4);
  fbo_api().bind(GL_FRAMEBUFFER, fbo);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, pixels.data());
  return pixels;
}

// The draw data as ImGui made it, to draw it a second time (TW_DAMAGE=check).
struct SavedDrawData {
  explicit SavedDrawData(const ImDrawData* d) {
    for (int l = 0; l < d->CmdListsCount; ++l) commands.push_back(d->CmdLists[l]->CmdBuffer);
  }
  void restore(ImDrawData* d) const {
    for (int l = 0; l < d->CmdListsCount; ++l) d->CmdLists[l]->CmdBuffer = commands[size_t(l)];
  }
  std::vector<ImVector<ImDrawCmd>> commands;
};

// TW_DAMAGE=check: draws this frame in full over a copy of the last one, then puts the last one back, so the
// tracked drawing that follows can be compared with it. Returns the full frame's pixels (empty if impossible).
std::vector<unsigned char> full_reference(ImDrawData* draw_data, GLuint target, int w, int h, const float c[3]) {
  bool unused = false;
  if (!g_renderer.check.ensure(w, h, &unused)) return {};
  copy_image(target, g_renderer.check.fbo, w, h);
  const SavedDrawData saved(draw_data);
  draw_rects(draw_data, target, {{0, 0, w, h}}, w, h, c);
  saved.restore(draw_data);
  std::vector<unsigned char> pixels = read_rgba(target, w, h);
  copy_image(g_renderer.check.fbo, target, w, h);
  return pixels;
}

}  // namespace

void note_texture_changed(uintptr_t texture) { g_texture_versions[texture] = ++g_texture_counter; }
void request_full_redraw() { g_renderer.full_requested = true; }
const DamageStats& last_damage_stats() { return g_renderer.stats; }

void release_damage_renderer() {
  if (settings().check)
    std::fprintf(stderr,
                 "damage check: %lld frames compared with a full redraw (%lld drawn in part, %lld of them in merged "
                 "rectangles), %lld differed\n",
                 g_renderer.compared, g_renderer.partial, g_renderer.merged, g_renderer.mismatches);
  g_renderer.image.release();
  g_renderer.check.release();
  g_renderer.last = {};
  g_renderer.full_requested = true;
}

void render_with_damage(ImDrawData* draw_data, int w, int h, const float clear[3]) {
  DamageRenderer& r = g_renderer;
  ++r.frame;
  r.stats = {0, 0, double(w) * h, true};
  if (w <= 0 || h <= 0) return;
  if (!r.started) {
    r.started = true;
    r.in_back_buffer = back_buffer_kept() && !settings().offscreen;
  }
  // Positions are framebuffer pixels only at DisplayPos (0, 0) and scale 1 (not a Retina display).
  const bool pixel_space = draw_data->DisplayPos.x == 0 && draw_data->DisplayPos.y == 0 &&
                           draw_data->FramebufferScale.x == 1 && draw_data->FramebufferScale.y == 1;
  bool recreated = false;
  const bool tracked =
      !settings().off && pixel_space && fbo_api().ok() && (r.in_back_buffer || r.image.ensure(w, h, &recreated));
  if (!tracked) {  // every frame in full, straight into the back buffer
    fbo_api().bind(GL_FRAMEBUFFER, 0);
    r.stats = {1, double(w) * h, double(w) * h, true};
    r.last = {};
    r.full_requested = true;
    draw_full(draw_data, w, h, clear);
    return;
  }
  const bool full =
      recreated || r.full_requested || settings().full || std::memcmp(clear, r.clear, sizeof(r.clear)) != 0;
  std::memcpy(r.clear, clear, sizeof(r.clear));
  r.full_requested = false;
  TileHashes now = hash_tiles(*draw_data, w, h, [](uintptr_t texture) {
    const auto found = g_texture_versions.find(texture);
    return found == g_texture_versions.end() ? uint64_t(0) : found->second;
  });
  // A new size gives a new grid: damaged_rects then returns the whole frame.
  const std::vector<PixelRect> rects =
      full ? std::vector<PixelRect>{{0, 0, w, h}} : damaged_rects(r.last, now, kMaxDamageRects);
  // TW_DAMAGE=check counts the frames whose rectangles were merged (the check then covers limit_rects too).
  const bool merged = settings().check && !full && damaged_rects(r.last, now, 1 << 30).size() > rects.size();
  r.last = std::move(now);
  r.stats.full = full || (rects.size() == 1 && rects[0] == PixelRect{0, 0, w, h});
  r.stats.rects = int(rects.size());
  for (const PixelRect& rect : rects) r.stats.damaged_pixels += double(rect.area());

  const GLuint target = r.in_back_buffer ? 0 : r.image.fbo;
  const std::vector<unsigned char> reference =
      settings().check ? full_reference(draw_data, target, w, h, clear) : std::vector<unsigned char>{};
  if (!rects.empty()) draw_rects(draw_data, target, rects, w, h, clear);
  if (!reference.empty()) {
    ++r.compared;
    r.partial += !r.stats.full && !rects.empty();
    r.merged += merged;
    const std::vector<unsigned char> tracked_pixels = read_rgba(target, w, h);
    long long differ = 0;
    int largest = 0;  // the largest difference of a colour channel, in levels of 255
    for (size_t i = 0; i < reference.size(); i += 4) {
      const int d =
          std::max({std::abs(reference[i] - tracked_pixels[i]), std::abs(reference[i + 1] - tracked_pixels[i + 1]),
                    std::abs(reference[i + 2] - tracked_pixels[i + 2])});
      differ += d > 0;
      largest = std::max(largest, d);
    }
    if (differ > 0) {
      ++r.mismatches;
      std::fprintf(stderr,
                   "damage check: frame %lld: %lld pixels differ from the full redraw (%d rectangles, by up to %d "
                   "levels)\n",
                   r.frame, differ, int(rects.size()), largest);
    }
  }
  // Present: the image to the window's back buffer, which screenshots and the swap then read.
  if (!r.in_back_buffer) copy_image(r.image.fbo, 0, w, h);
  fbo_api().bind(GL_FRAMEBUFFER, 0);
}

}  // namespace tw
