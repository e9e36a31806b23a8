// ringbus C++ API: zero-copy publish/subscribe, command queues and services between
// processes on one Linux machine.
//
// Header-only, C++17, over the C API of libringbus_c.so (ringbus.h): RAII handles that
// are move-only (a moved-from handle is empty and safe to destroy), ringbus::Error for
// failures (the C status and message), and try_* variants that never throw. Link with
// -lringbus_c, or use the CMake target ringbus::ringbus. Guide: docs/src/reference/cpp.md.
#ifndef RINGBUS_HPP
#define RINGBUS_HPP

#include "ringbus.h"
#include "ringbus/error.hpp"
#include "ringbus/latch.hpp"
#include "ringbus/loan.hpp"
#include "ringbus/node.hpp"
#include "ringbus/options.hpp"
#include "ringbus/payload.hpp"
#include "ringbus/publisher.hpp"
#include "ringbus/queue.hpp"
#include "ringbus/result.hpp"
#include "ringbus/sample.hpp"
#include "ringbus/semaphore.hpp"
#include "ringbus/service.hpp"
#include "ringbus/span.hpp"
#include "ringbus/subscriber.hpp"
#include "ringbus/timeout.hpp"
#include "ringbus/waitset.hpp"
#include "ringbus/word.hpp"

#endif  // RINGBUS_HPP
