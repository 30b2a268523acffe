#include "app/render/render_damage.h"

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
#include <optional>
#include <string>
#include <vector>

#ifndef TW_FAST_RENDER
#define TW_FAST_RENDER 1
#endif
#ifndef TW_RENDER_CHECK
#define TW_RENDER_CHECK 0
#endif
#include "core/base/i18n.h"

#if TW_FAST_RENDER
#include "app/render/damage.h"
#include "app/render/texture_gl.h"
#include "app/render/window_move.h"
#endif

namespace tw {

namespace {

DamageMode read_damage_mode() {
  DamageMode m;
  const char* v = std::getenv("TW_DAMAGE");
  const std::string words = v ? std::string(",") + v + "," : "";
  auto has = [&](const char* word) { return words.find(std::string(",") + word + ",") != std::string::npos; };
  m.off = has("off") || has("0");
  const bool full = has("full"), check = has("check"), offscreen = has("offscreen"), nomove = has("nomove");
#if TW_RENDER_CHECK
  m.full = full;
  m.check = check;
  m.offscreen = offscreen;
  m.nomove = nomove;
#else
  if (full || check || offscreen || nomove)
    std::fprintf(stderr, "transformer-workbench: %s\n",
                 subst(tr("TW_DAMAGE={0}: the reference modes are in transformer-workbench-render-check (the test "
                          "build); ignored"),
                       {v})
                     .c_str());
#endif
  return m;
}

}  // namespace

DamageMode damage_mode_from_environment() {
  static const DamageMode m = read_damage_mode();
  return m;
}

bool fast_render_on() { return TW_FAST_RENDER && !damage_mode_from_environment().off; }

namespace {

void draw_full(ImDrawData* draw_data, int w, int h, const float c[3]) {
  glViewport(0, 0, w, h);
  glDisable(GL_SCISSOR_TEST);
  glClearColor(c[0], c[1], c[2], 1.0f);
  glClear(GL_COLOR_BUFFER_BIT);
  ImGui_ImplOpenGL3_RenderDrawData(draw_data);
}

}  // namespace

#if TW_FAST_RENDER
namespace {

// At most this many rectangles (more are merged, app/render/damage.h limit_rects): every rectangle repeats the draw
// calls touching it.
constexpr int kMaxDamageRects = 24;
// A frame that copies a moved window draws the frame around it: four bands (each edge) and what changed elsewhere.
constexpr int kMaxMovedRects = 16;
// A moved window's vertices may differ from the old ones moved by float rounding (~1e-4 pixel): beyond this, its
// content changed (app/render/window_move.h).
constexpr float kMoveTolerance = 1e-3f;
// The tiles a copied window image covers count as changed in the next frame (no frame hashes to this value).
constexpr uint64_t kCopiedTiles = 0x636f70696564ULL;
// Pixels around a window its anti-aliased border can reach.
constexpr int kBorderReach = 2;
// Pixels along the screen's edges where a moved window is drawn as usual (draw_moved_window).
constexpr int kScreenEdge = 4;

// Framebuffer-object entry points (OpenGL 3.0): not exported by every libGL, so looked up through GLFW once.
struct FboApi {
  PFNGLGENFRAMEBUFFERSPROC gen = nullptr;
  PFNGLDELETEFRAMEBUFFERSPROC del = nullptr;
  PFNGLBINDFRAMEBUFFERPROC bind = nullptr;
  PFNGLFRAMEBUFFERTEXTURE2DPROC texture = nullptr;
  PFNGLCHECKFRAMEBUFFERSTATUSPROC status = nullptr;
  PFNGLBLITFRAMEBUFFERPROC blit = nullptr;
  bool ok() const { return gen && del && bind && texture && status && blit; }
  // Copies rows [y0, y1) (counted from the top) and columns [x0, x1) of `from` to `to` at (to_x0, to_y0), both
  // framebuffers h rows high.
  void copy(GLuint from, GLuint to, const PixelRect& r, int to_x0, int to_y0, int h) const {
    bind(GL_READ_FRAMEBUFFER, from);
    bind(GL_DRAW_FRAMEBUFFER, to);
    const int to_y1 = to_y0 + (r.y1 - r.y0);
    blit(r.x0, h - r.y1, r.x1, h - r.y0, to_x0, h - to_y1, to_x0 + (r.x1 - r.x0), h - to_y0, GL_COLOR_BUFFER_BIT,
         GL_NEAREST);
    bind(GL_FRAMEBUFFER, 0);
  }
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

// The image of the window being moved (app/render/window_move.h), taken after a frame drawn as usual.
struct MovedWindowImage {
  const void* window = nullptr;  // whose image it holds; nullptr: none
  Offscreen image;               // the framebuffer's size; the window's inner pixels where they were on screen
  PixelRect taken;               // those pixels
  ListsSnapshot lists;           // what the window drew then
};

void copy_image(GLuint from, GLuint to, int w, int h) { fbo_api().copy(from, to, {0, 0, w, h}, 0, 0, h); }

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

#if TW_RENDER_CHECK
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

#endif

PixelRect grown(const PixelRect& r, int by) { return {r.x0 - by, r.y0 - by, r.x1 + by, r.y1 + by}; }

// The part of a moved window an image of it stands for: its inside (less the edge that blends with what is behind)
// on the screen, less a band along the screen's edge, where ImGui clips the window's content to the screen (less a
// border), so that what is drawn there changes as the window slides across it.
PixelRect copyable_inside(const MovingWindow& moving, int w, int h) {
  return intersect(grown(moving.rect, -moving.margin), grown({0, 0, w, h}, -kScreenEdge));
}

}  // namespace

struct DamageRenderer::State {
  explicit State(DamageMode m) : mode(m) {}
  DamageMode mode;
  bool started = false;
  bool in_back_buffer = false;  // draws into the back buffer (kept across swaps), else into `image`
  Offscreen image;              // the persistent frame when the back buffer is not kept
  TileHashes last;              // the tiles of the last frame drawn
  TileHasher hasher;            // hashes them, each draw list again only when it changed
  float clear[3] = {-1, -1, -1};
  bool full_requested = true;
  DamageStats stats;
  long long frame = 0;
  MovedWindowImage moved;
  PixelRect copied_footprint;    // the footprint of the moved window whose image the last frame copied, or empty
  PixelRect copied_inner;        // and where the image went
  bool copies_prepared = false;  // prepare_window_copies ran
  long long moved_frames = 0;    // frames that copied a moved window's image
#if TW_RENDER_CHECK
  Offscreen check;                      // TW_DAMAGE=check: the last frame, kept while this one is drawn in full
  long long mismatches = 0;             // frames that differed from the full redraw
  long long compared = 0, partial = 0;  // frames compared; of them, drawn only in part
  long long merged = 0;                 // of those, drawn in rectangles merged from more (limit_rects)
  long long moved_differing = 0;        // the most pixels a frame that copied a moved window differed by
  std::vector<unsigned char> full_reference(ImDrawData* draw_data, GLuint target, int w, int h, const float c[3]);
  void compare(const std::vector<unsigned char>& reference, GLuint target, int w, int h, bool moved, bool merged);
#endif

  void render(ImDrawData* draw_data, int w, int h, const float clear[3]);
  bool draw_moved_window(ImDrawData* draw_data, const MovingWindow& moving, GLuint target, int w, int h,
                         const float clear[3]);
  void take_moved_window_image(const MovingWindow& moving, ListsSnapshot lists, GLuint target, int w, int h);
  void prepare_window_copies();
  void release();
};

#if TW_RENDER_CHECK
// TW_DAMAGE=check: draws this frame in full over a copy of the last one, then puts the last one back, so the
// tracked drawing that follows can be compared with it. Returns the full frame's pixels (empty if impossible).
std::vector<unsigned char> DamageRenderer::State::full_reference(ImDrawData* draw_data, GLuint target, int w, int h,
                                                                 const float c[3]) {
  bool unused = false;
  if (!check.ensure(w, h, &unused)) return {};
  copy_image(target, check.fbo, w, h);
  const SavedDrawData saved(draw_data);
  draw_rects(draw_data, target, {{0, 0, w, h}}, w, h, c);
  saved.restore(draw_data);
  std::vector<unsigned char> pixels = read_rgba(target, w, h);
  copy_image(check.fbo, target, w, h);
  return pixels;
}

// The tracked frame against the full one drawn first (TW_DAMAGE=check).
void DamageRenderer::State::compare(const std::vector<unsigned char>& reference, GLuint target, int w, int h,
                                    bool moved, bool merged_rects) {
  ++compared;
  partial += !stats.full && !moved && stats.damaged_pixels > 0;
  merged += merged_rects;
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
  if (moved) {
    // A copied image may differ at a few edge pixels (app/render/window_move.h): counted, and redrawn when the move
    // ends.
    moved_differing = std::max(moved_differing, differ);
  } else if (differ > 0) {
    ++mismatches;
    std::fprintf(stderr,
                 "damage check: frame %lld: %lld pixels differ from the full redraw (%d rectangles, by up to %d "
                 "levels)\n",
                 frame, differ, stats.rects, largest);
  }
}
#endif

// A frame that copies the moved window's image to its new place and draws the rest as usual (app/render/window_move.h).
// What the image does not hold (a part that was off the screen when it was taken) is drawn as usual, and the image
// is then taken again from the screen. False, having drawn nothing, when the image cannot stand for the window:
// another window's image or none, none of it on screen, the window's content changed there, or something drawn
// after the window reaches it.
bool DamageRenderer::State::draw_moved_window(ImDrawData* draw_data, const MovingWindow& moving, GLuint target, int w,
                                              int h, const float clear[3]) {
  State& r = *this;
  MovedWindowImage& m = r.moved;
  if (m.window != moving.id || m.image.width != w || m.image.height != h) return false;
  const PixelRect footprint = grown(moving.rect, kBorderReach);
  const PixelRect shown = copyable_inside(moving, w, h);
  const int dx = moving.rect.x0 - int(m.lists.origin.x), dy = moving.rect.y0 - int(m.lists.origin.y);
  const PixelRect copied = intersect(shown, {m.taken.x0 + dx, m.taken.y0 + dy, m.taken.x1 + dx, m.taken.y1 + dy});
  if (copied.empty()) return false;
  // Where the last frame drew it as usual, the window is already on screen: a frame drawn as usual draws no more.
  if (r.copied_footprint.empty() && dx == 0 && dy == 0) return false;
  ListsSnapshot now = snapshot_lists(*draw_data, moving.lists, ImVec2(float(moving.rect.x0), float(moving.rect.y0)), w,
                                     h, texture_version);
  if (!moved_unchanged(m.lists, now, copied, kMoveTolerance)) return false;
  if (intersect(now.reach, footprint) != now.reach) return false;
  if (!intersect(lists_reach(*draw_data, {moving.lists.end, draw_data->CmdListsCount}, w, h), footprint).empty())
    return false;
  TileHashes rest = r.hasher.hash(*draw_data, w, h, texture_version, moving.lists);
  // Not moved since the last frame copied it (the pointer held still, or the frames drawn after an input): the
  // copy is on screen already, only changes elsewhere are drawn.
  const bool in_place = r.copied_footprint == footprint && r.copied_inner == copied;
  const std::vector<PixelRect> rects =
      moved_frame_rects(r.last, rest, in_place ? PixelRect{} : footprint, in_place ? PixelRect{} : r.copied_footprint,
                        copied, kMaxMovedRects);
  if (!rects.empty()) draw_rects(draw_data, target, rects, w, h, clear);
  glDisable(GL_SCISSOR_TEST);
  if (!in_place)
    fbo_api().copy(m.image.fbo, target, {copied.x0 - dx, copied.y0 - dy, copied.x1 - dx, copied.y1 - dy}, copied.x0,
                   copied.y0, h);
  if (copied != shown) {  // part of it drawn as usual: the screen now holds all of it
    fbo_api().copy(target, m.image.fbo, shown, shown.x0, shown.y0, h);
    m.taken = shown;
    m.lists = std::move(now);
  }
  r.last = std::move(rest);
  r.copied_footprint = footprint;
  r.copied_inner = copied;
  r.stats.full = false;
  r.stats.rects = int(rects.size()) + (in_place ? 0 : 1);
  r.stats.damaged_pixels = in_place ? 0.0 : double(copied.area());
  for (const PixelRect& rect : rects) r.stats.damaged_pixels += double(rect.area());
  r.stats.window_copied = true;
  ++r.moved_frames;
  return true;
}

// After a frame drawn as usual while a window is moved: its inner pixels and what it drew, for the next frames.
void DamageRenderer::State::take_moved_window_image(const MovingWindow& moving, ListsSnapshot lists, GLuint target,
                                                    int w, int h) {
  MovedWindowImage& m = moved;
  const PixelRect taken = copyable_inside(moving, w, h);
  // Taken already, and the window drew the same since, in the same place: the image still holds it.
  if (m.window == moving.id && m.taken == taken && m.image.width == w && m.image.height == h &&
      m.lists.origin.x == lists.origin.x && m.lists.origin.y == lists.origin.y &&
      moved_unchanged(m.lists, lists, taken, kMoveTolerance))
    return;
  bool unused = false;
  m.window = nullptr;
  if (!m.image.ensure(w, h, &unused)) return;
  m.taken = taken;
  if (m.taken.empty()) return;
  fbo_api().copy(target, m.image.fbo, m.taken, m.taken.x0, m.taken.y0, h);
  m.lists = std::move(lists);
  m.window = moving.id;
}

void DamageRenderer::State::prepare_window_copies() {
  State& r = *this;
  const int w = r.last.width, h = r.last.height;
  if (r.copies_prepared || w <= 0 || h <= 0 || !fbo_api().ok() || mode.off || mode.nomove) return;
  r.copies_prepared = true;
  bool unused = false;
  if (!r.moved.image.ensure(w, h, &unused)) return;
  // A pixel copied out and back, unchanged: both copy directions compiled.
  const GLuint target = r.in_back_buffer ? 0 : r.image.fbo;
  fbo_api().copy(target, r.moved.image.fbo, {0, 0, 1, 1}, 0, 0, h);
  fbo_api().copy(r.moved.image.fbo, target, {0, 0, 1, 1}, 0, 0, h);
  glFinish();
}

void DamageRenderer::State::render(ImDrawData* draw_data, int w, int h, const float clear[3]) {
  State& r = *this;
  ++r.frame;
  r.stats = {0, 0, double(w) * h, true};
  if (w <= 0 || h <= 0) return;
  if (!r.started) {
    r.started = true;
    r.in_back_buffer = back_buffer_kept() && !mode.offscreen;
  }
  // Positions are framebuffer pixels only at DisplayPos (0, 0) and scale 1 (not a Retina display).
  const bool pixel_space = draw_data->DisplayPos.x == 0 && draw_data->DisplayPos.y == 0 &&
                           draw_data->FramebufferScale.x == 1 && draw_data->FramebufferScale.y == 1;
  bool recreated = false;
  const bool tracked =
      !mode.off && pixel_space && fbo_api().ok() && (r.in_back_buffer || r.image.ensure(w, h, &recreated));
  if (!tracked) {  // every frame in full, straight into the back buffer
    fbo_api().bind(GL_FRAMEBUFFER, 0);
    r.stats = {1, double(w) * h, double(w) * h, true};
    r.last = {};
    r.full_requested = true;
    draw_full(draw_data, w, h, clear);
    return;
  }
  const bool full = recreated || r.full_requested || mode.full || std::memcmp(clear, r.clear, sizeof(r.clear)) != 0;
  std::memcpy(r.clear, clear, sizeof(r.clear));
  r.full_requested = false;
  const GLuint target = r.in_back_buffer ? 0 : r.image.fbo;
#if TW_RENDER_CHECK
  // TW_DAMAGE=check: this frame drawn in full first, to compare with.
  const std::vector<unsigned char> reference =
      mode.check ? full_reference(draw_data, target, w, h, clear) : std::vector<unsigned char>{};
#endif

  // A window being dragged (for the statistics even when it is drawn as usual).
  const std::optional<MovingWindow> found = find_moving_window(*draw_data);
  r.stats.window_moving = found.has_value();
  // A frame drawn in full (a rebuilt font atlas, a new size) draws the window exactly, so it may take its image.
  const std::optional<MovingWindow> moving = mode.full || mode.nomove ? std::nullopt : found;
  std::optional<ListsSnapshot> moving_lists;  // taken before draw_rects rewrites the commands
  const bool moved = moving && !full && draw_moved_window(draw_data, *moving, target, w, h, clear);
  [[maybe_unused]] bool merged = false;  // TW_DAMAGE=check counts it
  if (!moved) {
    // The tiles under the last copied image count as changed: the window is drawn afresh there.
    if (!r.copied_footprint.empty()) mark_tiles(r.last, r.copied_footprint, kCopiedTiles);
    r.copied_footprint = r.copied_inner = {};
    if (moving)
      moving_lists = snapshot_lists(*draw_data, moving->lists, ImVec2(float(moving->rect.x0), float(moving->rect.y0)),
                                    w, h, texture_version);
    TileHashes now = r.hasher.hash(*draw_data, w, h, texture_version);
    // A new size gives a new grid: damaged_rects then returns the whole frame.
    const std::vector<PixelRect> rects =
        full ? std::vector<PixelRect>{{0, 0, w, h}} : damaged_rects(r.last, now, kMaxDamageRects);
#if TW_RENDER_CHECK
    // TW_DAMAGE=check counts the frames whose rectangles were merged (the check then covers limit_rects too).
    merged = mode.check && !full && damaged_rects(r.last, now, 1 << 30).size() > rects.size();
#endif
    r.last = std::move(now);
    r.stats.full = full || (rects.size() == 1 && rects[0] == PixelRect{0, 0, w, h});
    r.stats.rects = int(rects.size());
    for (const PixelRect& rect : rects) r.stats.damaged_pixels += double(rect.area());
    if (!rects.empty()) draw_rects(draw_data, target, rects, w, h, clear);
    if (moving)
      take_moved_window_image(*moving, std::move(*moving_lists), target, w, h);
    else
      r.moved.window = nullptr;
  }
#if TW_RENDER_CHECK
  if (!reference.empty()) compare(reference, target, w, h, moved, merged);
#endif
  // Present: the image to the window's back buffer, which screenshots and the swap then read.
  if (!r.in_back_buffer) copy_image(r.image.fbo, 0, w, h);
  fbo_api().bind(GL_FRAMEBUFFER, 0);
}

void DamageRenderer::State::release() {
#if TW_RENDER_CHECK
  if (mode.check) {
    std::fprintf(stderr,
                 "damage check: %lld frames compared with a full redraw (%lld drawn in part, %lld of them in merged "
                 "rectangles), %lld differed\n",
                 compared, partial, merged, mismatches);
    std::fprintf(stderr,
                 "damage check: %lld frames copied a moved window's image, differing from a full redraw in at most "
                 "%lld pixels\n",
                 moved_frames, moved_differing);
  }
  check.release();
#endif
  image.release();
  moved.image.release();
  moved = {};
  last = {};
  full_requested = true;
}

#else  // TW_FAST_RENDER off: every frame in full, straight into the back buffer

struct DamageRenderer::State {
  explicit State(DamageMode m) : mode(m) {}
  DamageMode mode;
  DamageStats stats;
  void render(ImDrawData* draw_data, int w, int h, const float clear[3]) {
    stats = {1, double(w) * h, double(w) * h, true};
    if (w > 0 && h > 0) draw_full(draw_data, w, h, clear);
  }
  bool full_requested = true;
  void prepare_window_copies() {}
  void release() {}
};

#endif

DamageRenderer::DamageRenderer(DamageMode mode) : s_(std::make_unique<State>(mode)) {}
DamageRenderer::~DamageRenderer() { s_->release(); }
void DamageRenderer::render(ImDrawData* draw_data, int w, int h, const float clear[3]) {
  s_->render(draw_data, w, h, clear);
}
void DamageRenderer::request_full_redraw() { s_->full_requested = true; }
const DamageStats& DamageRenderer::stats() const { return s_->stats; }
void DamageRenderer::prepare_window_copies() { s_->prepare_window_copies(); }

}  // namespace tw
