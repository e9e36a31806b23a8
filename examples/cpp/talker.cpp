// talker: publishes ten greetings on "chatter", each written in place in shared memory (a
// zero-copy loan), 20 ms apart. The listener starts it; alone, it talks to nobody.
//
//   build/talker       (see examples/cpp/README.md for the build)
#include <chrono>
#include <cstdio>
#include <thread>

#include "chatter.hpp"
#include "example_root.hpp"
#include "ringbus.hpp"

int main() {
    ExampleRoot root;
    try {
        ringbus::Node node("talker", root.path());
        ringbus::Publisher<examples::Chatter> publisher(node, "chatter", examples::chatter_options());
        for (std::uint32_t i = 0; i < 10; i++) {
            ringbus::Loan<examples::Chatter> loan = publisher.loan();
            loan->seq = i;
            loan->last = i == 9;
            std::snprintf(loan->text, sizeof loan->text, "hello world %u", i);
            loan.publish();  // no copy: subscribers read these bytes where they lie
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        std::printf("talker: published 10 messages\n");
    } catch (const ringbus::Error& e) {
        std::fprintf(stderr, "talker: %s\n", e.what());
        return 1;
    }
    return 0;
}
