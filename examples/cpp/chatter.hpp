// The message of the talker and the listener.
#ifndef RINGBUS_EXAMPLE_CHATTER_HPP
#define RINGBUS_EXAMPLE_CHATTER_HPP

#include <cstdint>

#include "ringbus.hpp"

namespace examples {

struct Chatter {
    std::uint32_t seq;
    std::uint32_t last;  // 1 in the talker's last message
    char text[56];
};

/// Both sides describe the topic alike (a setting that differs from the topic's fails).
inline ringbus::TopicOptions chatter_options() { return ringbus::TopicOptions().max_payload_bytes(sizeof(Chatter)); }

}  // namespace examples

RINGBUS_PAYLOAD(examples::Chatter, "examples::Chatter");

#endif  // RINGBUS_EXAMPLE_CHATTER_HPP
