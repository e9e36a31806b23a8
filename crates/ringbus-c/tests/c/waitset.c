/* Driven by tests/c_api.rs: `waitset ROOT` opens one wait set over a subscriber, a shared
 * word, a latch, a semaphore, a pipe and an interval; a forked child then publishes, moves
 * the word, sets the latch, posts a token and writes to the pipe, and the parent must see
 * each of them as its event (through an events array of 2, so some wait in the handle),
 * then through the fd a foreign loop would poll. Also: a call from another thread, a token
 * pending at detach going back, and bad arguments. Every wait is bounded (10 s). */
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include "ringbus.h"
#include "check.h"

static const int64_t LIMIT_NS = 10LL * 1000 * 1000 * 1000;

struct sources {
    rb_node *node;
    rb_subscriber *sub;
    rb_latch *latch;
    rb_semaphore *sem;
    uint32_t *word;
    int pipe[2];
    unsigned tokens_held, messages;
    uint64_t k_sub, k_word, k_latch, k_sem, k_pipe, k_tick;
};

static void child(const char *root, struct sources *s) {
    rb_node *node;
    rb_publisher *pub;
    OK(rb_node_open("waitset-child", root, &node));
    OK(rb_publisher_open(node, "ws/topic", NULL, &pub));
    OK(rb_publisher_publish_copy(pub, "hello", 5));
    __atomic_store_n(s->word, 5, __ATOMIC_RELEASE);
    OK(rb_word_wake(s->word, UINT32_MAX, NULL));
    OK(rb_latch_set(s->latch));
    OK(rb_semaphore_post(s->sem));
    CHECK(write(s->pipe[1], "x", 1) == 1, "write to the pipe");
    rb_publisher_close(pub);
    rb_node_close(node);
    _exit(0);
}

/* Handles one event; returns which source it was, as a bit (0: an interval, or a data
 * event that found nothing). */
static unsigned handle(struct sources *s, rb_event e) {
    if (e.key == s->k_sub) {
        CHECK(e.kind == RB_EVENT_DATA, "subscriber event kind %d", (int)e.kind);
        unsigned got = 0;
        rb_sample *sample;
        for (rb_status st; (st = rb_subscriber_take(s->sub, &sample)) != RB_EMPTY; got++) {
            CHECK(st == RB_OK, "take: status %d", (int)st);
            CHECK(rb_sample_len(sample) == 5 && memcmp(rb_sample_data(sample), "hello", 5) == 0, "the message");
            rb_sample_release(sample);
        }
        s->messages += got;
        CHECK(s->messages <= 1, "one message was published, %u taken", s->messages);
        return got ? 1 : 0;
    }
    if (e.key == s->k_word) {
        CHECK(e.kind == RB_EVENT_WORD && e.value == 5, "word event %d value %llu", (int)e.kind, (unsigned long long)e.value);
        return 2;
    }
    if (e.key == s->k_latch) {
        CHECK(e.kind == RB_EVENT_LATCH_SET, "latch event kind %d", (int)e.kind);
        OK(rb_latch_reset(s->latch)); /* else reported at every wait */
        return 4;
    }
    if (e.key == s->k_sem) {
        CHECK(e.kind == RB_EVENT_TOKEN, "semaphore event kind %d", (int)e.kind);
        s->tokens_held++; /* ours until posted back (once the source is detached) */
        return 8;
    }
    if (e.key == s->k_pipe) {
        CHECK(e.kind == RB_EVENT_FD && (e.value & RB_FD_READABLE), "pipe event %d value %llu", (int)e.kind,
              (unsigned long long)e.value);
        char c;
        CHECK(read(s->pipe[0], &c, 1) == 1 && c == 'x', "read the pipe");
        return 16;
    }
    CHECK(e.key == s->k_tick && e.kind == RB_EVENT_INTERVAL && e.value >= 1, "unknown event key %llu kind %d",
          (unsigned long long)e.key, (int)e.kind);
    return 0;
}

static void *from_another_thread(void *ws) {
    rb_event e;
    size_t n = 99;
    CHECK(rb_waitset_wait(ws, 0, &e, 1, &n) == RB_ERR_INVALID_ARGUMENT && n == 0, "a wait from another thread");
    CHECK(strstr(rb_last_error(), "thread that opened it"), "the message names the thread rule");
    CHECK(rb_waitset_close(ws) == RB_ERR_INVALID_ARGUMENT, "a close from another thread");
    return NULL;
}

static void bad_arguments(rb_waitset *ws, struct sources *s) {
    uint64_t key = 0;
    rb_event e;
    size_t n;
    CHECK(rb_waitset_attach_fd(ws, s->pipe[0], 0, &key) == RB_ERR_INVALID_ARGUMENT, "interest 0");
    CHECK(rb_waitset_attach_fd(ws, s->pipe[0], 8, &key) == RB_ERR_INVALID_ARGUMENT, "interest 8");
    CHECK(rb_waitset_attach_fd(ws, -1, RB_FD_READABLE, &key) == RB_ERR_INVALID_ARGUMENT, "fd -1");
    CHECK(rb_waitset_attach_fd(ws, 999, RB_FD_READABLE, &key) == RB_ERR_IO, "fd 999 is not open");
    CHECK(strstr(rb_last_error(), "999"), "the message names the fd");
    CHECK(rb_waitset_attach_interval(ws, 0, &key) == RB_ERR_INVALID_ARGUMENT, "period 0");
    CHECK(rb_waitset_attach_word(ws, NULL, 0, &key) == RB_ERR_INVALID_ARGUMENT, "NULL word");
    CHECK(rb_waitset_attach_latch(ws, s->latch, NULL) == RB_ERR_INVALID_ARGUMENT, "NULL out_key");
    CHECK(rb_waitset_attach_subscriber(NULL, s->sub, &key) == RB_ERR_INVALID_ARGUMENT, "NULL wait set");
    CHECK(rb_waitset_detach(ws, 12345) == RB_ERR_INVALID_ARGUMENT, "an unknown key");
    CHECK(rb_waitset_wait(ws, 0, &e, 0, &n) == RB_ERR_INVALID_ARGUMENT, "capacity 0");
    CHECK(rb_waitset_wait(ws, 0, NULL, 1, &n) == RB_ERR_INVALID_ARGUMENT, "NULL events");
    rb_topic_options polling = {0};
    polling.wake = RB_WAKE_NEVER;
    rb_subscriber *poller;
    OK(rb_subscriber_open(s->node, "ws/topic", &polling, &poller));
    CHECK(rb_waitset_attach_subscriber(ws, poller, &key) == RB_ERR_POLLING_ONLY, "a polling subscriber");
    rb_subscriber_close(poller);
}

/* A token the wait set took but never handed over goes back at detach. The semaphore is
 * attached twice and holds two tokens: one look takes one for each attachment, and an
 * array of one hands over only the first. */
static void pending_token_goes_back(rb_waitset *ws, struct sources *s) {
    CHECK(rb_semaphore_value(s->sem) == 2, "two tokens to start with: %u", rb_semaphore_value(s->sem));
    uint64_t a, b;
    OK(rb_waitset_attach_semaphore(ws, s->sem, &a));
    OK(rb_waitset_attach_semaphore(ws, s->sem, &b));
    rb_event e;
    size_t n = 0;
    OK(rb_waitset_wait(ws, LIMIT_NS, &e, 1, &n));
    CHECK(n == 1 && (e.key == a || e.key == b) && e.kind == RB_EVENT_TOKEN, "a token");
    CHECK(rb_semaphore_value(s->sem) == 0, "both tokens taken, %u left", rb_semaphore_value(s->sem));
    uint64_t handed = e.key, pending = e.key == a ? b : a;
    OK(rb_waitset_detach(ws, pending));
    CHECK(rb_semaphore_value(s->sem) == 1, "the pending token went back: %u", rb_semaphore_value(s->sem));
    OK(rb_waitset_detach(ws, handed));
    OK(rb_semaphore_post(s->sem)); /* the one handed over */
}

int main(int argc, char **argv) {
    CHECK(argc == 3 && strcmp(argv[1], "waitset") == 0, "usage: %s waitset ROOT", argv[0]);
    const char *root = argv[2];
    struct sources s = {0};
    OK(rb_node_open("waitset-parent", root, &s.node));
    OK(rb_subscriber_open(s.node, "ws/topic", NULL, &s.sub));
    OK(rb_latch_open(s.node, "ws-latch", &s.latch));
    OK(rb_semaphore_open(s.node, "ws-sem", 0, &s.sem));
    s.word = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    CHECK(s.word != MAP_FAILED, "mmap");
    CHECK(pipe(s.pipe) == 0, "pipe");

    rb_waitset *ws;
    OK(rb_waitset_open(&ws));
    CHECK(strcmp(rb_waitset_backend(ws), "futex") == 0, "no fd yet: %s", rb_waitset_backend(ws));
    OK(rb_waitset_attach_subscriber(ws, s.sub, &s.k_sub));
    OK(rb_waitset_attach_word(ws, s.word, 0, &s.k_word));
    OK(rb_waitset_attach_latch(ws, s.latch, &s.k_latch));
    OK(rb_waitset_attach_semaphore(ws, s.sem, &s.k_sem));
    OK(rb_waitset_attach_fd(ws, s.pipe[0], RB_FD_READABLE, &s.k_pipe));
    OK(rb_waitset_attach_interval(ws, 5 * 1000 * 1000, &s.k_tick));
    const char *backend = rb_waitset_backend(ws);
    CHECK(strcmp(backend, "io_uring") == 0 || strcmp(backend, "epoll") == 0, "an fd is attached: %s", backend);

    rb_event none[2];
    size_t n = 0;
    OK(rb_waitset_detach(ws, s.k_tick)); /* nothing is ready yet: only look */
    /* A subscriber that has never looked may report data ("take until empty"); after that
     * look, nothing is ready and a zero timeout only looks. */
    if (rb_waitset_wait(ws, 0, none, 2, &n) == RB_OK) {
        CHECK(n == 1 && none[0].key == s.k_sub && handle(&s, none[0]) == 0, "only the subscriber's first look");
    }
    CHECK(rb_waitset_wait(ws, 0, none, 2, &n) == RB_TIMEOUT && n == 0, "nothing ready, %zu events", n);
    OK(rb_waitset_attach_interval(ws, 5 * 1000 * 1000, &s.k_tick));

    pid_t pid = fork();
    CHECK(pid >= 0, "fork");
    if (pid == 0) child(root, &s);
    unsigned seen = 0, ticks = 0;
    while (seen != 31) {
        rb_event events[2];
        OK(rb_waitset_wait(ws, LIMIT_NS, events, 2, &n));
        CHECK(n >= 1 && n <= 2, "%zu events in an array of 2", n);
        for (size_t i = 0; i < n; i++) {
            unsigned bit = handle(&s, events[i]);
            ticks += events[i].key == s.k_tick;
            seen |= bit;
        }
    }
    int status = 0;
    CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child failed");
    CHECK(s.tokens_held == 1, "one token posted, %u taken", s.tokens_held);
    OK(rb_waitset_detach(ws, s.k_tick));
    OK(rb_waitset_detach(ws, s.k_sem));
    OK(rb_semaphore_post(s.sem));
    OK(rb_semaphore_post(s.sem)); /* two tokens for pending_token_goes_back */
    for (rb_event events[2]; rb_waitset_wait(ws, 0, events, 2, &n) == RB_OK;) { /* what is left */
        for (size_t i = 0; i < n; i++) handle(&s, events[i]);
    }
    CHECK(s.tokens_held == 1, "no token once the semaphore is detached");

    /* A foreign loop: poll the wait set's fd, then collect with a zero timeout. */
    int fd = -1;
    OK(rb_waitset_fd(ws, &fd));
    __atomic_store_n(s.word, 6, __ATOMIC_RELEASE);
    OK(rb_word_wake(s.word, UINT32_MAX, NULL));
    struct pollfd p = {.fd = fd, .events = POLLIN};
    for (int tries = 0; tries < 10; tries++) { /* the ring's fd may report EINTR first */
        int r = poll(&p, 1, 10000);
        CHECK(r == 1 || r == -1, "poll of the wait set's fd timed out");
        if (r == 1) break;
    }
    CHECK(p.revents & POLLIN, "the fd did not become readable");
    rb_event e;
    OK(rb_waitset_wait(ws, 0, &e, 1, &n));
    CHECK(n == 1 && e.key == s.k_word && e.kind == RB_EVENT_WORD && e.value == 6, "the word's event after poll");

    pthread_t t;
    CHECK(pthread_create(&t, NULL, from_another_thread, ws) == 0, "pthread_create");
    CHECK(pthread_join(t, NULL) == 0, "pthread_join");
    bad_arguments(ws, &s);
    pending_token_goes_back(ws, &s);
    CHECK(rb_semaphore_value(s.sem) == 2, "every token is back: %u", rb_semaphore_value(s.sem));

    OK(rb_waitset_close(ws));
    OK(rb_waitset_close(NULL));
    printf("waitset ok: 5 sources, %u interval events\n", ticks);
    close(s.pipe[0]);
    close(s.pipe[1]);
    munmap(s.word, 4096);
    OK(rb_latch_unlink(s.latch));
    OK(rb_semaphore_unlink(s.sem));
    rb_latch_close(s.latch);
    rb_semaphore_close(s.sem);
    rb_subscriber_close(s.sub);
    rb_node_close(s.node);
    return 0;
}
