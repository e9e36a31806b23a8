// RAII: what a handle holds is released when it goes, moved-from handles are empty and
// safe, and a sample outlives its subscriber.
#include <cstring>
#include <utility>

#include "support.hpp"

using namespace std::chrono_literals;

namespace {

using test::RootTest;

TEST_F(RootTest, a_sample_is_held_until_it_goes_out_of_scope) {
    ringbus::Node node("cpp-test", root.path());
    ringbus::Publisher<test::Pose> publisher(node, "pose");
    ringbus::Subscriber<test::Pose> subscriber(node, "pose");
    publisher.publish_copy(test::Pose{1, 2, 3, 4, 0});
    {
        auto sample = subscriber.take();
        ASSERT_TRUE(sample);
        EXPECT_EQ(test::json_number(test::topic_info(root.path(), "pose"), "held"), 1);
    }
    EXPECT_EQ(test::json_number(test::topic_info(root.path(), "pose"), "held"), 0);
}

TEST_F(RootTest, a_sample_outlives_its_subscriber_and_publisher) {
    ringbus::Node node("cpp-test", root.path());
    std::optional<ringbus::Sample<test::Pose>> sample;
    {
        ringbus::Publisher<test::Pose> publisher(node, "pose");
        ringbus::Subscriber<test::Pose> subscriber(node, "pose");
        publisher.publish_copy(test::Pose{1, 2, 3, 42, 0});
        sample = subscriber.take();
    }
    ASSERT_TRUE(sample);
    EXPECT_EQ((*sample)->seq, 42u);
}

TEST_F(RootTest, a_loan_dropped_unpublished_gives_its_chunk_back_and_sends_nothing) {
    ringbus::Node node("cpp-test", root.path());
    ringbus::Publisher<test::Pose> publisher(node, "pose");
    ringbus::Subscriber<test::Pose> subscriber(node, "pose");
    {
        ringbus::Loan<test::Pose> loan = publisher.loan();
        loan->seq = 7;
    }
    // One loan at a time: this one is refused unless the first went back.
    ringbus::Loan<test::Pose> again = publisher.loan();
    EXPECT_TRUE(again);
    EXPECT_FALSE(subscriber.take());
}

TEST_F(RootTest, moved_from_handles_are_empty_safe_and_refused) {
    ringbus::Node first("cpp-test", root.path());
    ringbus::Node node = std::move(first);
    EXPECT_FALSE(first);
    EXPECT_TRUE(node);

    ringbus::Publisher<test::Pose> moved_publisher(node, "pose");
    ringbus::Publisher<test::Pose> publisher = std::move(moved_publisher);
    EXPECT_FALSE(moved_publisher);
    try {
        moved_publisher.publish_copy(test::Pose{});
        FAIL() << "a moved-from publisher published";
    } catch (const ringbus::Error& e) {
        EXPECT_EQ(e.status(), RB_ERR_INVALID_ARGUMENT);
        EXPECT_NE(std::string(e.what()).find("NULL"), std::string::npos) << e.what();
    }

    ringbus::Subscriber<test::Pose> subscriber(node, "pose");
    ringbus::Loan<test::Pose> first_loan = publisher.loan();
    ringbus::Loan<test::Pose> loan = std::move(first_loan);
    EXPECT_FALSE(first_loan);
    loan->seq = 9;
    loan.publish();
    EXPECT_FALSE(loan);

    auto taken = subscriber.take();
    ASSERT_TRUE(taken);
    ringbus::Sample<test::Pose> sample = std::move(*taken);
    EXPECT_FALSE(*taken);
    EXPECT_EQ(sample->seq, 9u);
    EXPECT_TRUE(taken->bytes().empty());  // an empty sample has no bytes
    std::string message;
    try {
        (void)taken->value();
    } catch (const ringbus::Error& e) {
        EXPECT_EQ(e.status(), RB_ERR_INVALID_ARGUMENT);
        message = e.what();
    }
    EXPECT_NE(message.find("empty"), std::string::npos) << message;
}

TEST_F(RootTest, move_assignment_closes_what_the_target_held) {
    ringbus::Node node("cpp-test", root.path());
    ringbus::Subscriber<test::Pose> a(node, "pose");
    ringbus::Subscriber<test::Pose> b(node, "pose");
    EXPECT_EQ(test::count(test::topic_info(root.path(), "pose"), "\"lag\":"), 2u);  // a field of subscribers only
    a = std::move(b);
    EXPECT_FALSE(b);
    EXPECT_EQ(test::count(test::topic_info(root.path(), "pose"), "\"lag\":"), 1u);
}

TEST_F(RootTest, a_node_may_go_before_what_it_opened) {
    std::optional<ringbus::Node> node(std::in_place, "cpp-test", root.path());
    ringbus::Publisher<std::uint32_t> publisher(*node, "count");
    ringbus::Subscriber<std::uint32_t> subscriber(*node, "count");
    node.reset();
    publisher.publish_copy(5u);
    EXPECT_EQ(subscriber.take()->value(), 5u);
}

TEST_F(RootTest, arrays_travel_in_place) {
    ringbus::Node node("cpp-test", root.path());
    ringbus::Publisher<float> publisher(node, "scan");
    ringbus::Subscriber<float> subscriber(node, "scan");
    ringbus::Loan<float> loan = publisher.loan(360);
    for (std::size_t i = 0; i < loan.size(); i++) loan.array()[i] = 0.5f * static_cast<float>(i);
    loan.publish();
    auto sample = subscriber.take();
    ASSERT_TRUE(sample);
    ringbus::span<const float> ranges = sample->array();
    ASSERT_EQ(ranges.size(), 360u);
    EXPECT_EQ(ranges[359], 179.5f);
    EXPECT_EQ(sample->bytes().size(), 360 * sizeof(float));
}

}  // namespace
