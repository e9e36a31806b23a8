// What the C++ tests share: a root of their own under /dev/shm, a payload type, and
// processes run with a watchdog (the peer helper and the `ringbus` command).
#ifndef RINGBUS_TEST_SUPPORT_HPP
#define RINGBUS_TEST_SUPPORT_HPP

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "pose.hpp"
#include "ringbus.hpp"

namespace test {

/// A fresh RINGBUS_ROOT (/dev/shm/ringbus-test-XXXXXX) for one test, removed afterwards.
class Root {
public:
    Root();
    ~Root();
    Root(const Root&) = delete;
    Root& operator=(const Root&) = delete;
    const std::string& path() const { return path_; }

private:
    std::string path_;
};

/// A test with its own root.
class RootTest : public ::testing::Test {
protected:
    Root root;
};

/// The status of the ringbus::Error that `call` throws (RB_OK if it throws none), and its
/// message in `*message` unless that is NULL.
template <class F>
rb_status thrown(F&& call, std::string* message = nullptr) {
    try {
        call();
    } catch (const ringbus::Error& e) {
        if (message != nullptr) *message = e.what();
        return e.status();
    }
    return RB_OK;
}

/// A child process whose stdout is captured; killed if still running when destroyed.
class Process {
public:
    explicit Process(const std::vector<std::string>& argv);
    ~Process();
    Process(const Process&) = delete;
    Process& operator=(const Process&) = delete;

    /// Reads its stdout to the end, then waits for it, at most `timeout` in all (then it
    /// is killed and the test fails): its exit status (128 + signal if killed).
    int finish(std::chrono::seconds timeout = std::chrono::seconds(30));
    const std::string& output() const { return output_; }

private:
    int pid_ = -1;
    int stdout_fd_ = -1;
    std::string output_;
};

/// Runs a command to its end (at most 30 s): its exit status and stdout.
std::pair<int, std::string> run(const std::vector<std::string>& argv);

/// The `ringbus` command's path, the peer helper's, and the Rust example command_queue's.
std::string cli();
std::string peer();
std::string rust_command_queue();

/// `ringbus info TOPIC --json` in `root`, without spaces: e.g. `"held":1` can be searched.
std::string topic_info(const std::string& root, const std::string& topic);

/// How many times `needle` occurs in `text`.
std::size_t count(const std::string& text, const std::string& needle);

/// The first value of `"key":N` in compact JSON, or -1.
long long json_number(const std::string& json, const std::string& key);

}  // namespace test

#endif  // RINGBUS_TEST_SUPPORT_HPP
