#include "app/window.h"

#define GLFW_INCLUDE_NONE
#include <GL/gl.h>
#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>
#include <stb_image_write.h>

#include "app/fonts.h"
#include "app/input_queue.h"
#include "app/render/render_damage.h"
#include "app/render/solid_fills.h"
#include "core/base/i18n.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <utility>
#include <vector>

namespace tw {

namespace {
std::string g_last_glfw_error;
std::atomic<unsigned long long> g_wakes{0};  // Window::wake() calls, from any thread
bool g_input_seen = false;                   // an input or window event since the last handle_events (UI thread)

// Installed before ImGui's GLFW backend, which chains to them: any of these means the next frame may differ. (Keys,
// characters, buttons and the wheel are then taken over by the input queue below, whose callbacks note it too.)
void note_input() { g_input_seen = true; }
void install_input_callbacks(GLFWwindow* w) {
  glfwSetCursorPosCallback(w, [](GLFWwindow*, double, double) { note_input(); });
  glfwSetMouseButtonCallback(w, [](GLFWwindow*, int, int, int) { note_input(); });
  glfwSetScrollCallback(w, [](GLFWwindow*, double, double) { note_input(); });
  glfwSetKeyCallback(w, [](GLFWwindow*, int, int, int, int) { note_input(); });
  glfwSetCharCallback(w, [](GLFWwindow*, unsigned int) { note_input(); });
  glfwSetCursorEnterCallback(w, [](GLFWwindow*, int) { note_input(); });
  glfwSetWindowFocusCallback(w, [](GLFWwindow*, int) { note_input(); });
  glfwSetWindowSizeCallback(w, [](GLFWwindow*, int, int) { note_input(); });
  glfwSetFramebufferSizeCallback(w, [](GLFWwindow*, int, int) { note_input(); });
  glfwSetWindowRefreshCallback(w, [](GLFWwindow*) { note_input(); });  // exposed: its pixels must be drawn again
  glfwSetWindowIconifyCallback(w, [](GLFWwindow*, int) { note_input(); });
  glfwSetWindowContentScaleCallback(w, [](GLFWwindow*, float, float) { note_input(); });
  glfwSetDropCallback(w, [](GLFWwindow*, int, const char**) { note_input(); });
}
void on_glfw_error(int code, const char* description) {
  g_last_glfw_error = "GLFW error " + std::to_string(code) + ": " + (description ? description : "");
}

// [SECTION] input: every GLFW event goes through the queue (app/input_queue.h), never straight into ImGui's state
InputQueue g_input;     // one window per process; GLFW callbacks are plain functions
bool g_keys[512] = {};  // key state as handed to ImGui (io.KeysDown is rewritten from it each frame)
bool g_buttons[5] = {};

InputEvent at_cursor(GLFWwindow* window, InputEvent e) {
  double x = 0, y = 0;
  glfwGetCursorPos(window, &x, &y);
  e.x = float(x);
  e.y = float(y);
  return e;
}
void on_key(GLFWwindow*, int key, int, int action, int) {
  note_input();
  if (action == GLFW_REPEAT || key < 0 || key >= int(std::size(g_keys))) return;  // ImGui repeats held keys itself
  const bool modifier = (key >= GLFW_KEY_LEFT_SHIFT && key <= GLFW_KEY_LEFT_SUPER) ||
                        (key >= GLFW_KEY_RIGHT_SHIFT && key <= GLFW_KEY_RIGHT_SUPER);
  g_input.push({.kind = InputEvent::Kind::Key, .code = key, .down = action == GLFW_PRESS, .modifier = modifier});
}
void on_char(GLFWwindow*, unsigned int c) {
  note_input();
  g_input.push({.kind = InputEvent::Kind::Char, .code = int(c)});
}
void on_mouse_button(GLFWwindow* window, int button, int action, int) {
  note_input();
  if (button < 0 || button >= int(std::size(g_buttons))) return;
  g_input.push(
      at_cursor(window, {.kind = InputEvent::Kind::MouseButton, .code = button, .down = action == GLFW_PRESS}));
}
void on_scroll(GLFWwindow* window, double dx, double dy) {
  note_input();
  g_input.push(at_cursor(window, {.kind = InputEvent::Kind::Wheel, .wheel_x = float(dx), .wheel_y = float(dy)}));
}

// Hands one frame's events to ImGui. Call after the backend's NewFrame (which reads the live mouse buttons and
// cursor) and before ImGui::NewFrame.
void apply_queued_input() {
  ImGuiIO& io = ImGui::GetIO();
  for (const InputEvent& e : g_input.take_frame()) {
    switch (e.kind) {
      case InputEvent::Kind::Key: g_keys[e.code] = e.down; break;
      case InputEvent::Kind::MouseButton: g_buttons[e.code] = e.down; break;
      case InputEvent::Kind::Wheel:
        io.MouseWheelH += e.wheel_x;
        io.MouseWheel += e.wheel_y;
        break;
      case InputEvent::Kind::Char: io.AddInputCharacter(unsigned(e.code)); break;
    }
    if (e.kind == InputEvent::Kind::MouseButton || e.kind == InputEvent::Kind::Wheel)
      io.MousePos = ImVec2(e.x, e.y);  // where the click or wheel step happened, not where the cursor is now
  }
  for (size_t k = 0; k < std::size(g_keys) && k < std::size(io.KeysDown); ++k) io.KeysDown[k] = g_keys[k];
  for (size_t b = 0; b < std::size(g_buttons); ++b) io.MouseDown[b] = g_buttons[b];
  io.KeyCtrl = g_keys[GLFW_KEY_LEFT_CONTROL] || g_keys[GLFW_KEY_RIGHT_CONTROL];
  io.KeyShift = g_keys[GLFW_KEY_LEFT_SHIFT] || g_keys[GLFW_KEY_RIGHT_SHIFT];
  io.KeyAlt = g_keys[GLFW_KEY_LEFT_ALT] || g_keys[GLFW_KEY_RIGHT_ALT];
  io.KeySuper = g_keys[GLFW_KEY_LEFT_SUPER] || g_keys[GLFW_KEY_RIGHT_SUPER];
}
}  // namespace

bool display_available() {
  const char* x11 = std::getenv("DISPLAY");
  const char* wayland = std::getenv("WAYLAND_DISPLAY");
  return (x11 && *x11) || (wayland && *wayland);
}

bool Window::open_display(std::string* error) {
  glfwSetErrorCallback(on_glfw_error);
  if (!glfwInit()) {
    *error = subst(tr("cannot initialise GLFW ({0})"), {g_last_glfw_error});
    return false;
  }
  display_open_ = true;
  return true;
}

float Window::display_content_scale() const {
  GLFWmonitor* monitor = display_open_ ? glfwGetPrimaryMonitor() : nullptr;
  if (!monitor) return 1.0f;
  float sx = 1.0f, sy = 1.0f;
  glfwGetMonitorContentScale(monitor, &sx, &sy);
  return sx > 0.0f ? sx : 1.0f;
}

bool Window::create(const WindowOptions& options, std::string* error) {
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  glfwWindowHint(GLFW_SCALE_TO_MONITOR, GLFW_TRUE);
  glfwWindowHint(GLFW_VISIBLE, GLFW_FALSE);  // shown once sized and placed, so it never flashes past the edge
  // The work area is the monitor minus panels and docks; a window larger than it opens clipped by the screen.
  int wx = 0, wy = 0, ww = 0, wh = 0;
  if (GLFWmonitor* monitor = glfwGetPrimaryMonitor()) glfwGetMonitorWorkarea(monitor, &wx, &wy, &ww, &wh);
  const int width = ww > 0 ? std::min(options.width, ww) : options.width;
  const int height = wh > 0 ? std::min(options.height, wh) : options.height;
  window_ = glfwCreateWindow(width, height, options.title.c_str(), nullptr, nullptr);
  if (!window_) {
    *error = subst(tr("cannot create an OpenGL 3.3 core window ({0})"), {g_last_glfw_error});
    return false;
  }
  if (ww > 0 && wh > 0) {
    // GLFW_SCALE_TO_MONITOR may have grown the window on a high-DPI monitor: fit it to the work area again.
    int aw = 0, ah = 0;
    glfwGetWindowSize(window_, &aw, &ah);
    if (aw > ww || ah > wh) glfwSetWindowSize(window_, std::min(aw, ww), std::min(ah, wh));
    glfwSetWindowPos(window_, wx + std::max(0, (ww - std::min(aw, ww)) / 2),
                     wy + std::max(0, (wh - std::min(ah, wh)) / 2));
  }
  if (options.visible) glfwShowWindow(window_);
  install_input_callbacks(window_);
  glfwMakeContextCurrent(window_);
  glfwSwapInterval(1);
  float sx = 1.0f, sy = 1.0f;
  glfwGetWindowContentScale(window_, &sx, &sy);
  content_scale_ = sx > 0.0f ? sx : 1.0f;
  return true;
}

void Window::init_imgui(std::unique_ptr<ImFontAtlas> fonts) {
  IMGUI_CHECKVERSION();
  fonts_ = std::move(fonts);
  ImGui::CreateContext(fonts_.get());
  ImGuiIO& io = ImGui::GetIO();
  io.ConfigFlags |= ImGuiConfigFlags_NavEnableKeyboard;
  io.IniFilename = nullptr;  // window layout comes from scenes, not imgui.ini
  ImGui_ImplGlfw_InitForOpenGL(window_, true);
  // Keys, characters, buttons and the wheel are queued (app/input_queue.h) instead of set by the backend's callbacks.
  glfwSetKeyCallback(window_, on_key);
  glfwSetCharCallback(window_, on_char);
  glfwSetMouseButtonCallback(window_, on_mouse_button);
  glfwSetScrollCallback(window_, on_scroll);
  ImGui_ImplOpenGL3_Init("#version 330 core");
  renderer_ = std::make_unique<DamageRenderer>(damage_mode_from_environment());
  imgui_ = true;
}

std::string Window::rebuild_fonts(const std::string& font_dir, float pixel_size) {
  ImFontAtlas& atlas = *ImGui::GetIO().Fonts;  // fonts_ when init_imgui got one, else the context's own
  atlas.Clear();
  std::string warning = add_fonts(atlas, font_dir, pixel_size);
  unsigned char* pixels = nullptr;
  int width = 0, height = 0;
  atlas.GetTexDataAsRGBA32(&pixels, &width, &height);
  ImGui_ImplOpenGL3_DestroyFontsTexture();
  ImGui_ImplOpenGL3_CreateFontsTexture();
  if (renderer_) renderer_->request_full_redraw();  // the font texture may keep its name with new glyphs in it
  return warning;
}

void Window::shutdown() {
  if (imgui_) {
    renderer_.reset();  // its GL objects, while the context is current
    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
    imgui_ = false;
  }
  fonts_.reset();  // after the context that shared it
  if (window_) glfwDestroyWindow(window_);
  window_ = nullptr;
  if (display_open_) glfwTerminate();
  display_open_ = false;
}

bool Window::should_close() const { return glfwWindowShouldClose(window_); }
void Window::request_close() { glfwSetWindowShouldClose(window_, GLFW_TRUE); }
bool Window::minimized() const { return glfwGetWindowAttrib(window_, GLFW_ICONIFIED) != 0; }

Window::Events Window::handle_events(double timeout) {
  if (!g_input.empty())  // events queued for the next frames: no waiting until each has been handed over
    glfwPollEvents();
  else if (timeout < 0)
    glfwWaitEvents();
  else if (timeout > 0)
    glfwWaitEventsTimeout(timeout);
  else
    glfwPollEvents();
  while (minimized() && !should_close()) glfwWaitEvents();  // restoring it is an event (iconify callback)
  Events events;
  events.input = std::exchange(g_input_seen, false) || !g_input.empty();
  const unsigned long long wakes = g_wakes.load();
  events.woken = wakes != wakes_seen_;
  wakes_seen_ = wakes;
  return events;
}

void Window::wake() {
  g_wakes.fetch_add(1);
  glfwPostEmptyEvent();
}

void Window::interrupt() { glfwPostEmptyEvent(); }

void Window::show() {
  if (window_ && !glfwGetWindowAttrib(window_, GLFW_VISIBLE)) glfwShowWindow(window_);
}

void Window::begin_frame() {
  ImGui_ImplOpenGL3_NewFrame();
  ImGui_ImplGlfw_NewFrame();
  apply_queued_input();
  ImGui::NewFrame();
}

void Window::end_frame() {
  ImGui::Render();
  // Large flat fills: nearest filtering, no blending (app/render/solid_fills.h).
  if (fast_render_on()) split_solid_fills(ImGui::GetDrawData());
  int w = 0, h = 0;
  glfwGetFramebufferSize(window_, &w, &h);
  const ImVec4 bg = ImGui::GetStyle().Colors[ImGuiCol_WindowBg];
  const float clear[3] = {bg.x * 0.8f, bg.y * 0.8f, bg.z * 0.8f};
  // Only what changed since the last frame is drawn again, into an offscreen image copied to the back buffer.
  renderer_->render(ImGui::GetDrawData(), w, h, clear);
}

bool Window::save_screenshot(const std::string& path, std::string* error) const {
  int w = 0, h = 0;
  glfwGetFramebufferSize(window_, &w, &h);
  if (w <= 0 || h <= 0) {
    *error = tr("the window has no pixels to capture");
    return false;
  }
  std::vector<unsigned char> pixels(size_t(w) * h * 4);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadBuffer(GL_BACK);
  glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, pixels.data());
  // OpenGL's origin is bottom-left; PNG rows go top to bottom.
  std::vector<unsigned char> flipped(pixels.size());
  const size_t row = size_t(w) * 4;
  for (int y = 0; y < h; ++y)
    std::copy_n(pixels.data() + size_t(h - 1 - y) * row, row, flipped.data() + size_t(y) * row);
  for (size_t i = 3; i < flipped.size(); i += 4) flipped[i] = 255;
  if (!stbi_write_png(path.c_str(), w, h, 4, flipped.data(), int(row))) {
    *error = subst(tr("cannot write screenshot to {0}"), {path});
    return false;
  }
  return true;
}

const DamageStats& Window::damage_stats() const {
  static const DamageStats none;
  return renderer_ ? renderer_->stats() : none;
}
void Window::prepare_window_copies() {
  if (renderer_) renderer_->prepare_window_copies();
}

std::string Window::renderer() const {
  const auto* name = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
  return name ? name : "";
}

void Window::swap() { glfwSwapBuffers(window_); }

}  // namespace tw
