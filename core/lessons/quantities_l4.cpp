// Lesson 4's quantities (core/lessons/lesson_quantity.h). Empty until lesson 4's exercises need one.
#include "core/lessons/lesson_quantity.h"

namespace tw {

std::vector<LessonQuantity> lesson_4_quantities() { return {}; }

}  // namespace tw
