// Payload types: what may travel through shared memory, and the name each one goes by.
#ifndef RINGBUS_PAYLOAD_HPP
#define RINGBUS_PAYLOAD_HPP

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

namespace ringbus {

/// The name of a payload type, the same in every process and language that uses it
/// (`payload_name<Pose>::value`). Declare yours at global scope with
/// `RINGBUS_PAYLOAD(robot::Pose, "robot::Pose")`. The fundamental types carry the Rust
/// names of the same types ("u32", "f64", ...), so that a Rust program declaring
/// `payload_type::<u32>()` and a C++ one using `std::uint32_t` name the same thing;
/// `std::byte` is "bytes", an untyped topic.
template <class T>
struct payload_name {};

namespace detail {
template <class T, class = void>
struct has_payload_name : std::false_type {};
template <class T>
struct has_payload_name<T, std::void_t<decltype(payload_name<T>::value)>> : std::true_type {};
}  // namespace detail

/// Whether `T` may be a payload: its bytes are the whole value (trivially copyable), laid
/// out as in C (standard layout), and it has a payload_name.
template <class T>
inline constexpr bool is_payload_v = std::is_trivially_copyable_v<T> && std::is_standard_layout_v<T> &&
                                     !std::is_pointer_v<T> && detail::has_payload_name<T>::value;

namespace detail {

/// The compile-time checks of every type a publisher, subscriber, loan or sample carries.
template <class T>
constexpr bool check_payload() {
    static_assert(!std::is_const_v<T> && !std::is_volatile_v<T> && !std::is_reference_v<T>,
                  "ringbus: a payload type is a plain object type (not const, volatile or a reference)");
    static_assert(std::is_trivially_copyable_v<T>,
                  "ringbus: a payload type must be trivially copyable (no std::string, std::vector or "
                  "pointers to the heap: another process cannot follow them); use fixed-size arrays");
    static_assert(std::is_standard_layout_v<T>,
                  "ringbus: a payload type must be standard layout (a plain struct, as in C)");
    static_assert(!std::is_pointer_v<T>, "ringbus: a pointer means nothing in another process");
    static_assert(has_payload_name<T>::value,
                  "ringbus: this payload type has no name: declare one at global scope with "
                  "RINGBUS_PAYLOAD(Type, \"Type\") (or specialise ringbus::payload_name<Type>)");
    return true;
}

/// `payload_name<T>` as a NUL-terminated string: the type name a queue or service gives
/// the C API, which checks it (with `sizeof` and `alignof`) against every other opener's.
template <class T>
std::string type_name() {
    static_assert(check_payload<T>());
    return std::string(payload_name<T>::value);
}

/// `type_name<T>()` in static storage, for the C structs that keep a `const char*`.
template <class T>
const char* static_type_name() {
    static const std::string name = type_name<T>();
    return name.c_str();
}

}  // namespace detail
}  // namespace ringbus

/// Names a payload type: `RINGBUS_PAYLOAD(robot::Pose, "robot::Pose");` at global scope
/// (outside every namespace), after the type's definition.
#define RINGBUS_PAYLOAD(Type, Name)                                                                                    \
    template <>                                                                                                        \
    struct ringbus::payload_name<Type> {                                                                               \
        static constexpr std::string_view value = Name;                                                                \
    }

RINGBUS_PAYLOAD(std::byte, "bytes");
RINGBUS_PAYLOAD(bool, "bool");
RINGBUS_PAYLOAD(char, "u8");
RINGBUS_PAYLOAD(std::uint8_t, "u8");
RINGBUS_PAYLOAD(std::int8_t, "i8");
RINGBUS_PAYLOAD(std::uint16_t, "u16");
RINGBUS_PAYLOAD(std::int16_t, "i16");
RINGBUS_PAYLOAD(std::uint32_t, "u32");
RINGBUS_PAYLOAD(std::int32_t, "i32");
RINGBUS_PAYLOAD(std::uint64_t, "u64");
RINGBUS_PAYLOAD(std::int64_t, "i64");
RINGBUS_PAYLOAD(float, "f32");
RINGBUS_PAYLOAD(double, "f64");

#endif  // RINGBUS_PAYLOAD_HPP
