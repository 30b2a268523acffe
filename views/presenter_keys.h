#pragma once
// The one place that reads the presenter's keys: a clicker (most send PageDown/PageUp), the arrow keys, Home/End.
// The forward stepper, the tiling and merge steppers (and lessons) ask here instead of reading keys themselves, so a
// click steps exactly one thing once.

namespace tw {

enum class PresenterStep { None, Next, Previous, First, Last };

// What the keys ask for in this frame: PageDown or → next, PageUp or ← previous, Home first, End last; None while a
// text field has the keyboard. Does not take it.
PresenterStep peek_presenter_step();
// The same, taken: the first caller in a frame gets it, every later caller in that frame gets None (a lesson bar
// drawn before a stepper takes the click, and the stepper does not step too).
PresenterStep take_presenter_step();
// Moves `index` one step within [first, last] (First/Last jump there); returns whether it changed.
bool apply_presenter_step(PresenterStep step, int* index, int first, int last);
// Keeps ImGui's keyboard navigation off a key the app took in this frame (a clicker's step, taken above; Esc leaving a
// presentation mode): its move is dropped, no button is left keyboard-highlighted (Space would press it, its tooltip
// would show away from the mouse), and hovering follows the mouse.
void keep_navigation_off_the_key();

}  // namespace tw
