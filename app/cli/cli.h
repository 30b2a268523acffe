#pragma once
// Command line: the GUI's options (parsed in main.cpp); each subcommand parses and runs itself (app/cmd_*.cpp).

#include <string>
#include <vector>

namespace tw {

struct GuiOptions {
  int frames = 0;                   // run this many frames then exit 0 (0 = run until closed)
  std::string screenshot;           // write the last frame to this PNG
  std::vector<std::string> open;    // panel ids to open
  bool all_panels = false;          // open every panel
  std::string theme = "dark";       // dark | print
  std::string perf_report;          // write frame-time statistics to this JSON file
  double perf_idle_seconds = 10;    // with perf_report and frames: idle measured after the frames
  int width = 1600, height = 1000;  // initial window size
  float zoom = 0;                   // presentation zoom (0.75 … 3); 0: the last session's (or 1)
  std::string model;                // a Hugging Face model folder to open (config.json + safetensors + tokenizer)
  std::string scene;                // a scene file to open at start (a file manager passes it: the desktop entry's %f)
  std::string gui_report;           // after every frame, what is on screen as JSON (app/gui_report.h; GUI tests)
  std::string lesson;               // --lesson N[:STEP]: open a lesson (a shipped number or a file) at a step
};

}  // namespace tw
