#include "support.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <stdexcept>
#include <system_error>

extern char** environ;

namespace test {

Root::Root() {
    char path[] = "/dev/shm/ringbus-test-XXXXXX";
    if (mkdtemp(path) == nullptr) throw std::system_error(errno, std::generic_category(), "mkdtemp /dev/shm");
    path_ = path;
}

Root::~Root() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
}

Process::Process(const std::vector<std::string>& argv) {
    int pipe_fds[2];
    if (pipe2(pipe_fds, O_CLOEXEC) != 0) throw std::system_error(errno, std::generic_category(), "pipe2");
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
    std::vector<char*> args;
    for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
    args.push_back(nullptr);
    int error = posix_spawn(&pid_, args[0], &actions, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    close(pipe_fds[1]);
    stdout_fd_ = pipe_fds[0];
    if (error != 0) {
        close(stdout_fd_);
        throw std::system_error(error, std::generic_category(), "posix_spawn " + argv[0]);
    }
}

Process::~Process() {
    if (pid_ > 0) {
        kill(pid_, SIGKILL);
        waitpid(pid_, nullptr, 0);
    }
    if (stdout_fd_ >= 0) close(stdout_fd_);
}

int Process::finish(std::chrono::seconds timeout) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    char buffer[4096];
    while (stdout_fd_ >= 0) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        pollfd fd{stdout_fd_, POLLIN, 0};
        if (left.count() <= 0 || poll(&fd, 1, static_cast<int>(left.count())) == 0) {
            ADD_FAILURE() << "a child process ran longer than " << timeout.count() << " s: killed; its output:\n"
                          << output_;
            kill(pid_, SIGKILL);
            break;
        }
        ssize_t n = read(stdout_fd_, buffer, sizeof buffer);
        if (n <= 0) break;
        output_.append(buffer, static_cast<std::size_t>(n));
    }
    close(stdout_fd_);
    stdout_fd_ = -1;
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::pair<int, std::string> run(const std::vector<std::string>& argv) {
    Process process(argv);
    int status = process.finish();
    return {status, process.output()};
}

std::string cli() { return RINGBUS_TEST_CLI; }
std::string peer() { return RINGBUS_TEST_PEER; }
std::string rust_command_queue() { return RINGBUS_TEST_RUST_COMMAND_QUEUE; }

std::string topic_info(const std::string& root, const std::string& topic) {
    auto [status, out] = run({cli(), "info", "--root", root, topic, "--json"});
    EXPECT_EQ(status, 0) << "ringbus info " << topic << " failed:\n" << out;
    std::string compact;
    for (char c : out)
        if (c != ' ' && c != '\n') compact += c;
    return compact;
}

std::size_t count(const std::string& text, const std::string& needle) {
    std::size_t n = 0;
    for (std::size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) n++;
    return n;
}

long long json_number(const std::string& json, const std::string& key) {
    std::string needle = "\"" + key + "\":";
    std::size_t at = json.find(needle);
    if (at == std::string::npos) return -1;
    return std::stoll(json.substr(at + needle.size()));
}

}  // namespace test
