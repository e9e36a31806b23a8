// Services: calls to a C++ server in another process, a handler that throws, calls
// without a server or an answer, and clients of the wrong types.
#include <stdexcept>
#include <string>
#include <thread>

#include "plan.hpp"
#include "support.hpp"

using namespace std::chrono_literals;

namespace {

using test::PlanRequest;
using test::PlanResponse;
using test::RootTest;
using test::thrown;
using Planner = ringbus::Client<PlanRequest, PlanResponse>;
using PlanService = ringbus::Service<PlanRequest, PlanResponse>;

/// Calls until a server answers (the peer may not serve yet: RB_ERR_SERVER_GONE), at most 10 s.
ringbus::Result<PlanResponse> first_call(Planner& client, const PlanRequest& request) {
    auto deadline = std::chrono::steady_clock::now() + 10s;
    ringbus::Result<PlanResponse> response = client.try_call(request, 1s);
    while (response.status() == RB_ERR_SERVER_GONE && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(10ms);
        response = client.try_call(request, 1s);
    }
    return response;
}

TEST_F(RootTest, a_cpp_client_calls_a_cpp_service_in_another_process) {
    ringbus::Node node("cpp-test", root.path());
    Planner client(node, "planner");  // before the server: a client needs none to open
    test::Process server({test::peer(), "serve", root.path(), "planner", "20"});
    ringbus::Result<PlanResponse> first = first_call(client, PlanRequest{{0, 0.5}, 0});
    ASSERT_TRUE(first) << ringbus::status_name(first.status()) << ": " << first.message();
    for (std::uint32_t id = 1; id < 20; id++) {
        PlanRequest request{{1.0 * id, 0.5}, id};
        PlanResponse response = client.call(request, 10s);
        EXPECT_EQ(response.id, id);
        EXPECT_EQ(response.steps, test::plan(request).steps);
    }
    EXPECT_EQ(server.finish(), 0);
    EXPECT_EQ(server.output(), "served 20\n");
}

TEST_F(RootTest, a_handler_that_throws_answers_zero_and_serve_once_rethrows) {
    ringbus::Node node("cpp-test", root.path());
    PlanService service(node, "planner");
    Planner client(node, "planner");
    std::thread caller([&] {
        EXPECT_EQ(client.call(PlanRequest{{1, 2}, 1}, 10s).steps, test::plan(PlanRequest{{1, 2}, 1}).steps);
        PlanResponse zero = client.call(PlanRequest{{1, 2}, 2}, 10s);  // the handler throws for it
        EXPECT_EQ(zero.steps, 0u);
        EXPECT_EQ(zero.id, 0u);
        EXPECT_EQ(client.call(PlanRequest{{1, 2}, 3}, 10s).id, 3u);  // the service goes on
    });
    int handled = 0, rethrown = 0;
    auto handler = [&handled](const PlanRequest& request) {
        handled++;
        if (request.id == 2) throw std::domain_error("no plan to goal 2");
        return test::plan(request);
    };
    while (handled < 3) {  // a round answers every request ready, the next calls' too if they come in time
        try {
            if (service.serve_once(10s, handler) == 0) break;  // no request within 10 s: the caller failed
        } catch (const std::domain_error& e) {
            EXPECT_STREQ(e.what(), "no plan to goal 2");
            rethrown++;
        }
    }
    caller.join();
    EXPECT_EQ(handled, 3);
    EXPECT_EQ(rethrown, 1);
    EXPECT_EQ(service.dropped(), 0u);
}

TEST_F(RootTest, calls_without_a_server_or_an_answer_fail_with_their_status) {
    ringbus::Node node("cpp-test", root.path());
    Planner client(node, "planner");
    PlanRequest request{{1, 2}, 3};
    std::string message;
    EXPECT_EQ(thrown([&] { client.call(request, 1s); }, &message), RB_ERR_SERVER_GONE);
    EXPECT_FALSE(message.empty());
    EXPECT_EQ(client.try_call(request, 1s).status(), RB_ERR_SERVER_GONE);
    {
        PlanService service(node, "planner");  // never serves
        EXPECT_EQ(thrown([&] { client.call(request, 10ms); }, &message), RB_TIMEOUT);
        EXPECT_NE(message.find("planner"), std::string::npos) << message;
        ringbus::Result<PlanResponse> late = client.try_call(request, 10ms);
        EXPECT_EQ(late.status(), RB_TIMEOUT);
        EXPECT_EQ(late.message(), "");
        EXPECT_EQ(thrown([&] { PlanService(node, "planner"); }), RB_ERR_TOO_MANY);  // one server at a time
    }
    EXPECT_EQ(client.try_call(request, 1s).status(), RB_ERR_SERVER_GONE);  // it left

    Planner moved = std::move(client);
    EXPECT_FALSE(client);  // NOLINT(bugprone-use-after-move): what a moved-from handle does
    EXPECT_EQ(client.try_call(request, 1s).status(), RB_ERR_INVALID_ARGUMENT);
    PlanService served(node, "planner");
    PlanService other = std::move(served);
    EXPECT_EQ(thrown([&] { served.serve_once(0s, test::plan); }), RB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(moved.try_call(request, 10ms).status(), RB_TIMEOUT);  // `other` serves, but not now
}

TEST_F(RootTest, a_client_of_another_request_type_throws_a_mismatch) {
    ringbus::Node node("cpp-test", root.path());
    PlanService service(node, "planner");
    std::string message;
    EXPECT_EQ(thrown([&] { ringbus::Client<std::uint32_t, PlanResponse>(node, "planner"); }, &message), RB_ERR_MISMATCH);
    EXPECT_NE(message.find("u32"), std::string::npos) << message;
}

}  // namespace
