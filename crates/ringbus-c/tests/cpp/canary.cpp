// Bugs the sanitizer builds must catch (ctest expects their reports): a use after free,
// and a leaked ringbus::Node.
#include <cstdio>
#include <cstring>

#include "ringbus.hpp"

namespace {

// Out of line, so that no copy of the pointer is left in main's frame for LeakSanitizer
// to mistake for a reference.
__attribute__((noinline)) void leak_a_node() {
    auto* node = new ringbus::Node();  // never deleted
    std::printf("%d\n", static_cast<bool>(*node));
}

}  // namespace

int main(int argc, char** argv) {
    if (argc == 2 && std::strcmp(argv[1], "use-after-free") == 0) {
        auto* pose = new double[3]{1, 2, 3};
        delete[] pose;
        std::printf("%f\n", pose[1]);  // heap-use-after-free
        return 0;
    }
    if (argc == 2 && std::strcmp(argv[1], "leak") == 0) {
        leak_a_node();
        return 0;
    }
    std::fprintf(stderr, "usage: %s use-after-free|leak\n", argv[0]);
    return 2;
}
