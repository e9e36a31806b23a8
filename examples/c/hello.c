/* hello: publish/subscribe between two processes in C. The parent subscribes, then forks
 * a child that publishes five greetings and a "bye", each written in place in shared
 * memory (zero copy); the parent sleeps in rb_subscriber_receive and reads each message
 * where it lies.
 *
 *   cargo build -p ringbus-c && make -C examples/c && target/examples/c/hello
 *
 * Uses $RINGBUS_ROOT if set, else a directory of its own under /dev/shm, removed at the end.
 */
#define _DEFAULT_SOURCE 1
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "ringbus.h"

static const int64_t TIMEOUT_NS = 10LL * 1000 * 1000 * 1000;

static int fail(const char *what) {
    fprintf(stderr, "%s: %s\n", what, rb_last_error());
    return 1;
}

/* Both sides describe the topic alike (a setting that differs from the topic's fails). */
static rb_topic_options topic_options(void) {
    rb_topic_options options = {0}; /* every field 0: the default, or what the topic has */
    options.max_payload_bytes = 256;
    return options;
}

/* The child: its own node and publisher (nothing opened before the fork is used here). */
static int publish(const char *root) {
    rb_node *node;
    rb_publisher *publisher;
    rb_topic_options options = topic_options();
    if (rb_node_open("hello-publisher", root, &node) != RB_OK) return fail("rb_node_open");
    if (rb_publisher_open(node, "hello", &options, &publisher) != RB_OK) return fail("rb_publisher_open");
    for (int i = 0; i <= 5; i++) {
        char text[32];
        int len = i < 5 ? snprintf(text, sizeof text, "hello %d", i) : snprintf(text, sizeof text, "bye");
        void *chunk;
        if (rb_publisher_loan(publisher, (size_t)len, &chunk) != RB_OK) return fail("rb_publisher_loan");
        memcpy(chunk, text, (size_t)len); /* written straight into shared memory */
        if (rb_publisher_publish(publisher, (size_t)len) != RB_OK) return fail("rb_publisher_publish");
        usleep(10 * 1000);
    }
    rb_publisher_close(publisher); /* subscribers can still take what it published */
    rb_node_close(node);
    return 0;
}

static int subscribe(const char *root) {
    rb_node *node;
    rb_subscriber *subscriber;
    rb_topic_options options = topic_options();
    if (rb_node_open("hello-subscriber", root, &node) != RB_OK) return fail("rb_node_open");
    if (rb_subscriber_open(node, "hello", &options, &subscriber) != RB_OK) return fail("rb_subscriber_open");
    fflush(stdout); /* the child must not print what the parent buffered */
    pid_t child = fork(); /* after subscribing: the subscriber gets every message */
    if (child < 0) return fail("fork");
    if (child == 0) _exit(publish(root));
    int done = 0, failed = 0;
    while (!done && !failed) {
        rb_sample *sample;
        if (rb_subscriber_receive(subscriber, TIMEOUT_NS, &sample) != RB_OK) {
            failed = fail("rb_subscriber_receive");
            break;
        }
        const char *text = rb_sample_data(sample); /* the publisher's bytes, not a copy */
        int len = (int)rb_sample_len(sample);
        printf("subscriber: %.*s\n", len, text);
        done = len == 3 && memcmp(text, "bye", 3) == 0;
        rb_sample_release(sample);
    }
    int status;
    if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "the publisher process failed\n");
        failed = 1;
    }
    printf("subscriber: received %llu, lost %llu (ringbus %s)\n", (unsigned long long)rb_subscriber_taken(subscriber),
           (unsigned long long)rb_subscriber_lost(subscriber), rb_version());
    rb_subscriber_close(subscriber);
    rb_node_close(node);
    return failed;
}

int main(void) {
    const char *env = getenv("RINGBUS_ROOT");
    char own[64] = "";
    if (env == NULL || env[0] == '\0') snprintf(own, sizeof own, "/dev/shm/ringbus-example-%d", (int)getpid());
    int failed = subscribe(own[0] ? own : env);
    if (own[0] && rmdir(own) != 0) { /* empty by now: nodes and the topic left with their users */
        perror(own);
        failed = 1;
    }
    return failed;
}
