#pragma once
// Window backend: GLFW + OpenGL 3.3 core + Dear ImGui's GLFW/OpenGL3 backends.
// Everything that touches GLFW or GL lives here so the rest of the app stays backend-free.
//
// Start-up runs in three steps, so that work needing no window (the font atlas, the panels' first results) can run
// on another thread while the window and its GL context are created, the slowest step of start-up:
//   window.open_display(&error);                      // connect to the display server
//   ... start building fonts at window.display_content_scale() ...
//   window.create(options, &error);                   // window + GL context
//   window.init_imgui(std::move(fonts));              // ImGui context using the prebuilt font atlas

#include <memory>
#include <string>

#include "app/render/render_damage.h"

struct GLFWwindow;
struct ImFontAtlas;

namespace tw {

struct WindowOptions {
  int width = 1600;  // shrunk to the monitor's work area when larger (never opens past the screen's edge)
  int height = 1000;
  std::string title = "Transformer Workbench";
  bool visible = true;  // false: stays hidden until show() (the first frame is drawn before the window appears)
};

class Window {
 public:
  // Each returns false and fills `error` with one line on failure.
  bool open_display(std::string* error);
  bool create(const WindowOptions& options, std::string* error);
  // Creates the ImGui context sharing `fonts` (built beforehand, possibly on another thread; the window keeps it
  // until shutdown) and starts the GLFW and OpenGL3 backends. Call once, after create().
  void init_imgui(std::unique_ptr<ImFontAtlas> fonts);
  void shutdown();
  void show();
  // Rebuilds the font atlas at `pixel_size` (presentation zoom: real glyphs at the new size, not a blurred scale)
  // and uploads it as the OpenGL font texture. Call between frames, never inside begin_frame/end_frame. Returns
  // the font warning as add_fonts (app/fonts.h); on failure ImGui's built-in font is used.
  std::string rebuild_fonts(const std::string& font_dir, float pixel_size);

  // Before create(): the content scale a new window is expected to get (the primary monitor's; on X11 every window
  // has the display-wide scale). After create(), content_scale() is the window's own.
  float display_content_scale() const;
  float content_scale() const { return content_scale_; }

  bool should_close() const;
  void request_close();
  bool minimized() const;
  // What handle_events() saw since its previous call.
  struct Events {
    bool input = false;  // the user did something, or the window changed (resized, exposed, focus, restored)
    bool woken = false;  // a worker called wake(): it has a result to show
  };
  // Handles pending events. timeout < 0: blocks until an event arrives (the idle loop: no time-out, so an idle
  // window costs nothing); 0: only polls; > 0: waits at most that many seconds. Sleeps while minimized.
  Events handle_events(double timeout);
  // Wakes a handle_events that is waiting and tells it a result is ready; safe from any thread.
  static void wake();
  // Wakes a handle_events that is waiting without claiming anything changed (a deadline); safe from any thread.
  static void interrupt();
  void begin_frame();
  void end_frame();  // renders ImGui into the back buffer (does not swap yet)
  // Reads the back buffer (the frame just rendered) into a PNG. Call between end_frame() and swap().
  bool save_screenshot(const std::string& path, std::string* error) const;
  void swap();

  // glGetString(GL_RENDERER) of the window's context ("llvmpipe (LLVM ...)" on Mesa's software renderer).
  std::string renderer() const;
  // What the last end_frame drew (app/render/render_damage.h), for --perf-report.
  const DamageStats& damage_stats() const;
  // See DamageRenderer::prepare_window_copies: once the loop is about to wait.
  void prepare_window_copies();

  GLFWwindow* handle() const { return window_; }

 private:
  GLFWwindow* window_ = nullptr;
  bool display_open_ = false;
  bool imgui_ = false;
  std::unique_ptr<ImFontAtlas> fonts_;        // shared with the ImGui context, which does not own it
  std::unique_ptr<DamageRenderer> renderer_;  // from init_imgui to shutdown (it holds GL objects)
  float content_scale_ = 1.0f;
  unsigned long long wakes_seen_ = 0;
};

// True when a display server looks reachable (X11 or Wayland); checked before glfwInit to give a clean message.
bool display_available();

}  // namespace tw
