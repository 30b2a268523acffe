#pragma once
// The characters the process may show: the interface catalogue, the user's text boxes, the tokens a panel lists and
// the text of every figure drawn on screen note their strings here, and the screen's font atlas holds glyphs for
// exactly these (plus a fixed base of Latin, Greek and math symbols) instead of all ~30k Han characters at every
// zoom. The app rebuilds the atlas between frames when text_in_use_generation() changes.

#include <cstdint>
#include <string_view>
#include <vector>

namespace tw {

// Records every character of `utf8` as in use. Thread-safe and lock-free; ASCII costs one pass over the bytes.
void note_text_in_use(std::string_view utf8);
// Increases each time a character not noted before is noted.
uint64_t text_in_use_generation();
// Every non-ASCII character noted so far, in increasing order.
std::vector<uint32_t> characters_in_use();

}  // namespace tw
