// service: request/response calls between two processes. The planner serves "robot/plan":
// given a goal, it answers whether the robot can reach it and in how many steps. A child
// process (the robot) asks it for five goals, one call at a time, then exits; the planner
// stops once it has answered all five.
//
//   build/service      (see examples/cpp/README.md for the build)
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>

#include "example_root.hpp"
#include "ringbus.hpp"

using namespace std::chrono_literals;

namespace examples {

struct PlanRequest {
    double goal_x, goal_y;  // metres from the robot
    std::uint32_t id;
};

struct PlanResponse {
    std::uint32_t id;
    std::uint32_t reachable;  // 0: out of range
    std::uint32_t steps;      // of 10 cm
};

}  // namespace examples

// The names every program of the service gives its types (a client of other types is refused).
RINGBUS_PAYLOAD(examples::PlanRequest, "examples::PlanRequest");
RINGBUS_PAYLOAD(examples::PlanResponse, "examples::PlanResponse");

namespace {

using examples::PlanRequest;
using examples::PlanResponse;

constexpr std::uint32_t GOALS = 5;
constexpr double RANGE_M = 5.0;

PlanResponse plan(const PlanRequest& goal) {
    double distance = std::hypot(goal.goal_x, goal.goal_y);
    if (distance > RANGE_M) return PlanResponse{goal.id, 0, 0};
    return PlanResponse{goal.id, 1, static_cast<std::uint32_t>(std::ceil(distance / 0.1))};
}

// The child: its own node and client (nothing opened before the fork is used here).
int robot(const std::string& root) {
    ringbus::Node node("robot", root);
    ringbus::Client<PlanRequest, PlanResponse> planner(node, "robot/plan");
    for (std::uint32_t id = 0; id < GOALS; id++) {
        PlanRequest goal{1.5 * id, 1.0, id};
        PlanResponse answer = planner.call(goal, 5s);  // throws RB_TIMEOUT or RB_ERR_SERVER_GONE
        if (answer.reachable)
            std::printf("robot: goal %u at (%.1f, %.1f): %u steps\n", id, goal.goal_x, goal.goal_y, answer.steps);
        else
            std::printf("robot: goal %u at (%.1f, %.1f): out of range\n", id, goal.goal_x, goal.goal_y);
    }
    return 0;
}

int planner(const ExampleRoot& root) {
    ringbus::Node node("planner", root.path());
    // Serving before the robot starts: a call finds no server otherwise (RB_ERR_SERVER_GONE).
    ringbus::Service<PlanRequest, PlanResponse> service(node, "robot/plan");
    std::fflush(stdout);  // the child must not print what the parent buffered
    pid_t child = fork();
    if (child < 0) return 1;
    if (child == 0) {
        int failed = 1;
        try {
            failed = robot(root.path());
        } catch (const ringbus::Error& e) {
            std::fprintf(stderr, "robot: %s\n", e.what());
        }
        std::fflush(stdout);
        _exit(failed);
    }
    std::uint32_t answered = 0;
    auto answer = [&answered](const PlanRequest& goal) {  // any callable Resp(const Req&)
        answered++;
        return plan(goal);
    };
    while (answered < GOALS) {
        if (service.serve_once(10s, answer) == 0) {
            std::fprintf(stderr, "planner: no request for 10 s\n");
            break;
        }
    }
    int status = 0;
    bool robot_ok = waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    std::printf("planner: answered %u plan requests\n", answered);
    return answered == GOALS && robot_ok ? 0 : 1;
}

}  // namespace

int main() {
    ExampleRoot root;
    try {
        return planner(root);
    } catch (const ringbus::Error& e) {
        std::fprintf(stderr, "planner: %s\n", e.what());
        return 1;
    }
}
