// latency: publish and end-to-end latency of the C++ API between two processes, as one
// line of JSON. This process publishes 64-byte messages at a fixed rate; a child process
// (the subscriber) sleeps in receive() and timestamps each one as it arrives.
//
//   build/latency [--count N] [--rate HZ] [--warmup N]      (defaults: 2000, 1000, 20)
//
// Measured like the ringbus row of `ringbus bench fanout` with one subscriber: publish is
// t1 - t0 around loan + write + publish (t0 and seq written in the first 16 bytes); e2e is
// the subscriber's CLOCK_MONOTONIC once it has the message minus t0. The JSON keys are that
// benchmark's, so the two can be compared (docs/src/reference/cpp.md says how).
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "example_root.hpp"
#include "ringbus.hpp"

using namespace std::chrono_literals;

namespace examples {

struct Tick {
    std::uint64_t t0_ns;
    std::uint64_t seq;
    std::uint8_t padding[48];  // 64 bytes in all
};

}  // namespace examples

RINGBUS_PAYLOAD(examples::Tick, "examples::Tick");

namespace {

using examples::Tick;

struct Settings {
    std::uint64_t count = 2000, rate_hz = 1000, warmup = 20;
};

std::uint64_t monotonic_ns() {
    return static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count());
}

// The topic as `ringbus bench fanout` makes it for one subscriber of 64-byte messages.
ringbus::TopicOptions tick_topic() {
    return ringbus::TopicOptions().max_publishers(1).max_subscribers(1).max_held(1).max_payload_bytes(sizeof(Tick));
}

// The child: receives every message and writes its e2e latency (ns) into `e2e_ns`, shared
// with the parent; -1 for a message it never got.
int subscribe(const std::string& root, const Settings& s, std::int64_t* e2e_ns) {
    ringbus::Node node("latency-subscriber", root);
    ringbus::Subscriber<Tick> subscriber(node, "latency/tick", tick_topic());
    ringbus::Latch(node, "latency/ready").set();
    for (std::uint64_t last = s.warmup + s.count - 1;;) {
        auto sample = subscriber.receive(10s);
        std::uint64_t at = monotonic_ns();
        if (!sample) {
            std::fprintf(stderr, "latency: the subscriber got nothing for 10 s\n");
            return 1;
        }
        const Tick& tick = **sample;
        if (tick.seq >= s.warmup) e2e_ns[tick.seq - s.warmup] = static_cast<std::int64_t>(at - tick.t0_ns);
        if (tick.seq == last) return 0;
    }
}

// Publishes warmup + count messages at the rate (a late tick restarts the schedule rather
// than bursting): each publish's duration, in ns.
std::vector<std::int64_t> publish(ringbus::Publisher<Tick>& publisher, const Settings& s) {
    std::vector<std::int64_t> publish_ns;
    publish_ns.reserve(s.count);
    auto period = std::chrono::nanoseconds(1'000'000'000 / s.rate_hz);
    auto next = std::chrono::steady_clock::now();
    for (std::uint64_t seq = 0; seq < s.warmup + s.count; seq++) {
        std::this_thread::sleep_until(next);
        next = std::max(next + period, std::chrono::steady_clock::now());
        std::uint64_t t0 = monotonic_ns();
        ringbus::Loan<Tick> tick = publisher.loan();
        tick->t0_ns = t0;
        tick->seq = seq;
        tick.publish();
        std::uint64_t t1 = monotonic_ns();
        if (seq >= s.warmup) publish_ns.push_back(static_cast<std::int64_t>(t1 - t0));
    }
    return publish_ns;
}

// The q-quantile (nearest rank) of `ns`, in microseconds.
double quantile_us(std::vector<std::int64_t> ns, double q) {
    if (ns.empty()) return NAN;
    std::sort(ns.begin(), ns.end());
    std::size_t rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(ns.size())));
    return static_cast<double>(ns[rank == 0 ? 0 : rank - 1]) / 1000.0;
}

int run(const ExampleRoot& root, const Settings& s) {
    std::size_t e2e_bytes = s.count * sizeof(std::int64_t);
    void* shared = mmap(nullptr, e2e_bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (shared == MAP_FAILED) return 1;
    auto* e2e_ns = static_cast<std::int64_t*>(shared);
    std::fill(e2e_ns, e2e_ns + s.count, -1);

    ringbus::Node node("latency-publisher", root.path());
    ringbus::Publisher<Tick> publisher(node, "latency/tick", tick_topic());
    ringbus::Latch ready(node, "latency/ready");
    std::fflush(stdout);
    pid_t child = fork();
    if (child < 0) return 1;
    if (child == 0) {
        int failed = 1;
        try {
            failed = subscribe(root.path(), s, e2e_ns);
        } catch (const ringbus::Error& e) {
            std::fprintf(stderr, "latency subscriber: %s\n", e.what());
        }
        _exit(failed);
    }
    bool started = ready.wait(10s);
    std::this_thread::sleep_for(50ms);  // time to fall asleep in receive()
    std::vector<std::int64_t> publish_ns = started ? publish(publisher, s) : std::vector<std::int64_t>();
    int status = 0;
    bool subscriber_ok = waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    ready.unlink();

    std::vector<std::int64_t> e2e;
    for (std::uint64_t i = 0; i < s.count; i++)
        if (e2e_ns[i] >= 0) e2e.push_back(e2e_ns[i]);
    munmap(shared, e2e_bytes);
    std::printf("{\"transport\":\"ringbus-cpp\",\"subs\":1,\"payload_bytes\":%zu,\"rate_hz\":%llu,\"count\":%llu,"
                "\"received\":%zu,\"publish_p50_us\":%.3f,\"publish_p99_us\":%.3f,\"e2e_p50_us\":%.3f,\"e2e_p99_us\":%.3f}\n",
                sizeof(Tick), static_cast<unsigned long long>(s.rate_hz), static_cast<unsigned long long>(s.count),
                e2e.size(), quantile_us(publish_ns, 0.50), quantile_us(publish_ns, 0.99), quantile_us(e2e, 0.50),
                quantile_us(e2e, 0.99));
    return started && subscriber_ok ? 0 : 1;
}

bool parse(int argc, char** argv, Settings& s) {
    for (int i = 1; i + 1 < argc; i += 2) {
        std::uint64_t value = std::strtoull(argv[i + 1], nullptr, 10);
        if (value == 0) return false;
        if (std::strcmp(argv[i], "--count") == 0) s.count = value;
        else if (std::strcmp(argv[i], "--rate") == 0) s.rate_hz = value;
        else if (std::strcmp(argv[i], "--warmup") == 0) s.warmup = value;
        else return false;
    }
    return argc % 2 == 1;
}

}  // namespace

int main(int argc, char** argv) {
    Settings settings;
    if (!parse(argc, argv, settings)) {
        std::fprintf(stderr, "usage: %s [--count N] [--rate HZ] [--warmup N]   (each at least 1)\n", argv[0]);
        return 2;
    }
    ExampleRoot root;
    try {
        return run(root, settings);
    } catch (const ringbus::Error& e) {
        std::fprintf(stderr, "latency: %s\n", e.what());
        return 1;
    }
}
