// Checks that a screenshot of the app is not blank: more than a handful of colours overall, and the main menu
// bar (the top rows) holds pixels that differ from the window background below it.
// Usage: check_screenshot FILE.png  → exit 0 and a one-line summary, or exit 1 with the reason.
#include <stb_image.h>

#include <cstdio>
#include <set>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: check_screenshot FILE.png\n");
    return 2;
  }
  int w = 0, h = 0, n = 0;
  unsigned char* px = stbi_load(argv[1], &w, &h, &n, 3);
  if (!px) {
    std::fprintf(stderr, "check_screenshot: cannot read %s\n", argv[1]);
    return 1;
  }
  auto at = [&](int x, int y) {
    const unsigned char* p = px + (size_t(y) * w + x) * 3;
    return (p[0] << 16) | (p[1] << 8) | p[2];
  };
  std::set<int> colours;
  for (int y = 0; y < h; y += 2)
    for (int x = 0; x < w; x += 2) colours.insert(at(x, y));
  // The menu bar is the top ~20 px; its text differs from its own background.
  std::set<int> menu_colours;
  for (int y = 2; y < 18 && y < h; ++y)
    for (int x = 0; x < w / 4; ++x) menu_colours.insert(at(x, y));
  stbi_image_free(px);
  std::printf("check_screenshot: %dx%d, %zu colours, %zu in the menu bar\n", w, h, colours.size(), menu_colours.size());
  if (colours.size() < 16) {
    std::fprintf(stderr, "check_screenshot: image looks blank (%zu colours)\n", colours.size());
    return 1;
  }
  if (menu_colours.size() < 4) {
    std::fprintf(stderr, "check_screenshot: no menu bar text found in the top rows\n");
    return 1;
  }
  return 0;
}
