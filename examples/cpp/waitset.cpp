// waitset: one wait over several sources, with a callback for each. A thermostat sleeps
// until a temperature reading comes, its 50 ms timer is due, or its shutdown latch is
// set, whichever is first. A child process (the sensor) publishes ten readings 20 ms
// apart, then sets the latch.
//
//   build/waitset      (see examples/cpp/README.md for the build)
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <cstdio>
#include <thread>

#include "example_root.hpp"
#include "ringbus.hpp"

using namespace std::chrono_literals;

namespace {

constexpr int READINGS = 10;

ringbus::TopicOptions temperature_topic() { return ringbus::TopicOptions().max_payload_bytes(sizeof(float)); }

// The child: its own node, publisher and latch handle (latches are named objects).
int sensor(const std::string& root) {
    ringbus::Node node("sensor", root);
    ringbus::Publisher<float> publisher(node, "sensor/temperature", temperature_topic());
    for (int i = 0; i < READINGS; i++) {
        publisher.publish_copy(20.0f + 0.25f * static_cast<float>(i));
        std::this_thread::sleep_for(20ms);
    }
    ringbus::Latch(node, "thermostat/shutdown").set();  // wakes the thermostat
    return 0;
}

int thermostat(const ExampleRoot& root) {
    ringbus::Node node("thermostat", root.path());
    ringbus::Subscriber<float> temperature(node, "sensor/temperature", temperature_topic());
    ringbus::Latch shutdown(node, "thermostat/shutdown");
    std::fflush(stdout);
    pid_t child = fork();
    if (child < 0) return 1;
    if (child == 0) {
        int failed = 1;
        try {
            failed = sensor(root.path());
        } catch (const ringbus::Error& e) {
            std::fprintf(stderr, "sensor: %s\n", e.what());
        }
        _exit(failed);
    }

    int readings = 0, ticks = 0;
    float sum = 0;
    bool done = false;
    ringbus::WaitSet ws;
    ws.on(ws.attach(temperature), [&] {
        while (auto reading = temperature.take()) {  // "may have data": take until there is none
            sum += reading->value();
            readings++;
        }
    });
    ws.on(ws.attach_interval(50ms), [&] { ticks++; });
    ws.on(ws.attach(shutdown), [&] { done = true; });
    while (!done) {
        if (ws.spin_once(10s) == 0) {
            std::fprintf(stderr, "thermostat: nothing for 10 s\n");
            break;
        }
    }
    int status = 0;
    bool sensor_ok = waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    while (auto reading = temperature.take()) {  // any reading that came with the latch
        sum += reading->value();
        readings++;
    }
    shutdown.unlink();
    std::printf("thermostat: shutdown after %d readings (mean %.2f °C) and %d timer ticks\n", readings,
                readings > 0 ? sum / static_cast<float>(readings) : 0.0f, ticks);
    return done && sensor_ok && readings == READINGS ? 0 : 1;
}

}  // namespace

int main() {
    ExampleRoot root;
    try {
        return thermostat(root);
    } catch (const ringbus::Error& e) {
        std::fprintf(stderr, "thermostat: %s\n", e.what());
        return 1;
    }
}
