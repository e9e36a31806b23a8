/* The smallest ringbus program in C: one process publishes a message in place (zero copy)
 * and takes it back. Real programs put the publisher and the subscriber in different
 * processes; nothing else changes.
 *
 *   cargo build --release -p ringbus-c
 *   cc crates/ringbus-c/examples/hello.c -Icrates/ringbus-c/include \
 *      -Ltarget/release -lringbus_c -Wl,-rpath,"$PWD/target/release" -o hello && ./hello
 */
#include <stdio.h>
#include <string.h>
#include "ringbus.h"

static int fail(const char *what) {
    fprintf(stderr, "%s: %s\n", what, rb_last_error());
    return 1;
}

int main(void) {
    rb_node *node;
    if (rb_node_open("hello", NULL, &node) != RB_OK) return fail("rb_node_open");

    rb_topic_options options = {0};
    options.max_payload_bytes = 256;
    rb_subscriber *subscriber;
    if (rb_subscriber_open(node, "greetings", &options, &subscriber) != RB_OK) return fail("rb_subscriber_open");
    rb_publisher *publisher;
    if (rb_publisher_open(node, "greetings", &options, &publisher) != RB_OK) return fail("rb_publisher_open");

    const char text[] = "hello from C";
    void *chunk;
    if (rb_publisher_loan(publisher, sizeof text, &chunk) != RB_OK) return fail("rb_publisher_loan");
    memcpy(chunk, text, sizeof text); /* written straight into shared memory */
    if (rb_publisher_publish(publisher, sizeof text) != RB_OK) return fail("rb_publisher_publish");

    rb_sample *sample;
    if (rb_subscriber_receive(subscriber, 1000000000, &sample) != RB_OK) return fail("rb_subscriber_receive");
    printf("received %zu bytes: %s (ringbus %s)\n", rb_sample_len(sample), (const char *)rb_sample_data(sample),
           rb_version());
    rb_sample_release(sample);

    rb_publisher_close(publisher);
    rb_subscriber_close(subscriber);
    rb_node_close(node);
    return 0;
}
