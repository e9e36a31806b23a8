// camera: 1080p RGB frames (6 MB each) between two processes without a copy. A child
// process (the camera) lends a chunk of shared memory the size of a whole Image, fills
// its pixels in place and publishes it; the parent reads each frame where it lies.
//
//   build/camera       (see examples/cpp/README.md for the build)
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "example_root.hpp"
#include "ringbus.hpp"

namespace examples {

struct Rgb {
    std::uint8_t r, g, b;
};

struct Image {
    static constexpr std::uint32_t width = 1920, height = 1080;
    std::uint64_t frame;
    std::uint32_t last;  // 1 in the camera's last frame
    std::uint32_t reserved;
    Rgb pixels[height][width];
};

}  // namespace examples

RINGBUS_PAYLOAD(examples::Image, "examples::Image");

namespace {

constexpr int FRAMES = 30;

// A topic sized for whole frames: a few in flight at most.
ringbus::TopicOptions image_topic() {
    return ringbus::TopicOptions().max_payload_bytes(sizeof(examples::Image)).depth(4).pool_bytes(8 * sizeof(examples::Image));
}

// The child: its own node and publisher (nothing opened before the fork is used here).
int camera(const std::string& root) {
    ringbus::Node node("camera", root);
    ringbus::Publisher<examples::Image> publisher(node, "camera/front", image_topic());
    for (int i = 0; i < FRAMES; i++) {
        ringbus::Loan<examples::Image> image = publisher.loan();  // 6 MB of shared memory, not a copy
        image->frame = static_cast<std::uint64_t>(i);
        image->last = i == FRAMES - 1;
        std::memset(image->pixels, i, sizeof image->pixels);  // "exposes" the frame in place
        image->pixels[examples::Image::height / 2][examples::Image::width / 2] = examples::Rgb{255, 0, 0};
        image.publish();
    }
    return 0;
}

int view(const ExampleRoot& root) {
    ringbus::Node node("viewer", root.path());
    // Reliable: the camera waits for this viewer instead of overwriting a frame it has not seen.
    ringbus::Subscriber<examples::Image> viewer(node, "camera/front", image_topic().reliable());
    std::fflush(stdout);  // the child must not print what the parent buffered
    pid_t child = fork();  // after subscribing: the viewer gets every frame
    if (child < 0) return 1;
    if (child == 0) {
        int failed = 1;
        try {
            failed = camera(root.path());
        } catch (const ringbus::Error& e) {
            std::fprintf(stderr, "camera: %s\n", e.what());
        }
        _exit(failed);
    }
    int failed = 0;
    std::int64_t worst_latency_us = 0;
    for (bool last = false; !last;) {
        auto sample = viewer.receive(std::chrono::seconds(10));
        if (!sample) {
            std::fprintf(stderr, "viewer: no frame for 10 s\n");
            failed = 1;
            break;
        }
        const examples::Image& image = **sample;  // in place: 6 MB, no copy
        auto now = std::chrono::steady_clock::now().time_since_epoch();
        worst_latency_us = std::max<std::int64_t>(
            worst_latency_us, std::chrono::duration_cast<std::chrono::microseconds>(now - sample->timestamp()).count());
        const examples::Rgb& centre = image.pixels[examples::Image::height / 2][examples::Image::width / 2];
        if (image.pixels[0][0].g != static_cast<std::uint8_t>(image.frame) || centre.r != 255) failed = 1;
        last = image.last;
    }
    int status = 0;
    if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status) != 0) failed = 1;
    std::printf("viewer: %llu frames of %ux%u (%zu bytes each) read in place, lost %llu, oldest on arrival %lld us\n",
                static_cast<unsigned long long>(viewer.taken()), examples::Image::width, examples::Image::height,
                sizeof(examples::Image), static_cast<unsigned long long>(viewer.lost()),
                static_cast<long long>(worst_latency_us));
    return failed;
}

}  // namespace

int main() {
    ExampleRoot root;
    try {
        return view(root);
    } catch (const ringbus::Error& e) {
        std::fprintf(stderr, "viewer: %s\n", e.what());
        return 1;
    }
}
