/* The test programs' checks: on failure, say where, what and ringbus's last error, then
 * exit 1 (the Rust test that ran the program reports it). */
#ifndef RINGBUS_TEST_CHECK_H
#define RINGBUS_TEST_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ringbus.h"

#define CHECK(cond, ...)                                                   \
    do {                                                                   \
        if (!(cond)) {                                                     \
            fprintf(stderr, "%s:%d: check failed: %s\n  ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                  \
            fprintf(stderr, "\n  last error: %s\n", rb_last_error());     \
            exit(1);                                                       \
        }                                                                  \
    } while (0)

#define OK(call) CHECK((call) == RB_OK, "%s", #call)

/* A call that must return `want` and, if `in_message` is not NULL, leave a last error
 * that mentions it. */
static inline void expect(rb_status got, rb_status want, const char *what, const char *in_message) {
    CHECK(got == want, "%s: status %d, expected %d", what, (int)got, (int)want);
    if (in_message) CHECK(strstr(rb_last_error(), in_message), "%s: the message does not mention \"%s\"", what, in_message);
}

#endif
