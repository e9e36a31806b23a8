// Messages between processes: two C++ processes, and C++ with the Rust `ringbus` command
// both ways.
#include <cstring>
#include <string>

#include "support.hpp"

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

}  // namespace
