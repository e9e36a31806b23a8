/* Driven by tests/c_api.rs: `memory ROOT` checks a topic's memory settings (pool_bytes,
 * preallocate: defaults, round trip, mismatches, bad values), what a publisher holds
 * (rb_publisher_reserved_payload_bytes), a loan over pool_bytes (RB_ERR_POOL_BUDGET and its
 * message), and typed arrays: 1000 points of four floats lent, published and read in
 * place, and the element sizes, alignments and counts that are refused. */
#include <stdalign.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "ringbus.h"
#include "check.h"

#define MIB ((uint64_t)1 << 20)

struct point {
    float x, y, z, w;
};

static void settings(rb_node *node) {
    rb_topic_options o = {0};
    o.max_payload_bytes = MIB;
    o.chunks = 20;
    o.depth = 8;
    o.preallocate = RB_PREALLOCATE_YES;
    rb_publisher *pub;
    OK(rb_publisher_open(node, "fixed", &o, &pub));
    CHECK(rb_publisher_reserved_payload_bytes(pub) == 20 * MIB, "a preallocated pool of 20 x 1 MiB holds %llu bytes",
          (unsigned long long)rb_publisher_reserved_payload_bytes(pub));

    rb_subscriber *sub;
    rb_topic_options same = {0};
    same.preallocate = RB_PREALLOCATE_YES;
    same.pool_bytes = 1 << 30; /* the default for a 1 MiB max_payload_bytes */
    OK(rb_subscriber_open(node, "fixed", &same, &sub));
    rb_subscriber_close(sub);
    rb_topic_options other = {0};
    other.preallocate = RB_PREALLOCATE_NO;
    expect(rb_subscriber_open(node, "fixed", &other, &sub), RB_ERR_MISMATCH, "preallocate NO on a preallocated topic",
           "preallocate = 1, but 0 was requested");
    other = (rb_topic_options){0};
    other.pool_bytes = 2 * MIB;
    expect(rb_subscriber_open(node, "fixed", &other, &sub), RB_ERR_MISMATCH, "another pool_bytes", "pool_bytes");
    other = (rb_topic_options){0};
    other.preallocate = 7;
    expect(rb_subscriber_open(node, "fixed", &other, &sub), RB_ERR_INVALID_CONFIG, "preallocate = 7",
           "preallocate = 7 is not an rb_preallocate value");
    other = (rb_topic_options){0};
    other.max_payload_bytes = 4 * MIB;
    other.pool_bytes = MIB;
    rb_publisher *refused;
    expect(rb_publisher_open(node, "small-pool", &other, &refused), RB_ERR_INVALID_CONFIG,
           "pool_bytes < max_payload_bytes", "pool_bytes");
    CHECK(refused == NULL, "a failed open left *out_publisher set");
    CHECK(rb_publisher_reserved_payload_bytes(NULL) == 0, "NULL publisher");
    rb_publisher_close(pub);
}

static void pool_budget(rb_node *node) {
    rb_topic_options o = {0};
    o.max_payload_bytes = 4 * MIB;
    o.pool_bytes = 4 * MIB;
    rb_publisher *pub;
    OK(rb_publisher_open(node, "budget", &o, &pub));
    CHECK(rb_publisher_reserved_payload_bytes(pub) < MIB, "an on-demand publisher holds %llu bytes before any loan",
          (unsigned long long)rb_publisher_reserved_payload_bytes(pub));
    void *chunk;
    OK(rb_publisher_loan(pub, 3 * MIB, &chunk));
    memset(chunk, 1, 3 * MIB);
    OK(rb_publisher_publish(pub, 3 * MIB)); /* stays in the log, holding its memory */
    CHECK(rb_publisher_reserved_payload_bytes(pub) >= 3 * MIB, "a 3 MiB message in the log: %llu bytes held",
          (unsigned long long)rb_publisher_reserved_payload_bytes(pub));
    expect(rb_publisher_loan(pub, 2 * MIB, &chunk), RB_ERR_POOL_BUDGET, "a loan over pool_bytes",
           "a loan of 2097152 bytes would take this publisher's payload memory to");
    CHECK(strstr(rb_last_error(), "over the topic's pool_bytes of 4194304"), "the message names the budget");
    CHECK(strstr(rb_last_error(), "larger pool_bytes"), "the message says what to do");
    CHECK(chunk == NULL, "a failed loan left *data set");
    OK(rb_publisher_loan(pub, 512 * 1024, &chunk)); /* a smaller one still fits */
    OK(rb_publisher_publish(pub, 512 * 1024));
    CHECK(rb_publisher_reserved_payload_bytes(pub) <= 4 * MIB, "%llu bytes held over a 4 MiB pool",
          (unsigned long long)rb_publisher_reserved_payload_bytes(pub));
    rb_publisher_close(pub);
}

static void arrays(rb_node *node) {
    rb_topic_options o = {0};
    o.max_payload_bytes = 64 * 1024;
    rb_publisher *pub;
    rb_subscriber *sub;
    OK(rb_publisher_open(node, "points", &o, &pub));
    OK(rb_subscriber_open(node, "points", NULL, &sub));

    struct point *points;
    OK(rb_publisher_loan_array(pub, sizeof(struct point), 1000, (void **)&points));
    CHECK((uintptr_t)points % alignof(struct point) == 0, "the loan is not aligned for a point");
    for (int i = 0; i < 1000; i++) points[i] = (struct point){(float)i, 2.0f * (float)i, 0.5f, 1.0f};
    OK(rb_publisher_publish(pub, 1000 * sizeof(struct point)));

    rb_sample *s;
    OK(rb_subscriber_take(sub, &s));
    const struct point *got;
    size_t count;
    OK(rb_sample_array(s, sizeof(struct point), alignof(struct point), (const void **)&got, &count));
    CHECK(count == 1000, "%zu points", count);
    CHECK((const void *)got == rb_sample_data(s), "the array is not the sample's bytes in place");
    for (size_t i = 0; i < count; i++) {
        CHECK(got[i].x == (float)i && got[i].y == 2.0f * (float)i && got[i].z == 0.5f && got[i].w == 1.0f,
              "point %zu is (%g, %g, %g, %g)", i, got[i].x, got[i].y, got[i].z, got[i].w);
    }
    const float *floats;
    OK(rb_sample_array(s, sizeof(float), alignof(float), (const void **)&floats, &count));
    CHECK(count == 4000 && floats[4 * 999 + 1] == 1998.0f, "as floats: %zu", count);

    /* 16000 bytes are not a whole number of 12-byte elements. */
    expect(rb_sample_array(s, 12, 4, (const void **)&got, &count), RB_ERR_INVALID_ARGUMENT, "12-byte elements",
           "the payload is 16000 bytes, not a whole number of elements (12 bytes each)");
    CHECK(got == NULL && count == 0, "a refused array left *data or *count set");
    /* Twice the payload's own alignment: misaligned whatever the address. */
    uintptr_t address = (uintptr_t)rb_sample_data(s);
    size_t too_strict = (size_t)(address & (~address + 1)) * 2;
    expect(rb_sample_array(s, 16, too_strict, (const void **)&got, &count), RB_ERR_INVALID_ARGUMENT,
           "a stricter alignment than the payload's", "not aligned to");
    expect(rb_sample_array(s, 0, 4, (const void **)&got, &count), RB_ERR_INVALID_ARGUMENT, "element_size 0",
           "element_size 0");
    expect(rb_sample_array(s, 16, 3, (const void **)&got, &count), RB_ERR_INVALID_ARGUMENT, "element_align 3",
           "power of two");
    expect(rb_sample_array(s, 16, 4, NULL, &count), RB_ERR_INVALID_ARGUMENT, "NULL data", "data is NULL");
    expect(rb_sample_array(s, 16, 4, (const void **)&got, NULL), RB_ERR_INVALID_ARGUMENT, "NULL count", "count is NULL");
    expect(rb_sample_array(NULL, 16, 4, (const void **)&got, &count), RB_ERR_INVALID_ARGUMENT, "NULL sample",
           "sample is NULL");
    rb_sample_release(s);

    void *chunk;
    expect(rb_publisher_loan_array(pub, 8, SIZE_MAX / 4, &chunk), RB_ERR_TOO_LARGE, "a count that overflows size_t",
           "more bytes than size_t holds");
    expect(rb_publisher_loan_array(pub, 16, 4097, &chunk), RB_ERR_TOO_LARGE, "an array over max_payload_bytes",
           "max_payload_bytes of 65536");
    expect(rb_publisher_loan_array(pub, 0, 4, &chunk), RB_ERR_INVALID_ARGUMENT, "element_size 0", "element_size is 0");
    OK(rb_publisher_loan_array(pub, sizeof(double), 0, &chunk)); /* an empty array */
    OK(rb_publisher_publish(pub, 0));
    OK(rb_subscriber_take(sub, &s));
    OK(rb_sample_array(s, sizeof(double), alignof(double), (const void **)&floats, &count));
    CHECK(count == 0, "an empty array has %zu elements", count);
    rb_sample_release(s);
    rb_subscriber_close(sub);
    rb_publisher_close(pub);
}

int main(int argc, char **argv) {
    CHECK(argc == 3 && strcmp(argv[1], "memory") == 0, "usage: %s memory ROOT", argv[0]);
    rb_node *node;
    OK(rb_node_open("c-memory", argv[2], &node));
    settings(node);
    pool_budget(node);
    arrays(node);
    rb_node_close(node);
    printf("memory ok\n");
    return 0;
}
