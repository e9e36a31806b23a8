// Messages between processes: two C++ processes, C++ with the Rust `ringbus` command
// both ways, and commands and a call from C++ to a Rust program.
#include <cstring>
#include <string>

#include "support.hpp"

namespace rust {

/// The Rust example command_queue's `Move`, named as Rust names it (std::any::type_name).
struct Move {
    float dx, dy;
};

/// Its controller's answer, a Rust `[f32; 2]`.
struct Position {
    float xy[2];
};

}  // namespace rust

RINGBUS_PAYLOAD(rust::Move, "command_queue::Move");
RINGBUS_PAYLOAD(rust::Position, "[f32; 2]");

using namespace std::chrono_literals;

namespace {

using test::RootTest;

TEST_F(RootTest, a_cpp_process_receives_the_poses_another_writes_in_place) {
    ringbus::Node node("cpp-test", root.path());
    ringbus::Subscriber<test::Pose> subscriber(node, "robot/pose");  // before the publisher: gets all
    test::Process peer({test::peer(), "publish", root.path(), "robot/pose", "10"});
    for (std::uint32_t i = 0; i < 10; i++) {
        std::optional<ringbus::Sample<test::Pose>> sample = subscriber.receive(10s);
        ASSERT_TRUE(sample) << "message " << i << " did not come within 10 s";
        EXPECT_EQ((*sample)->seq, i);
        EXPECT_EQ((*sample)->y, 2.0 * i);
    }
    EXPECT_EQ(peer.finish(), 0);
    EXPECT_EQ(subscriber.taken(), 10u);
    EXPECT_EQ(subscriber.lost(), 0u);
}

TEST_F(RootTest, a_cpp_process_receives_the_bytes_another_publishes) {
    ringbus::Node node("cpp-test", root.path());
    ringbus::Publisher<std::byte> publisher(node, "chatter", ringbus::TopicOptions().history(16));
    for (int i = 0; i < 3; i++) {
        std::string text = "hello " + std::to_string(i);
        ringbus::Loan<std::byte> loan = publisher.loan(text.size());
        std::memcpy(loan.data(), text.data(), text.size());
        loan.publish();
    }
    test::Process peer({test::peer(), "echo", root.path(), "chatter", "3"});  // joins later: history
    EXPECT_EQ(peer.finish(), 0);
    EXPECT_EQ(peer.output(), "hello 0\nhello 1\nhello 2\n");
}

TEST_F(RootTest, cpp_receives_what_the_rust_command_publishes) {
    ringbus::Node node("cpp-test", root.path());
    ringbus::Subscriber<std::byte> subscriber(node, "chatter");
    auto [status, out] = test::run({test::cli(), "pub", "--root", root.path(), "chatter", "hello from rust", "--count", "3"});
    ASSERT_EQ(status, 0) << out;
    for (int i = 0; i < 3; i++) {
        auto sample = subscriber.receive(10s);
        ASSERT_TRUE(sample);
        EXPECT_EQ(sample->text(), "hello from rust");
    }
    EXPECT_FALSE(subscriber.take());
}

TEST_F(RootTest, the_rust_command_receives_what_cpp_publishes) {
    ringbus::Node node("cpp-test", root.path());
    // A history, so that `ringbus echo`, which joins later, receives what came before it.
    ringbus::Publisher<std::byte> publisher(node, "chatter", ringbus::TopicOptions().history(4));
    for (int i = 0; i < 3; i++) {
        std::string text = "hello from c++ " + std::to_string(i);
        publisher.publish_copy(ringbus::span<const std::byte>(reinterpret_cast<const std::byte*>(text.data()), text.size()));
    }
    auto [status, out] =
        test::run({test::cli(), "echo", "--root", root.path(), "chatter", "--count", "3", "--json", "--timeout", "10s"});
    ASSERT_EQ(status, 0) << out;
    for (int i = 0; i < 3; i++) EXPECT_NE(out.find("hello from c++ " + std::to_string(i)), std::string::npos) << out;
}

// The Rust example's controller applies MOVES commands of its queue (of 16), then answers
// one position request of its service; here C++ plays the example's planner.
TEST_F(RootTest, cpp_pushes_commands_to_and_calls_a_rust_program) {
    constexpr int moves = 200;  // more than the queue holds: pushes wait for the controller
    test::Process controller({"/usr/bin/env", "RINGBUS_ROOT=" + root.path(), test::rust_command_queue(), "--controller",
                              std::to_string(moves)});
    ringbus::Node node("cpp-planner", root.path());
    ringbus::Producer<rust::Move> commands(node, "robot/moves", ringbus::QueueOptions().capacity(16));
    for (int i = 0; i < moves; i++) ASSERT_TRUE(commands.push(rust::Move{1.0f, 0.5f}, 10s)) << "move " << i;
    ringbus::Client<std::uint32_t, rust::Position> position(node, "robot/position");
    rust::Position at = position.call(0, 10s);  // it serves once every move is applied
    EXPECT_EQ(at.xy[0], 1.0f * moves);
    EXPECT_EQ(at.xy[1], 0.5f * moves);
    EXPECT_EQ(controller.finish(), 0);
    EXPECT_NE(controller.output().find("applied 200 moves"), std::string::npos) << controller.output();
}

}  // namespace
