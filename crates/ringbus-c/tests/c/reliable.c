/* Driven by tests/c_api.rs: `reliable ROOT` checks reliable subscribers from C. Under
 * RB_WHEN_FULL_FAIL, a publisher `depth` messages ahead of a reliable subscriber fails
 * with RB_ERR_FULL and the core's message, and has room again after each take; the
 * reliable subscriber gets every message in order while a lossy one beside it loses (and
 * counts) one. A bounded wait ends in RB_ERR_FULL too; a publisher with the default
 * options (wait as long as it takes) goes on once the subscriber takes. The bad option
 * values are refused with RB_ERR_INVALID_CONFIG. An alarm ends the program if a wait
 * never returns. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "ringbus.h"
#include "check.h"

static rb_status publish(rb_publisher *pub, uint64_t value) {
    return rb_publisher_publish_copy(pub, &value, sizeof value);
}

/* Takes the reliable subscriber's next message and checks its value. */
static void take(rb_subscriber *sub, uint64_t want) {
    rb_sample *s;
    OK(rb_subscriber_take(sub, &s));
    uint64_t got;
    CHECK(rb_sample_len(s) == sizeof got, "a sample of %zu bytes", rb_sample_len(s));
    memcpy(&got, rb_sample_data(s), sizeof got);
    CHECK(got == want, "took %llu, expected %llu", (unsigned long long)got, (unsigned long long)want);
    rb_sample_release(s);
}

static void fail_when_full(rb_node *node) {
    rb_topic_options o = {0};
    o.depth = 4;
    o.max_payload_bytes = 8;
    o.reliable = 1;
    rb_subscriber *reliable, *lossy;
    OK(rb_subscriber_open(node, "cmd", &o, &reliable));
    OK(rb_subscriber_open(node, "cmd", NULL, &lossy));
    rb_topic_options p = {0};
    p.when_full = RB_WHEN_FULL_FAIL;
    rb_publisher *pub;
    OK(rb_publisher_open(node, "cmd", &p, &pub));

    for (uint64_t i = 0; i < 4; i++) OK(publish(pub, i));
    expect(publish(pub, 4), RB_ERR_FULL, "a fifth message over a reliable subscriber of depth 4",
           "has not taken the message this loan would overwrite (4 messages back; waited ");
    CHECK(strstr(rb_last_error(), "larger depth"), "the message says what to do");
    void *chunk;
    expect(rb_publisher_loan(pub, 8, &chunk), RB_ERR_FULL, "a loan over the reliable subscriber", "reliable subscriber");
    CHECK(chunk == NULL, "a failed loan left *data set");

    take(reliable, 0); /* room for one more */
    OK(publish(pub, 4));
    expect(publish(pub, 5), RB_ERR_FULL, "one taken, one published", "4 messages back");
    for (uint64_t i = 1; i <= 4; i++) take(reliable, i);
    rb_sample *s;
    CHECK(rb_subscriber_take(reliable, &s) == RB_EMPTY, "more than was published");
    CHECK(rb_subscriber_lost(reliable) == 0 && rb_subscriber_taken(reliable) == 5, "reliable: taken %llu, lost %llu",
          (unsigned long long)rb_subscriber_taken(reliable), (unsigned long long)rb_subscriber_lost(reliable));
    OK(rb_publisher_loan(pub, 8, &chunk)); /* all taken: the whole log is free */
    OK(rb_publisher_discard(pub));

    /* The lossy subscriber was lapped by message 4, which overwrote message 0. */
    OK(rb_subscriber_take(lossy, &s));
    rb_sample_release(s);
    CHECK(rb_subscriber_lost(lossy) == 1, "the lossy subscriber lost %llu", (unsigned long long)rb_subscriber_lost(lossy));

    rb_publisher_close(pub);
    rb_subscriber_close(lossy);
    rb_subscriber_close(reliable);
}

static void bounded_wait(rb_node *node) {
    rb_topic_options o = {0};
    o.depth = 4;
    o.max_payload_bytes = 8;
    o.reliable = 1;
    rb_subscriber *sub;
    OK(rb_subscriber_open(node, "bounded", &o, &sub));
    rb_topic_options p = {0};
    p.when_full = RB_WHEN_FULL_WAIT;
    p.when_full_timeout_ns = 1000000; /* 1 ms */
    rb_publisher *pub;
    OK(rb_publisher_open(node, "bounded", &p, &pub));
    for (uint64_t i = 0; i < 4; i++) OK(publish(pub, i));
    expect(publish(pub, 4), RB_ERR_FULL, "a bounded wait that nobody ends", "has not taken the message");
    take(sub, 0);
    OK(publish(pub, 4));
    rb_publisher_close(pub);
    rb_subscriber_close(sub);
}

struct waiting {
    rb_publisher *pub;
    rb_status status;
};

static void *publish_fifth(void *arg) {
    struct waiting *w = arg;
    w->status = publish(w->pub, 4);
    return NULL;
}

/* Zero-initialized publisher options: the loan waits as long as it takes. Whether the take
 * comes before or during the thread's wait, its publish must succeed. */
static void default_waits(rb_node *node) {
    rb_topic_options o = {0};
    o.depth = 4;
    o.max_payload_bytes = 8;
    o.reliable = 1;
    rb_subscriber *sub;
    OK(rb_subscriber_open(node, "waits", &o, &sub));
    rb_publisher *pub;
    OK(rb_publisher_open(node, "waits", NULL, &pub));
    for (uint64_t i = 0; i < 4; i++) OK(publish(pub, i));
    struct waiting w = {pub, RB_ERR_PANIC};
    pthread_t thread;
    CHECK(pthread_create(&thread, NULL, publish_fifth, &w) == 0, "pthread_create");
    take(sub, 0);
    CHECK(pthread_join(thread, NULL) == 0, "pthread_join");
    CHECK(w.status == RB_OK, "the waiting publish returned %d", (int)w.status);
    for (uint64_t i = 1; i <= 4; i++) take(sub, i);
    CHECK(rb_subscriber_lost(sub) == 0, "lost %llu", (unsigned long long)rb_subscriber_lost(sub));
    rb_publisher_close(pub);
    rb_subscriber_close(sub);
}

static void bad_options(rb_node *node) {
    rb_subscriber *sub;
    rb_publisher *pub;
    rb_topic_options o = {0};
    o.reliable = 2;
    expect(rb_subscriber_open(node, "bad", &o, &sub), RB_ERR_INVALID_CONFIG, "reliable = 2", "reliable = 2");
    o = (rb_topic_options){0};
    o.reliable = 1;
    o.keep_last = 2;
    expect(rb_subscriber_open(node, "bad", &o, &sub), RB_ERR_INVALID_CONFIG, "reliable with keep_last", "keep_last");
    CHECK(sub == NULL, "a failed open left *out_subscriber set");
    o = (rb_topic_options){0};
    o.when_full = 7;
    expect(rb_publisher_open(node, "bad", &o, &pub), RB_ERR_INVALID_CONFIG, "when_full = 7",
           "when_full = 7 is not an rb_when_full value");
    o = (rb_topic_options){0};
    o.when_full = RB_WHEN_FULL_FAIL;
    o.when_full_timeout_ns = 5;
    expect(rb_publisher_open(node, "bad", &o, &pub), RB_ERR_INVALID_CONFIG, "a timeout with RB_WHEN_FULL_FAIL",
           "RB_WHEN_FULL_FAIL, which never waits");
    CHECK(pub == NULL, "a failed open left *out_publisher set");
}

int main(int argc, char **argv) {
    CHECK(argc == 3 && strcmp(argv[1], "reliable") == 0, "usage: %s reliable ROOT", argv[0]);
    alarm(120); /* a wait that never returns ends the program (SIGALRM) */
    rb_node *node;
    OK(rb_node_open("c-reliable", argv[2], &node));
    fail_when_full(node);
    bounded_wait(node);
    default_waits(node);
    bad_options(node);
    rb_node_close(node);
    printf("reliable ok\n");
    return 0;
}
