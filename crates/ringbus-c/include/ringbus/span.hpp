// ringbus::span<T>: std::span in C++20, and a minimal stand-in for C++17.
#ifndef RINGBUS_SPAN_HPP
#define RINGBUS_SPAN_HPP

#include <cstddef>

#if __cplusplus >= 202002L && __has_include(<span>)
#include <span>
namespace ringbus {
template <class T>
using span = std::span<T>;
}  // namespace ringbus
#else
namespace ringbus {

/// A view of `size()` contiguous `T`s it does not own (what C++20 calls std::span).
template <class T>
class span {
public:
    constexpr span() noexcept = default;
    constexpr span(T* data, std::size_t size) noexcept : data_(data), size_(size) {}

    constexpr T* data() const noexcept { return data_; }
    constexpr std::size_t size() const noexcept { return size_; }
    constexpr std::size_t size_bytes() const noexcept { return size_ * sizeof(T); }
    constexpr bool empty() const noexcept { return size_ == 0; }
    constexpr T& operator[](std::size_t i) const noexcept { return data_[i]; }
    constexpr T* begin() const noexcept { return data_; }
    constexpr T* end() const noexcept { return data_ + size_; }
    constexpr T& front() const noexcept { return data_[0]; }
    constexpr T& back() const noexcept { return data_[size_ - 1]; }

private:
    T* data_ = nullptr;
    std::size_t size_ = 0;
};

}  // namespace ringbus
#endif

#endif  // RINGBUS_SPAN_HPP
