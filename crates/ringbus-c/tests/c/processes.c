/* Driven by tests/c_api.rs: `sub ROOT COUNT` and `pub ROOT COUNT` exchange COUNT messages
 * between two processes (loans and copies, lengths 8..107, checked byte by byte; what a
 * lapped subscriber misses is counted lost);
 * `tokens ROOT WORKERS TOKENS JOBS` runs JOBS jobs in WORKERS processes of two threads
 * each, started by one latch, never more than TOKENS at once (a semaphore); and
 * `errors ROOT` checks that bad calls fail with the right status and a message. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include "ringbus.h"
#include "check.h"

static rb_topic_options topic_options(void) {
    rb_topic_options o = {0};
    o.depth = 64;
    o.max_payload_bytes = 128;
    return o;
}

static size_t length_of(uint64_t i) { return 8 + (size_t)(i % 100); }

static void fill(uint8_t *bytes, uint64_t i) {
    memcpy(bytes, &i, 8);
    for (size_t k = 8; k < length_of(i); k++) bytes[k] = (uint8_t)(i * 31 + k);
}

static int subscriber(const char *root, uint64_t count) {
    rb_node *node;
    OK(rb_node_open("c-sub", root, &node));
    rb_topic_options o = topic_options();
    rb_subscriber *sub;
    OK(rb_subscriber_open(node, "c/numbers", &o, &sub));
    printf("ready\n");
    fflush(stdout);
    /* The publisher never waits, so a slow subscriber may be lapped: messages must arrive
     * in order, intact and at most once, and whatever is skipped must be counted lost. */
    uint64_t last = UINT64_MAX;
    while (last + 1 != count) {
        rb_sample *s;
        rb_status st = rb_subscriber_receive(sub, 30LL * 1000 * 1000 * 1000, &s);
        CHECK(st == RB_OK, "after message %llu: status %d", (unsigned long long)last, (int)st);
        uint64_t i;
        CHECK(rb_sample_len(s) >= 8, "a message of %zu bytes", rb_sample_len(s));
        memcpy(&i, rb_sample_data(s), 8);
        CHECK(i < count && (last == UINT64_MAX || i > last), "message %llu after %llu", (unsigned long long)i,
              (unsigned long long)last);
        uint8_t expected[128];
        fill(expected, i);
        CHECK(rb_sample_len(s) == length_of(i), "message %llu: %zu bytes", (unsigned long long)i, rb_sample_len(s));
        CHECK(memcmp(rb_sample_data(s), expected, length_of(i)) == 0, "message %llu: wrong bytes", (unsigned long long)i);
        CHECK(rb_sample_timestamp_ns(s) > 0, "no timestamp");
        rb_sample_release(s);
        last = i;
    }
    printf("received %llu lost %llu\n", (unsigned long long)rb_subscriber_taken(sub),
           (unsigned long long)rb_subscriber_lost(sub));
    rb_subscriber_close(sub);
    rb_node_close(node);
    return 0;
}

static int publisher(const char *root, uint64_t count) {
    rb_node *node;
    OK(rb_node_open("c-pub", root, &node));
    rb_topic_options o = topic_options();
    rb_publisher *pub;
    OK(rb_publisher_open(node, "c/numbers", &o, &pub));
    for (uint64_t i = 0; i < count; i++) {
        if (i % 2 == 0) {
            void *chunk;
            OK(rb_publisher_loan(pub, 128, &chunk));
            fill(chunk, i);
            OK(rb_publisher_publish(pub, length_of(i)));
        } else {
            uint8_t bytes[128];
            fill(bytes, i);
            OK(rb_publisher_publish_copy(pub, bytes, length_of(i)));
        }
    }
    rb_publisher_close(pub);
    rb_node_close(node);
    return 0;
}

#define SECONDS(n) ((int64_t)(n) * 1000 * 1000 * 1000)

/* What the worker processes share besides ringbus: an anonymous shared mapping made
 * before fork, to check the latch and the semaphore from outside. */
struct board {
    atomic_int released; /* set by the parent just before rb_latch_set */
    atomic_int early;    /* threads that got past the latch before it was released */
    atomic_int running;  /* jobs holding a token right now */
    atomic_int max_running;
    atomic_int next_job;
    atomic_int done;
};

struct job_thread {
    struct board *board;
    const rb_latch *start;
    const rb_semaphore *tokens;
    int jobs;
};

/* One thread of a worker: waits for the start, then claims jobs, each under a token.
 * Both threads of a process use the same latch and semaphore handles. */
static void *run_jobs(void *arg) {
    struct job_thread *t = arg;
    struct board *b = t->board;
    OK(rb_latch_wait(t->start, SECONDS(30)));
    if (!atomic_load(&b->released)) atomic_fetch_add(&b->early, 1);
    while (atomic_fetch_add(&b->next_job, 1) < t->jobs) {
        rb_status st = rb_semaphore_wait(t->tokens, SECONDS(30));
        CHECK(st == RB_OK, "no token within 30 s: status %d", (int)st);
        int now = atomic_fetch_add(&b->running, 1) + 1;
        int max = atomic_load(&b->max_running);
        while (now > max && !atomic_compare_exchange_weak(&b->max_running, &max, now)) {
        }
        usleep(200);
        atomic_fetch_sub(&b->running, 1);
        atomic_fetch_add(&b->done, 1);
        OK(rb_semaphore_post(t->tokens));
    }
    return NULL;
}

/* A node with the start latch and the token semaphore, as every process of `tokens` opens them. */
struct crew {
    rb_node *node;
    rb_latch *start;
    rb_semaphore *tokens;
};

static struct crew open_crew(const char *root, const char *node_name, uint32_t tokens) {
    struct crew c;
    OK(rb_node_open(node_name, root, &c.node));
    OK(rb_latch_open(c.node, "c/start", &c.start));
    OK(rb_semaphore_open(c.node, "c/tokens", tokens, &c.tokens));
    return c;
}

static void close_crew(struct crew c) {
    rb_semaphore_close(c.tokens);
    rb_latch_close(c.start);
    rb_node_close(c.node);
}

static int worker(const char *root, struct board *b, uint32_t tokens, int jobs) {
    struct crew c = open_crew(root, "c-worker", tokens);
    struct job_thread t = {b, c.start, c.tokens, jobs};
    pthread_t second;
    CHECK(pthread_create(&second, NULL, run_jobs, &t) == 0, "pthread_create");
    run_jobs(&t);
    CHECK(pthread_join(second, NULL) == 0, "pthread_join");
    close_crew(c);
    return 0;
}

static int tokens(const char *root, int workers, uint32_t tokens, int jobs) {
    struct board *b = mmap(NULL, sizeof *b, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    CHECK(b != MAP_FAILED, "mmap");
    memset(b, 0, sizeof *b);
    pid_t pids[64];
    CHECK(workers > 0 && workers <= 64, "1..64 workers");
    for (int w = 0; w < workers; w++) {
        pids[w] = fork();
        CHECK(pids[w] >= 0, "fork");
        if (pids[w] == 0) exit(worker(root, b, tokens, jobs));
    }
    struct crew c = open_crew(root, "c-boss", tokens);
    usleep(100 * 1000); /* let the workers reach the latch (not needed for correctness) */
    CHECK(atomic_load(&b->done) == 0 && atomic_load(&b->running) == 0, "a job ran before the latch was set");
    atomic_store(&b->released, 1);
    OK(rb_latch_set(c.start));
    for (int w = 0; w < workers; w++) {
        int status;
        CHECK(waitpid(pids[w], &status, 0) == pids[w], "waitpid");
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "worker %d failed (status %d)", w, status);
    }
    CHECK(atomic_load(&b->early) == 0, "%d threads passed the latch before it was set", atomic_load(&b->early));
    CHECK(atomic_load(&b->done) == jobs, "%d of %d jobs done", atomic_load(&b->done), jobs);
    CHECK(rb_semaphore_value(c.tokens) == tokens, "%u tokens left of %u", rb_semaphore_value(c.tokens), tokens);
    printf("tokens ok: %d jobs, at most %d at once\n", atomic_load(&b->done), atomic_load(&b->max_running));
    OK(rb_semaphore_unlink(c.tokens));
    OK(rb_latch_unlink(c.start));
    close_crew(c);
    munmap(b, sizeof *b);
    return 0;
}

static int errors(const char *root) {
    rb_node *node = (rb_node *)1;
    expect(rb_node_open(NULL, root, &node), RB_ERR_INVALID_ARGUMENT, "NULL name", "name is NULL");
    CHECK(node == NULL, "a failed open left *out_node set");
    expect(rb_node_open("n", root, NULL), RB_ERR_INVALID_ARGUMENT, "NULL out_node", "out_node");
    expect(rb_node_open("n", "/proc/no/such/root", &node), RB_ERR_ROOT_UNUSABLE, "unusable root", "/proc/no/such/root");
    OK(rb_node_open("c-errors", root, &node));

    rb_publisher *pub = NULL;
    rb_subscriber *sub = NULL;
    expect(rb_publisher_open(node, "bad name!", NULL, &pub), RB_ERR_INVALID_NAME, "invalid topic name", "bad name!");
    expect(rb_publisher_open(NULL, "t", NULL, &pub), RB_ERR_INVALID_ARGUMENT, "NULL node", "node is NULL");
    rb_topic_options o = topic_options();
    o.wake = 7;
    expect(rb_subscriber_open(node, "t", &o, &sub), RB_ERR_INVALID_CONFIG, "wake = 7", "wake = 7");
    o = topic_options();
    o.depth = 3;
    expect(rb_publisher_open(node, "t", &o, &pub), RB_ERR_INVALID_CONFIG, "depth 3", "depth");

    o = topic_options();
    o.max_held = 1;
    OK(rb_publisher_open(node, "t", &o, &pub));
    rb_topic_options other = topic_options();
    other.depth = 128;
    expect(rb_subscriber_open(node, "t", &other, &sub), RB_ERR_MISMATCH, "another depth", "depth");
    OK(rb_subscriber_open(node, "t", NULL, &sub)); /* all zero: whatever the topic has */

    /* A payload type by name: another name or layout is refused, a bad one invalid. */
    rb_topic_options typed = topic_options();
    typed.payload_type_name = "test.point";
    typed.payload_size = 8;
    typed.payload_align = 4;
    rb_publisher *typed_pub;
    OK(rb_publisher_open(node, "typed", &typed, &typed_pub));
    rb_topic_options renamed = typed;
    renamed.payload_type_name = "test.vector";
    rb_subscriber *typed_sub;
    expect(rb_subscriber_open(node, "typed", &renamed, &typed_sub), RB_ERR_MISMATCH, "another payload type",
           "test.vector");
    rb_topic_options resized = typed;
    resized.payload_size = 12;
    expect(rb_subscriber_open(node, "typed", &resized, &typed_sub), RB_ERR_MISMATCH, "another payload size", "size 12");
    OK(rb_subscriber_open(node, "typed", &typed, &typed_sub));
    rb_subscriber_close(typed_sub);
    rb_publisher_close(typed_pub);
    rb_topic_options empty_type = typed;
    empty_type.payload_size = 0;
    expect(rb_publisher_open(node, "typed2", &empty_type, &typed_pub), RB_ERR_INVALID_CONFIG, "a payload of 0 bytes",
           "payload type size");

    rb_sample *s = (rb_sample *)1;
    expect(rb_subscriber_take(sub, &s), RB_EMPTY, "take on nothing", NULL);
    CHECK(s == NULL, "RB_EMPTY left *out_sample set");
    expect(rb_subscriber_receive(sub, 1000000, &s), RB_TIMEOUT, "receive with 1 ms", NULL);

    void *chunk;
    expect(rb_publisher_loan(pub, 129, &chunk), RB_ERR_TOO_LARGE, "loan over max_payload_bytes", "max_payload_bytes");
    expect(rb_publisher_publish(pub, 1), RB_ERR_INVALID_ARGUMENT, "publish without a loan", "rb_publisher_loan");
    OK(rb_publisher_loan(pub, 16, &chunk));
    expect(rb_publisher_loan(pub, 16, &chunk), RB_ERR_INVALID_ARGUMENT, "second loan", "already has a loan");
    expect(rb_publisher_publish(pub, 17), RB_ERR_INVALID_ARGUMENT, "publish longer than the loan", "loan of 16");
    OK(rb_publisher_discard(pub));
    expect(rb_subscriber_take(sub, &s), RB_EMPTY, "a discarded loan is not published", NULL);
    expect(rb_publisher_publish_copy(pub, NULL, 4), RB_ERR_INVALID_ARGUMENT, "NULL data", "data is NULL");
    OK(rb_publisher_publish_copy(pub, NULL, 0));
    OK(rb_publisher_publish_copy(pub, "abc", 3));

    rb_sample *first, *second;
    OK(rb_subscriber_take(sub, &first));
    CHECK(rb_sample_len(first) == 0, "the empty message has %zu bytes", rb_sample_len(first));
    expect(rb_subscriber_take(sub, &second), RB_ERR_HELD_LIMIT, "a second held sample with max_held 1", "max_held");
    rb_sample_release(first);
    OK(rb_subscriber_take(sub, &second));
    CHECK(rb_sample_len(second) == 3 && memcmp(rb_sample_data(second), "abc", 3) == 0, "wrong second message");
    rb_subscriber_close(sub); /* a sample outlives its subscriber */
    CHECK(memcmp(rb_sample_data(second), "abc", 3) == 0, "the sample changed after its subscriber closed");
    rb_sample_release(second);

    o = topic_options();
    o.wake = RB_WAKE_NEVER;
    OK(rb_subscriber_open(node, "t", &o, &sub));
    expect(rb_subscriber_receive(sub, 0, &s), RB_ERR_POLLING_ONLY, "receive on RB_WAKE_NEVER", "take");
    rb_subscriber_close(sub);

    rb_latch *latch = (rb_latch *)1;
    expect(rb_latch_open(node, "bad name!", &latch), RB_ERR_INVALID_NAME, "invalid latch name", "bad name!");
    CHECK(latch == NULL, "a failed open left *out_latch set");
    expect(rb_latch_open(NULL, "l", &latch), RB_ERR_INVALID_ARGUMENT, "latch on a NULL node", "node is NULL");
    expect(rb_latch_open(node, "l", NULL), RB_ERR_INVALID_ARGUMENT, "NULL out_latch", "out_latch is NULL");
    OK(rb_latch_open(node, "c/latch", &latch));
    CHECK(!rb_latch_is_set(latch), "a new latch is set");
    expect(rb_latch_wait(latch, 1000000), RB_TIMEOUT, "wait 1 ms on an unset latch", NULL);
    OK(rb_latch_set(latch));
    OK(rb_latch_set(latch)); /* idempotent */
    CHECK(rb_latch_is_set(latch), "set did not set");
    OK(rb_latch_wait(latch, -1)); /* set: returns at once */
    OK(rb_latch_reset(latch));
    CHECK(!rb_latch_is_set(latch), "reset did not clear");
    expect(rb_latch_set(NULL), RB_ERR_INVALID_ARGUMENT, "set on NULL", "latch is NULL");
    OK(rb_latch_unlink(latch));
    rb_latch_close(latch);

    rb_semaphore *sem = (rb_semaphore *)1;
    expect(rb_semaphore_open(node, "c/sem", 2147483648u, &sem), RB_ERR_INVALID_CONFIG, "initial 2^31", "initial");
    CHECK(sem == NULL, "a failed open left *out_semaphore set");
    expect(rb_semaphore_open(node, "s", 0, NULL), RB_ERR_INVALID_ARGUMENT, "NULL out_semaphore", "out_semaphore is NULL");
    OK(rb_semaphore_open(node, "c/sem", 1, &sem));
    OK(rb_semaphore_try_wait(sem));
    expect(rb_semaphore_try_wait(sem), RB_EMPTY, "try_wait with no token", NULL);
    expect(rb_semaphore_wait(sem, 1000000), RB_TIMEOUT, "wait 1 ms with no token", NULL);
    OK(rb_semaphore_post(sem));
    CHECK(rb_semaphore_value(sem) == 1, "value %u after one post", rb_semaphore_value(sem));
    OK(rb_semaphore_wait(sem, -1));
    CHECK(rb_semaphore_value(sem) == 0, "value %u after the wait", rb_semaphore_value(sem));
    OK(rb_semaphore_unlink(sem));
    rb_semaphore_close(sem);
    OK(rb_semaphore_open(node, "c/sem", 5, &sem)); /* the unlinked name makes a new one */
    CHECK(rb_semaphore_value(sem) == 5, "reopened after unlink with %u tokens", rb_semaphore_value(sem));
    OK(rb_semaphore_unlink(sem));
    rb_semaphore_close(sem);
    OK(rb_semaphore_open(node, "c/full", 2147483647u, &sem));
    expect(rb_semaphore_post(sem), RB_ERR_SEMAPHORE_FULL, "post on a full semaphore", "maximum");
    CHECK(rb_semaphore_value(sem) == 2147483647u, "a refused post changed the count");
    OK(rb_semaphore_unlink(sem));
    rb_semaphore_close(sem);
    expect(rb_semaphore_post(NULL), RB_ERR_INVALID_ARGUMENT, "post on NULL", "semaphore is NULL");
    CHECK(!rb_latch_is_set(NULL) && rb_semaphore_value(NULL) == 0, "NULL object accessors");
    rb_latch_close(NULL);
    rb_semaphore_close(NULL);

    CHECK(rb_sample_data(NULL) == NULL && rb_sample_len(NULL) == 0 && rb_subscriber_lost(NULL) == 0, "NULL accessors");
    rb_sample_release(NULL);
    rb_publisher_close(NULL);
    rb_subscriber_close(NULL);
    rb_node_close(NULL);
    rb_publisher_close(pub);
    rb_node_close(node);
    printf("errors ok\n");
    return 0;
}

int main(int argc, char **argv) {
    CHECK(argc >= 3, "usage: %s sub|pub ROOT COUNT | tokens ROOT WORKERS TOKENS JOBS | errors ROOT", argv[0]);
    if (strcmp(argv[1], "errors") == 0) return errors(argv[2]);
    if (strcmp(argv[1], "tokens") == 0) {
        CHECK(argc == 6, "tokens needs WORKERS TOKENS JOBS");
        return tokens(argv[2], atoi(argv[3]), (uint32_t)strtoul(argv[4], NULL, 10), atoi(argv[5]));
    }
    CHECK(argc == 4, "COUNT missing");
    uint64_t count = strtoull(argv[3], NULL, 10);
    if (strcmp(argv[1], "sub") == 0) return subscriber(argv[2], count);
    if (strcmp(argv[1], "pub") == 0) return publisher(argv[2], count);
    CHECK(0, "unknown mode %s", argv[1]);
    return 1;
}
