// ringbus::detail::Owned: a C handle owned by one C++ object, closed by its destructor.
#ifndef RINGBUS_HANDLE_HPP
#define RINGBUS_HANDLE_HPP

#include <memory>

namespace ringbus {
namespace detail {

template <class T, void (*Close)(T*)>
struct Closer {
    void operator()(T* handle) const noexcept { Close(handle); }
};

/// Move-only; a moved-from handle is NULL, which every C close function accepts and every
/// other C function refuses with RB_ERR_INVALID_ARGUMENT ("... is NULL").
template <class T, void (*Close)(T*)>
using Owned = std::unique_ptr<T, Closer<T, Close>>;

}  // namespace detail
}  // namespace ringbus

#endif  // RINGBUS_HANDLE_HPP
