// The second process of the C++ tests:
//   ringbus_cpp_peer publish ROOT TOPIC COUNT   publishes COUNT test::Pose, seq 0..COUNT-1
//   ringbus_cpp_peer echo ROOT TOPIC COUNT      receives COUNT messages (of a topic with a
//                                               history of 16) and prints each as a line
#include <cstdio>
#include <cstdlib>
#include <string>

#include "pose.hpp"
#include "ringbus.hpp"

namespace {

int publish(const std::string& root, const std::string& topic, int count) {
    ringbus::Node node("cpp-peer", root);
    ringbus::Publisher<test::Pose> publisher(node, topic);
    for (int i = 0; i < count; i++) {
        ringbus::Loan<test::Pose> loan = publisher.loan();
        *loan = test::Pose{1.0 * i, 2.0 * i, 3.0 * i, static_cast<std::uint32_t>(i), 0};
        loan.publish();
    }
    return 0;
}

int echo(const std::string& root, const std::string& topic, int count) {
    ringbus::Node node("cpp-peer", root);
    ringbus::Subscriber<std::byte> subscriber(node, topic, ringbus::TopicOptions().history(16));
    for (int i = 0; i < count; i++) {
        auto sample = subscriber.receive(std::chrono::seconds(10));
        if (!sample) {
            std::fprintf(stderr, "peer: no message %d within 10 s\n", i);
            return 1;
        }
        std::printf("%.*s\n", static_cast<int>(sample->text().size()), sample->text().data());
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 5) {
        std::fprintf(stderr, "usage: %s publish|echo ROOT TOPIC COUNT\n", argv[0]);
        return 2;
    }
    std::string mode = argv[1];
    try {
        if (mode == "publish") return publish(argv[2], argv[3], std::atoi(argv[4]));
        if (mode == "echo") return echo(argv[2], argv[3], std::atoi(argv[4]));
    } catch (const ringbus::Error& e) {
        std::fprintf(stderr, "peer: %s (%s)\n", e.what(), ringbus::status_name(e.status()));
        return 1;
    }
    std::fprintf(stderr, "peer: unknown mode %s\n", argv[1]);
    return 2;
}
