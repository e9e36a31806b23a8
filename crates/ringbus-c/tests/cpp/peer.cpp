// The second process of the C++ tests:
//   ringbus_cpp_peer publish ROOT TOPIC COUNT   publishes COUNT test::Pose, seq 0..COUNT-1
//   ringbus_cpp_peer echo ROOT TOPIC COUNT      receives COUNT messages (of a topic with a
//                                               history of 16) and prints each as a line
//   ringbus_cpp_peer push ROOT QUEUE COUNT      pushes COUNT test::Pose commands, seq 0..COUNT-1,
//                                               into a queue of 16, waiting for room
//   ringbus_cpp_peer serve ROOT SERVICE COUNT   answers COUNT test::PlanRequest with test::plan,
//                                               then prints "served COUNT"
#include <cstdio>
#include <cstdlib>
#include <string>

#include "plan.hpp"
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

int push(const std::string& root, const std::string& queue, int count) {
    ringbus::Node node("cpp-peer", root);
    ringbus::Producer<test::Pose> producer(node, queue, ringbus::QueueOptions().capacity(16));
    for (int i = 0; i < count; i++) {
        if (!producer.push(test::Pose{1.0 * i, 0, 0, static_cast<std::uint32_t>(i), 0}, std::chrono::seconds(10))) {
            std::fprintf(stderr, "peer: no room for command %d within 10 s\n", i);
            return 1;
        }
    }
    return 0;
}

int serve(const std::string& root, const std::string& service_name, int count) {
    ringbus::Node node("cpp-peer", root);
    ringbus::Service<test::PlanRequest, test::PlanResponse> service(node, service_name);
    int served = 0;
    auto answer = [&served](const test::PlanRequest& request) {
        served++;
        return test::plan(request);
    };
    while (served < count) {
        if (service.serve_once(std::chrono::seconds(10), answer) == 0) {
            std::fprintf(stderr, "peer: no request within 10 s after %d\n", served);
            return 1;
        }
    }
    std::printf("served %d\n", served);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 5) {
        std::fprintf(stderr, "usage: %s publish|echo|push|serve ROOT NAME COUNT\n", argv[0]);
        return 2;
    }
    std::string mode = argv[1];
    try {
        if (mode == "publish") return publish(argv[2], argv[3], std::atoi(argv[4]));
        if (mode == "echo") return echo(argv[2], argv[3], std::atoi(argv[4]));
        if (mode == "push") return push(argv[2], argv[3], std::atoi(argv[4]));
        if (mode == "serve") return serve(argv[2], argv[3], std::atoi(argv[4]));
    } catch (const ringbus::Error& e) {
        std::fprintf(stderr, "peer: %s (%s)\n", e.what(), ringbus::status_name(e.status()));
        return 1;
    }
    std::fprintf(stderr, "peer: unknown mode %s\n", argv[1]);
    return 2;
}
