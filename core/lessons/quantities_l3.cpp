// Lesson 3's quantities (core/lessons/lesson_quantity.h). Empty until lesson 3's exercises need one.
#include "core/lessons/lesson_quantity.h"

namespace tw {

std::vector<LessonQuantity> lesson_3_quantities() { return {}; }

}  // namespace tw
