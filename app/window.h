#pragma once
// Window backend: GLFW + OpenGL 3.3 core + Dear ImGui's GLFW/OpenGL3 backends.
// Everything that touches GLFW or GL lives here so the rest of the app stays backend-free.

#include <string>

struct GLFWwindow;

namespace tw {

struct WindowOptions {
  int width = 1600;
  int height = 1000;
  std::string title = "Transformer Workbench";
  bool visible = true;
};

class Window {
 public:
  // Creates the window and the ImGui context. Returns false and fills `error` with one line on failure.
  bool init(const WindowOptions& options, std::string* error);
  void shutdown();

  bool should_close() const;
  void request_close();
  bool minimized() const;
  void poll_events_or_wait();  // sleeps while minimized instead of spinning
  void begin_frame();
  void end_frame();  // renders ImGui into the back buffer (does not swap yet)
  // Reads the back buffer (the frame just rendered) into a PNG. Call between end_frame() and swap().
  bool save_screenshot(const std::string& path, std::string* error) const;
  void swap();

  float content_scale() const { return content_scale_; }
  GLFWwindow* handle() const { return window_; }

 private:
  GLFWwindow* window_ = nullptr;
  float content_scale_ = 1.0f;
};

// True when a display server looks reachable (X11 or Wayland); checked before glfwInit to give a clean message.
bool display_available();

}  // namespace tw
