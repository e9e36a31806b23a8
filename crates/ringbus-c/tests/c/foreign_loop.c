/* Driven by tests/c_api.rs: `foreign_loop ROOT` subscribes to 40 topics through two wait
 * sets and sleeps only in its own epoll loop on their rb_waitset_fd()s, calling
 * rb_waitset_wait(ws, 0, ...) once per readiness with room for one event (so events also
 * wait in the handle). A forked child publishes 250 rounds of one message per topic. Every
 * message must arrive, in order, and the loop must never sit 2 s on quiet fds while a
 * message waits. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/wait.h>
#include <unistd.h>
#include "ringbus.h"
#include "check.h"

enum { TOPICS = 40, SETS = 2, ROUNDS = 250 };

static void topic_name(char *out, size_t size, int topic) {
    snprintf(out, size, "foreign/%d", topic);
}

static void publish_all(const char *root) {
    rb_node *node;
    rb_publisher *pubs[TOPICS];
    char name[32];
    OK(rb_node_open("foreign-loop-publisher", root, &node));
    for (int t = 0; t < TOPICS; t++) {
        topic_name(name, sizeof name, t);
        OK(rb_publisher_open(node, name, NULL, &pubs[t]));
    }
    for (uint32_t round = 0; round < ROUNDS; round++) {
        for (int t = 0; t < TOPICS; t++) OK(rb_publisher_publish_copy(pubs[t], &round, sizeof round));
        if (round % 10 == 0) usleep(1000); /* vary where publishes land in the loop's steps */
    }
    for (int t = 0; t < TOPICS; t++) rb_publisher_close(pubs[t]);
    rb_node_close(node);
    _exit(0);
}

/* Takes everything `sub` has; checks the order. Returns how many. */
static unsigned take_all(rb_subscriber *sub, uint32_t *next) {
    unsigned got = 0;
    rb_sample *sample;
    for (rb_status st; (st = rb_subscriber_take(sub, &sample)) != RB_EMPTY; got++) {
        CHECK(st == RB_OK, "take: status %d", (int)st);
        uint32_t round;
        CHECK(rb_sample_len(sample) == sizeof round, "message length %zu", rb_sample_len(sample));
        memcpy(&round, rb_sample_data(sample), sizeof round);
        CHECK(round == *next, "expected round %u, got %u", *next, round);
        (*next)++;
        rb_sample_release(sample);
    }
    return got;
}

int main(int argc, char **argv) {
    CHECK(argc == 2, "usage: foreign_loop ROOT");
    const char *root = argv[1];
    rb_node *node;
    rb_subscriber *subs[TOPICS];
    rb_waitset *sets[SETS];
    uint64_t keys[TOPICS];
    uint32_t next[TOPICS] = {0};
    char name[32];
    rb_topic_options options = {0};
    options.depth = 256; /* deeper than ROUNDS: a slow loop loses nothing, a stalled one is seen */
    OK(rb_node_open("foreign-loop", root, &node));
    int ep = epoll_create1(EPOLL_CLOEXEC);
    CHECK(ep >= 0, "epoll_create1");
    for (int k = 0; k < SETS; k++) OK(rb_waitset_open(&sets[k]));
    for (int t = 0; t < TOPICS; t++) {
        topic_name(name, sizeof name, t);
        OK(rb_subscriber_open(node, name, &options, &subs[t]));
        OK(rb_waitset_attach_subscriber(sets[t % SETS], subs[t], &keys[t]));
    }
    for (int k = 0; k < SETS; k++) {
        int fd;
        OK(rb_waitset_fd(sets[k], &fd));
        struct epoll_event interest = {.events = EPOLLIN, .data.u32 = (uint32_t)k};
        CHECK(epoll_ctl(ep, EPOLL_CTL_ADD, fd, &interest) == 0, "epoll_ctl");
    }
    pid_t pid = fork();
    CHECK(pid >= 0, "fork");
    if (pid == 0) publish_all(root);

    unsigned total = 0, readiness = 0;
    while (total < TOPICS * ROUNDS) {
        struct epoll_event ready[SETS];
        int n = epoll_wait(ep, ready, SETS, 2000);
        if (n < 0) continue; /* EINTR: the ring's completions are posted by task work */
        if (n == 0) {
            unsigned waiting = 0;
            for (int t = 0; t < TOPICS; t++) waiting += take_all(subs[t], &next[t]);
            CHECK(waiting == 0, "the fds stayed quiet for 2 s with %u messages waiting (%u of %u taken)", waiting,
                  total, TOPICS * ROUNDS);
            CHECK(0, "nothing arrived for 2 s (%u of %u taken)", total, TOPICS * ROUNDS);
        }
        for (int i = 0; i < n; i++) {
            int k = (int)ready[i].data.u32;
            rb_event event;
            size_t count;
            rb_status st = rb_waitset_wait(sets[k], 0, &event, 1, &count);
            readiness++;
            if (st == RB_TIMEOUT) continue;
            OK(st);
            CHECK(event.kind == RB_EVENT_DATA, "event kind %d", (int)event.kind);
            for (int t = 0; t < TOPICS; t++)
                if (keys[t] == event.key && t % SETS == k) total += take_all(subs[t], &next[t]);
        }
    }
    int status;
    CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0, "publisher exited 0");
    for (int k = 0; k < SETS; k++) OK(rb_waitset_close(sets[k]));
    for (int t = 0; t < TOPICS; t++) rb_subscriber_close(subs[t]);
    rb_node_close(node);
    close(ep);
    printf("foreign loop ok: %u messages, %u readiness\n", total, readiness);
    return 0;
}
