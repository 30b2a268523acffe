#pragma once
// File menu: Open scene…, Save scene…, Open model folder…, Export figures… (app/file_menu.cpp). ui.cpp owns the menu
// bar and calls these; the popups' state lives in AppState::file_dialogs.

#include "app/app_state.h"

namespace tw {

// The Open / Save / Export items, drawn inside ui.cpp's BeginMenu("File").
void draw_file_menu_items(AppState& state);
// The popups; call once per frame at window level (OpenPopup must not run inside the menu's ID stack).
void draw_file_dialogs(AppState& state);
// Opens the forward stepper on a Hugging Face folder (File > Open model folder, --model DIR): the panel loads it
// on its worker with progress and keeps its previous model if the folder cannot be opened.
// Opens the forward stepper in front and starts loading a Hugging Face model folder in it; the status line says so
// until report_model_opening() sees the load end.
void open_model_folder(AppState& state, const std::string& dir, bool from_command_line = false);
// Once a frame: when the folder being opened has loaded, failed or been cancelled, the status line says which (and
// which model the stepper shows instead); a --model failure is printed to the terminal too.
void report_model_opening(AppState& state);
// Loads a scene file into the state (File > Open, the start page's cards). On failure the state is unchanged and
// the status line says why; returns whether it loaded.
bool load_scene_into_state(AppState& state, const std::string& path);
// Ctrl+O, Ctrl+S, Ctrl+E.
void handle_file_shortcuts(AppState& state);

}  // namespace tw
