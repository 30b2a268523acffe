// Lesson 5's quantities (core/lessons/lesson_quantity.h). Empty until lesson 5's exercises need one.
#include "core/lessons/lesson_quantity.h"

namespace tw {

std::vector<LessonQuantity> lesson_5_quantities() { return {}; }

}  // namespace tw
