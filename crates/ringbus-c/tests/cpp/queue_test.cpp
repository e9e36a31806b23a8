// Command queues: between two C++ processes, from several threads, when full or empty,
// and with the wrong type.
#include <string>
#include <thread>
#include <vector>

#include "support.hpp"

using namespace std::chrono_literals;

namespace {

using test::Pose;
using test::RootTest;

Pose command(std::uint32_t seq, std::uint32_t producer = 0) { return Pose{1.0 * seq, 0, 0, seq, producer}; }

TEST_F(RootTest, a_cpp_process_pops_the_commands_another_pushes_in_order) {
    ringbus::Node node("cpp-test", root.path());
    ringbus::Consumer<Pose> consumer(node, "robot/moves", ringbus::QueueOptions().capacity(16));
    test::Process peer({test::peer(), "push", root.path(), "robot/moves", "200"});  // waits for room
    std::uint32_t next = 0;
    Pose batch[8];
    while (next < 200) {
        ASSERT_TRUE(consumer.wait(10s)) << "no command within 10 s after " << next;
        std::size_t n = consumer.pop_batch(ringbus::span<Pose>(batch, 8));
        for (std::size_t i = 0; i < n; i++, next++) {
            ASSERT_EQ(batch[i].seq, next);
            EXPECT_EQ(batch[i].x, 1.0 * next);
        }
    }
    EXPECT_EQ(peer.finish(), 0);
    EXPECT_FALSE(consumer.pop());
    EXPECT_EQ(consumer.abandoned(), 0u);
    consumer.unlink();
}

TEST_F(RootTest, two_threads_push_into_an_mpsc_queue) {
    constexpr std::uint32_t per_thread = 1000;
    ringbus::Node node("cpp-test", root.path());
    auto options = ringbus::QueueOptions().capacity(64).mpsc();
    ringbus::Consumer<Pose> consumer(node, "jobs", options);
    std::vector<std::thread> producers;
    for (std::uint32_t id = 0; id < 2; id++) {
        producers.emplace_back([&, id] {
            ringbus::Producer<Pose> producer(node, "jobs", options);  // one per thread
            for (std::uint32_t seq = 0; seq < per_thread; seq++) ASSERT_TRUE(producer.push(command(seq, id), 10s));
        });
    }
    std::uint32_t next[2] = {0, 0};
    while (next[0] + next[1] < 2 * per_thread) {
        ASSERT_TRUE(consumer.wait(10s));
        while (std::optional<Pose> c = consumer.pop()) {
            ASSERT_LT(c->flags, 2u);
            ASSERT_EQ(c->seq, next[c->flags]++) << "producer " << c->flags << " out of order";
        }
    }
    for (std::thread& t : producers) t.join();
    consumer.unlink();
}

TEST_F(RootTest, a_full_queue_refuses_and_an_empty_one_has_nothing) {
    ringbus::Node node("cpp-test", root.path());
    ringbus::Consumer<Pose> consumer(node, "q", ringbus::QueueOptions().capacity(2));
    ringbus::Producer<Pose> producer(node, "q");  // takes the existing queue's settings
    EXPECT_TRUE(producer.consumer_alive());
    EXPECT_TRUE(producer.push(command(0)));
    EXPECT_TRUE(producer.push(command(1)));
    EXPECT_FALSE(producer.push(command(2)));  // full: nothing pushed
    EXPECT_EQ(producer.try_push(command(2)), RB_ERR_FULL);
    EXPECT_FALSE(producer.push(command(2), 1ms));
    EXPECT_EQ(consumer.pop()->seq, 0u);
    Pose more[3] = {command(2), command(3), command(4)};
    EXPECT_EQ(producer.push_batch(ringbus::span<const Pose>(more, 3)), 1u);  // as many as fit
    EXPECT_EQ(consumer.pop()->seq, 1u);
    EXPECT_EQ(consumer.pop()->seq, 2u);

    EXPECT_FALSE(consumer.pop());
    ringbus::Result<Pose> nothing = consumer.try_pop();
    EXPECT_FALSE(nothing);
    EXPECT_EQ(nothing.status(), RB_EMPTY);
    EXPECT_FALSE(consumer.wait(1ms));
    Pose out[4];
    EXPECT_EQ(consumer.pop_batch(ringbus::span<Pose>(out, 4)), 0u);
    consumer.unlink();
    consumer = ringbus::Consumer<Pose>();  // closed
    EXPECT_FALSE(producer.consumer_alive());
}

TEST_F(RootTest, opening_a_queue_with_another_type_or_setting_throws) {
    ringbus::Node node("cpp-test", root.path());
    ringbus::Consumer<Pose> consumer(node, "q", ringbus::QueueOptions().capacity(8));
    std::string message;
    EXPECT_EQ(test::thrown([&] { ringbus::Producer<std::uint64_t>(node, "q"); }, &message), RB_ERR_MISMATCH);
    EXPECT_NE(message.find("test::Pose"), std::string::npos) << message;
    EXPECT_EQ(test::thrown([&] { ringbus::Producer<Pose>(node, "q", ringbus::QueueOptions().capacity(16)); }),
              RB_ERR_MISMATCH);
    EXPECT_EQ(test::thrown([&] { ringbus::Consumer<Pose>(node, "q"); }), RB_ERR_TOO_MANY);  // one consumer
    ringbus::Producer<Pose> producer(node, "q");
    EXPECT_EQ(test::thrown([&] { ringbus::Producer<Pose>(node, "q"); }), RB_ERR_TOO_MANY);  // SPSC: one producer
    EXPECT_EQ(test::thrown([&] { ringbus::Producer<Pose>(node, "bad queue!"); }), RB_ERR_INVALID_NAME);
    EXPECT_EQ(test::thrown([&] { ringbus::Producer<Pose>(node, "q3", ringbus::QueueOptions().capacity(3)); }),
              RB_ERR_INVALID_CONFIG);
    consumer.unlink();

    ringbus::Consumer<Pose> polled(node, "polled", ringbus::QueueOptions().wake(ringbus::Wake::never));
    ringbus::WaitSet ws;
    EXPECT_EQ(test::thrown([&] { ws.attach(polled); }), RB_ERR_POLLING_ONLY);
    EXPECT_FALSE(polled.wait(1ms));  // polls
    polled.unlink();
}

TEST_F(RootTest, a_moved_from_queue_handle_is_empty_and_refuses_calls) {
    ringbus::Node node("cpp-test", root.path());
    ringbus::Consumer<Pose> consumer(node, "q");
    ringbus::Producer<Pose> producer(node, "q");
    ringbus::Producer<Pose> moved = std::move(producer);
    EXPECT_FALSE(producer);  // NOLINT(bugprone-use-after-move): what a moved-from handle does
    EXPECT_EQ(producer.try_push(command(0)), RB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(test::thrown([&] { producer.push(command(0)); }), RB_ERR_INVALID_ARGUMENT);
    EXPECT_TRUE(moved.push(command(7)));
    ringbus::Consumer<Pose> other = std::move(consumer);
    EXPECT_EQ(test::thrown([&] { consumer.pop(); }), RB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(other.pop()->seq, 7u);
    other.unlink();
}

}  // namespace
