/* The test programs' checks: on failure, say where, what and ringbus's last error, then
 * exit 1 (the Rust test that ran the program reports it). */
#ifndef RINGBUS_TEST_CHECK_H
#define RINGBUS_TEST_CHECK_H

#include <stdio.h>
#include <stdlib.h>
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

#endif
