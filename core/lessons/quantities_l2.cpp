// Lesson 2's quantities (core/lessons/lesson_quantity.h). Empty until lesson 2's exercises need one.
#include "core/lessons/lesson_quantity.h"

namespace tw {

std::vector<LessonQuantity> lesson_2_quantities() { return {}; }

}  // namespace tw
