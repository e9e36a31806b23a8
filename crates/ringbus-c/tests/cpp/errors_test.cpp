// Failures: exceptions carry the C status and its message; try_* variants never throw.
#include <string>

#include "support.hpp"

using namespace std::chrono_literals;

namespace {

using test::RootTest;
using test::thrown;

TEST_F(RootTest, opening_a_topic_with_another_setting_throws_a_mismatch) {
    ringbus::Node node("cpp-test", root.path());
    ringbus::Publisher<test::Pose> publisher(node, "pose", ringbus::TopicOptions().depth(8));
    std::string message;
    EXPECT_EQ(thrown([&] { ringbus::Subscriber<test::Pose>(node, "pose", ringbus::TopicOptions().depth(16)); }, &message),
              RB_ERR_MISMATCH);
    EXPECT_NE(message.find("depth"), std::string::npos) << message;
}

TEST_F(RootTest, a_typed_topic_refuses_another_type_when_it_is_opened) {
    ringbus::Node node("cpp-test", root.path());
    ringbus::Publisher<test::Pose> publisher(node, "pose", ringbus::TopicOptions().payload_type<test::Pose>());
    std::string message;
    EXPECT_EQ(thrown([&] { ringbus::Subscriber<float>(node, "pose", ringbus::TopicOptions().payload_type<float>()); },
                     &message),
              RB_ERR_MISMATCH);
    EXPECT_NE(message.find("test::Pose"), std::string::npos) << message;
    EXPECT_NE(message.find("f32"), std::string::npos) << message;
    ringbus::Subscriber<test::Pose> subscriber(node, "pose", ringbus::TopicOptions().payload_type<test::Pose>());
    auto loan = publisher.loan();
    loan.value() = test::Pose{};
    loan.publish();
    EXPECT_TRUE(subscriber.take());
}

TEST_F(RootTest, a_message_of_another_type_throws_naming_the_type) {
    ringbus::Node node("cpp-test", root.path());
    ringbus::Publisher<std::byte> publisher(node, "pose");
    ringbus::Subscriber<test::Pose> subscriber(node, "pose");
    std::string text = "five!";
    publisher.publish_copy(ringbus::span<const std::byte>(reinterpret_cast<const std::byte*>(text.data()), text.size()));
    auto sample = subscriber.take();
    ASSERT_TRUE(sample);
    std::string message;
    EXPECT_EQ(thrown([&] { (void)sample->value(); }, &message), RB_ERR_INVALID_ARGUMENT);
    EXPECT_NE(message.find("test::Pose"), std::string::npos) << message;
    EXPECT_EQ(sample->text(), "five!");  // the bytes are still there
}

TEST_F(RootTest, bad_topic_names_and_sizes_throw_their_status) {
    ringbus::Node node("cpp-test", root.path());
    EXPECT_EQ(thrown([&] { ringbus::Publisher<test::Pose>(node, "bad topic!"); }), RB_ERR_INVALID_NAME);
    ringbus::Publisher<test::Pose> publisher(node, "pose", ringbus::TopicOptions().max_payload_bytes(4096));
    std::string message;
    EXPECT_EQ(thrown([&] { publisher.loan(1000); }, &message), RB_ERR_TOO_LARGE);  // 32000 bytes
    EXPECT_FALSE(message.empty());
    ringbus::Subscriber<test::Pose> poller(node, "pose", ringbus::TopicOptions().wake(ringbus::Wake::never));
    EXPECT_EQ(thrown([&] { poller.receive(1ms); }), RB_ERR_POLLING_ONLY);
}

TEST_F(RootTest, try_variants_report_outcomes_and_failures_without_throwing) {
    ringbus::Node node("cpp-test", root.path());
    ringbus::Publisher<test::Pose> publisher(node, "pose", ringbus::TopicOptions().max_held(2));
    ringbus::Subscriber<test::Pose> subscriber(node, "pose");

    ringbus::Result<ringbus::Sample<test::Pose>> nothing = subscriber.try_take();
    EXPECT_FALSE(nothing);
    EXPECT_EQ(nothing.status(), RB_EMPTY);
    EXPECT_EQ(nothing.message(), "");
    EXPECT_EQ(subscriber.try_receive(1ms).status(), RB_TIMEOUT);
    EXPECT_FALSE(subscriber.receive(1ms));

    auto loan = publisher.try_loan();
    ASSERT_TRUE(loan) << loan.message();
    auto second = publisher.try_loan();  // one loan at a time
    EXPECT_EQ(second.status(), RB_ERR_INVALID_ARGUMENT);
    EXPECT_FALSE(second.message().empty());
    EXPECT_EQ(thrown([&] { second.value(); }), RB_ERR_INVALID_ARGUMENT);
    (*loan)->seq = 1;
    EXPECT_EQ(loan->try_publish(), RB_OK);
    EXPECT_EQ(publisher.try_publish_copy(test::Pose{0, 0, 0, 2, 0}), RB_OK);
    EXPECT_EQ(publisher.try_publish_copy(test::Pose{0, 0, 0, 3, 0}), RB_OK);

    auto one = subscriber.try_take();
    auto two = subscriber.try_take();
    ASSERT_TRUE(one && two);
    EXPECT_EQ((*one)->seq, 1u);
    EXPECT_EQ((*two)->seq, 2u);
    auto three = subscriber.try_take();  // max_held is 2
    EXPECT_EQ(three.status(), RB_ERR_HELD_LIMIT);
    EXPECT_EQ(thrown([&] { subscriber.take(); }), RB_ERR_HELD_LIMIT);
    one = subscriber.try_take();  // releases the first sample first
    EXPECT_EQ(one.status(), RB_ERR_HELD_LIMIT);
}

TEST_F(RootTest, a_failed_publish_leaves_the_loan_empty) {
    ringbus::Node node("cpp-test", root.path());
    ringbus::Publisher<test::Pose> publisher(node, "pose");
    ringbus::Loan<test::Pose> loan = publisher.loan();
    EXPECT_EQ(thrown([&] { loan.publish(2); }), RB_ERR_INVALID_ARGUMENT);  // more than was lent
    EXPECT_FALSE(loan);
    EXPECT_TRUE(publisher.loan());  // the chunk went back
}

}  // namespace
