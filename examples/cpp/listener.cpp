// listener: subscribes to "chatter", starts the talker (the program beside it) as a second
// process, and prints what it sends until its last message, at most 10 s.
//
//   build/listener     (see examples/cpp/README.md for the build)
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>

#include "chatter.hpp"
#include "example_root.hpp"
#include "ringbus.hpp"

extern char** environ;

// The talker beside this program, started with our environment (and so our RINGBUS_ROOT).
static pid_t start_talker() {
    char self[4096];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    std::string path = len > 0 ? std::string(self, static_cast<std::size_t>(len)) : std::string("listener");
    path = path.substr(0, path.rfind('/') + 1) + "talker";
    char* argv[] = {const_cast<char*>(path.c_str()), nullptr};
    pid_t pid = -1;
    if (posix_spawn(&pid, path.c_str(), nullptr, nullptr, argv, environ) != 0) {
        std::perror(path.c_str());
        return -1;
    }
    return pid;
}

static int listen(const ExampleRoot& root) {
    ringbus::Node node("listener", root.path());
    // Subscribed before the talker starts: it receives every message.
    ringbus::Subscriber<examples::Chatter> subscriber(node, "chatter", examples::chatter_options());
    pid_t talker = start_talker();
    if (talker < 0) return 1;
    int failed = 0;
    for (;;) {
        std::optional<ringbus::Sample<examples::Chatter>> sample = subscriber.receive(std::chrono::seconds(10));
        if (!sample) {
            std::fprintf(stderr, "listener: nothing for 10 s\n");
            failed = 1;
            break;
        }
        std::printf("listener: %u %s\n", (*sample)->seq, (*sample)->text);  // read in place
        if ((*sample)->last) break;
    }
    int status = 0;
    if (waitpid(talker, &status, 0) != talker || !WIFEXITED(status) || WEXITSTATUS(status) != 0) failed = 1;
    std::printf("listener: received %llu, lost %llu (ringbus %s)\n", static_cast<unsigned long long>(subscriber.taken()),
                static_cast<unsigned long long>(subscriber.lost()), ringbus::version());
    return failed;
}

int main() {
    ExampleRoot root;
    try {
        return listen(root);
    } catch (const ringbus::Error& e) {
        std::fprintf(stderr, "listener: %s\n", e.what());
        return 1;
    }
}
