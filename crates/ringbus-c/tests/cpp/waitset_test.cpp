// Wait sets over every kind of source, as event lists and as callbacks; latches,
// semaphores and words between threads.
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <optional>
#include <string>
#include <thread>

#include "support.hpp"

using namespace std::chrono_literals;

namespace {

using test::RootTest;

/// A pipe, closed at the end of the test.
struct Pipe {
    int fds[2] = {-1, -1};
    Pipe() { EXPECT_EQ(pipe2(fds, O_CLOEXEC | O_NONBLOCK), 0); }
    ~Pipe() {
        close(fds[0]);
        close(fds[1]);
    }
    void write_byte() { EXPECT_EQ(write(fds[1], "x", 1), 1); }
    void drain() {
        char buffer[64];
        while (read(fds[0], buffer, sizeof buffer) > 0) {
        }
    }
};

/// Waits (at most 5 s in all) until the wait set reports `key` with this kind: the event.
/// A wait may return as soon as one source is ready, so other sources' events come first.
std::optional<ringbus::Event> wait_for(ringbus::WaitSet& ws, ringbus::WaitSet::Key key, ringbus::EventKind kind) {
    auto deadline = std::chrono::steady_clock::now() + 5s;
    while (std::chrono::steady_clock::now() < deadline) {
        for (const ringbus::Event& e : ws.wait(100ms))
            if (e.key == key && e.kind == kind) return e;
    }
    return std::nullopt;
}

TEST_F(RootTest, a_wait_set_reports_a_subscriber_and_a_pipe) {
    ringbus::Node node("cpp-test", root.path());
    ringbus::Publisher<test::Pose> publisher(node, "pose");
    ringbus::Subscriber<test::Pose> subscriber(node, "pose");
    Pipe pipe;
    ringbus::WaitSet ws;
    auto on_pose = ws.attach(subscriber);
    auto on_pipe = ws.attach_fd(pipe.fds[0], ringbus::fd_readable);
    EXPECT_NE(std::string(ws.backend()), "futex");  // an fd needs io_uring or epoll
    // A subscriber is reported until a take() finds nothing ("may have data"), and while
    // it is, each wait returns at once with it alone: take until empty, as on every event.
    EXPECT_FALSE(subscriber.take());
    EXPECT_TRUE(ws.wait(10ms).empty());

    pipe.write_byte();
    auto readable = wait_for(ws, on_pipe, ringbus::EventKind::fd);
    ASSERT_TRUE(readable);
    EXPECT_TRUE(readable->value & ringbus::fd_readable);
    pipe.drain();

    publisher.publish_copy(test::Pose{0, 0, 0, 5, 0});
    ASSERT_TRUE(wait_for(ws, on_pose, ringbus::EventKind::data));
    EXPECT_EQ(subscriber.take()->value().seq, 5u);

    ws.detach(on_pipe);
    pipe.write_byte();
    EXPECT_FALSE(subscriber.take());
    EXPECT_TRUE(ws.wait(10ms).empty());
}

TEST_F(RootTest, a_wait_set_reports_a_queue_consumer_and_a_pipe) {
    ringbus::Node node("cpp-test", root.path());
    ringbus::Consumer<test::Pose> consumer(node, "commands");
    ringbus::Producer<test::Pose> producer(node, "commands");
    Pipe pipe;
    ringbus::WaitSet ws;
    auto on_command = ws.attach(consumer);
    auto on_pipe = ws.attach_fd(pipe.fds[0], ringbus::fd_readable);
    EXPECT_TRUE(ws.wait(10ms).empty());

    pipe.write_byte();
    ASSERT_TRUE(wait_for(ws, on_pipe, ringbus::EventKind::fd));
    pipe.drain();

    std::thread pusher([&] { EXPECT_TRUE(producer.push(test::Pose{0, 0, 0, 9, 0})); });
    ASSERT_TRUE(wait_for(ws, on_command, ringbus::EventKind::data));
    pusher.join();
    EXPECT_EQ(consumer.pop()->seq, 9u);
    EXPECT_FALSE(consumer.pop());  // pop until nothing: then the wait set sleeps again
    EXPECT_TRUE(ws.wait(10ms).empty());
    ws.detach(on_command);
    consumer.unlink();
}

TEST_F(RootTest, callbacks_run_for_their_keys) {
    ringbus::Node node("cpp-test", root.path());
    ringbus::Publisher<test::Pose> publisher(node, "pose");
    ringbus::Subscriber<test::Pose> subscriber(node, "pose");
    Pipe pipe;
    ringbus::WaitSet ws;
    int poses = 0, pipe_events = 0;
    ws.on(ws.attach(subscriber), [&] {
        while (subscriber.take()) poses++;  // "may have data": take until there is none
    });
    ws.on(ws.attach_fd(pipe.fds[0]), [&](const ringbus::Event& e) {
        EXPECT_EQ(e.kind, ringbus::EventKind::fd);
        pipe_events++;
        pipe.drain();
    });
    std::thread sender([&] {
        for (std::uint32_t i = 0; i < 3; i++) publisher.publish_copy(test::Pose{0, 0, 0, i, 0});
        pipe.write_byte();
    });
    for (int spins = 0; spins < 100 && (poses < 3 || pipe_events < 1); spins++) ws.spin_once(1s);
    sender.join();
    EXPECT_EQ(poses, 3);
    EXPECT_EQ(pipe_events, 1);
}

TEST_F(RootTest, a_wait_set_reports_latches_tokens_words_and_timers) {
    ringbus::Node node("cpp-test", root.path());
    ringbus::Latch stop(node, "stop");
    ringbus::Semaphore tokens(node, "tokens", 1);
    std::atomic<std::uint32_t> word{0};
    ringbus::WaitSet ws;
    auto on_stop = ws.attach(stop);
    auto on_token = ws.attach(tokens);
    auto on_word = ws.attach(word, 0);
    auto on_deadline = ws.attach_deadline(20ms);
    EXPECT_EQ(std::string(ws.backend()), "futex");

    ASSERT_TRUE(wait_for(ws, on_token, ringbus::EventKind::token));  // the free token, taken for us
    EXPECT_EQ(tokens.value(), 0u);
    ws.detach(on_token);  // else it takes the token again as soon as it is back
    tokens.post();

    std::thread waker([&] {
        word.store(7, std::memory_order_release);
        ringbus::word_wake(word);
        stop.set();
    });
    bool stopped = false, changed = false, deadline = false;
    for (auto end = std::chrono::steady_clock::now() + 5s;
         !(stopped && changed && deadline) && std::chrono::steady_clock::now() < end;) {
        for (const ringbus::Event& e : ws.wait(5s)) {
            if (e.key == on_stop && e.kind == ringbus::EventKind::latch_set) {
                stopped = true;
                stop.reset();  // else reported at every wait, which then never sleeps
            }
            changed |= e.key == on_word && e.kind == ringbus::EventKind::word && e.value == 7;
            deadline |= e.key == on_deadline && e.kind == ringbus::EventKind::deadline;
        }
    }
    waker.join();
    EXPECT_TRUE(stopped && changed && deadline);
    EXPECT_EQ(tokens.value(), 1u);  // the token back
    stop.unlink();
    tokens.unlink();
}

TEST_F(RootTest, intervals_fire_periodically) {
    ringbus::WaitSet ws;
    int ticks = 0;
    ws.on(ws.attach_interval(5ms), [&](const ringbus::Event& e) { ticks += static_cast<int>(e.value); });
    while (ticks < 3) ASSERT_GT(ws.spin_once(5s), 0u);
}

TEST_F(RootTest, latches_and_semaphores_between_threads) {
    ringbus::Node node("cpp-test", root.path());
    ringbus::Latch latch(node, "go");
    ringbus::Semaphore semaphore(node, "jobs", 0);
    EXPECT_FALSE(latch.wait(1ms));
    EXPECT_FALSE(semaphore.try_wait());
    EXPECT_FALSE(semaphore.wait(1ms));
    std::thread other([&] {
        latch.set();
        semaphore.post();
    });
    EXPECT_TRUE(latch.wait(5s));
    EXPECT_TRUE(latch.is_set());
    EXPECT_TRUE(semaphore.wait(5s));
    other.join();
    latch.reset();
    EXPECT_FALSE(latch.is_set());
    latch.unlink();
    semaphore.unlink();
}

TEST(Words, a_thread_wakes_another_waiting_on_a_word) {
    std::atomic<std::uint32_t> word{0};
    EXPECT_EQ(ringbus::word_wait(word, 0, 1ms), std::nullopt);
    EXPECT_EQ(ringbus::word_wait(word, 5, 1ms), 0u);  // differs already: at once
    std::thread waker([&] {
        std::this_thread::sleep_for(5ms);
        word.store(1, std::memory_order_release);
        ringbus::word_wake(word);
    });
    EXPECT_EQ(ringbus::word_wait(word, 0, 5s), 1u);
    waker.join();
}

}  // namespace
