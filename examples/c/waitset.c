/* waitset: one wait over several sources in C. A thermostat sleeps until a temperature
 * reading comes, its 50 ms timer is due, or its shutdown latch is set, whichever is first.
 * A child process (the sensor) publishes ten readings 20 ms apart, then sets the latch.
 *
 *   cargo build -p ringbus-c && make -C examples/c && target/examples/c/waitset
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
static const int READINGS = 10;

static int fail(const char *what) {
    fprintf(stderr, "%s: %s\n", what, rb_last_error());
    return 1;
}

static rb_topic_options topic_options(void) {
    rb_topic_options options = {0};
    options.max_payload_bytes = sizeof(float);
    return options;
}

/* The child: its own node, publisher and latch handle (latches are named objects). */
static int sensor(const char *root) {
    rb_node *node;
    rb_publisher *publisher;
    rb_latch *shutdown;
    rb_topic_options options = topic_options();
    if (rb_node_open("sensor", root, &node) != RB_OK) return fail("rb_node_open");
    if (rb_publisher_open(node, "sensor/temperature", &options, &publisher) != RB_OK) return fail("rb_publisher_open");
    for (int i = 0; i < READINGS; i++) {
        float celsius = 20.0f + 0.25f * (float)i;
        if (rb_publisher_publish_copy(publisher, &celsius, sizeof celsius) != RB_OK) return fail("publish");
        usleep(20 * 1000);
    }
    if (rb_latch_open(node, "thermostat/shutdown", &shutdown) != RB_OK) return fail("rb_latch_open");
    if (rb_latch_set(shutdown) != RB_OK) return fail("rb_latch_set"); /* wakes the thermostat */
    rb_latch_close(shutdown);
    rb_publisher_close(publisher);
    rb_node_close(node);
    return 0;
}

struct thermostat {
    rb_subscriber *subscriber;
    int taken;
    float sum;
};

/* Takes every reading there is (an event says "may have data": take until RB_EMPTY). */
static int take_all(struct thermostat *t) {
    rb_sample *sample;
    rb_status status;
    while ((status = rb_subscriber_take(t->subscriber, &sample)) == RB_OK) {
        float celsius;
        memcpy(&celsius, rb_sample_data(sample), sizeof celsius);
        printf("thermostat: reading %.2f °C\n", celsius);
        t->taken++;
        t->sum += celsius;
        rb_sample_release(sample);
    }
    return status == RB_EMPTY ? 0 : fail("rb_subscriber_take");
}

/* Waits until the latch is set; returns 0, or 1 on a failure. */
static int wait_for_shutdown(struct thermostat *t, rb_waitset *ws, uint64_t k_data, uint64_t k_latch, int *ticks) {
    for (;;) {
        rb_event events[4];
        size_t n;
        if (rb_waitset_wait(ws, TIMEOUT_NS, events, 4, &n) != RB_OK) return fail("rb_waitset_wait");
        for (size_t i = 0; i < n; i++) {
            if (events[i].kind == RB_EVENT_INTERVAL) {
                (*ticks)++;
            } else if (events[i].key == k_data) {
                if (take_all(t)) return 1;
            } else if (events[i].key == k_latch) {
                return take_all(t); /* what came before the latch was set */
            }
        }
    }
}

static int run(const char *root) {
    rb_node *node;
    rb_latch *shutdown;
    rb_waitset *ws;
    struct thermostat t = {0};
    rb_topic_options options = topic_options();
    if (rb_node_open("thermostat", root, &node) != RB_OK) return fail("rb_node_open");
    if (rb_subscriber_open(node, "sensor/temperature", &options, &t.subscriber) != RB_OK) return fail("subscribe");
    if (rb_latch_open(node, "thermostat/shutdown", &shutdown) != RB_OK) return fail("rb_latch_open");
    rb_latch_reset(shutdown); /* a latch outlives its users: start from "not set" */

    uint64_t k_data, k_tick, k_latch;
    if (rb_waitset_open(&ws) != RB_OK || rb_waitset_attach_subscriber(ws, t.subscriber, &k_data) != RB_OK ||
        rb_waitset_attach_interval(ws, 50 * 1000 * 1000, &k_tick) != RB_OK ||
        rb_waitset_attach_latch(ws, shutdown, &k_latch) != RB_OK)
        return fail("wait set");

    fflush(stdout);
    pid_t child = fork(); /* after subscribing: the subscriber gets every reading */
    if (child < 0) return fail("fork");
    if (child == 0) _exit(sensor(root));
    int ticks = 0;
    int failed = wait_for_shutdown(&t, ws, k_data, k_latch, &ticks);
    int status;
    if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "the sensor process failed\n");
        failed = 1;
    }
    printf("thermostat: shutdown after %d readings (mean %.2f °C) and %d timer ticks; backend %s\n", t.taken,
           t.taken ? t.sum / (float)t.taken : 0.0f, ticks, rb_waitset_backend(ws));
    rb_waitset_close(ws);
    rb_latch_unlink(shutdown); /* named objects persist until unlinked */
    rb_latch_close(shutdown);
    rb_subscriber_close(t.subscriber);
    rb_node_close(node);
    return failed;
}

int main(void) {
    const char *env = getenv("RINGBUS_ROOT");
    char own[64] = "";
    if (env == NULL || env[0] == '\0') snprintf(own, sizeof own, "/dev/shm/ringbus-example-%d", (int)getpid());
    int failed = run(own[0] ? own : env);
    if (own[0] && rmdir(own) != 0) { /* empty by now: nodes and the topic left with their users */
        perror(own);
        failed = 1;
    }
    return failed;
}
