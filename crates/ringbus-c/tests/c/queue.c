/* Driven by tests/c_api.rs: command queues from C.
 * `consume ROOT PRODUCERS COUNT` pops PRODUCERS × COUNT commands of an MPSC queue, checking
 *   each producer's are in order and intact; prints "ready", then "consumed N".
 * `consume-waitset ROOT PRODUCERS COUNT` does the same, sleeping in a wait set that also
 *   watches a pipe nobody writes to.
 * `produce ROOT ID COUNT` pushes COUNT commands as producer ID (one at a time and in
 *   batches, waiting for room when full).
 * `errors ROOT` checks that bad calls fail with the right status and a message. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "ringbus.h"
#include "check.h"

/* What a Rust `#[repr(C)] struct { producer: u64, sequence: u64, check: u32 }` is. */
typedef struct {
    uint64_t producer;
    uint64_t sequence;
    uint32_t check;
} command_t;

static uint32_t check_of(uint64_t producer, uint64_t sequence) {
    return (uint32_t)(producer * 2654435761u + sequence * 40503u) ^ 0xABCDu;
}

static rb_queue_options options(void) {
    rb_queue_options o = {0};
    o.type_name = "test.command";
    o.command_size = sizeof(command_t);
    o.command_align = _Alignof(command_t);
    o.capacity = 64;
    o.producers = RB_QUEUE_MPSC;
    return o;
}

/* Sleeps until a command is ready: in rb_queue_wait, or in the wait set `ws` if given. */
static void wait_for_commands(rb_queue_consumer *consumer, rb_waitset *ws, uint64_t key, uint64_t got) {
    if (!ws) {
        CHECK(rb_queue_wait(consumer, 30000000000LL) == RB_OK, "no command within 30 s after %llu",
              (unsigned long long)got);
        return;
    }
    rb_event events[4];
    size_t n = 0;
    OK(rb_waitset_wait(ws, 30000000000LL, events, 4, &n));
    CHECK(n > 0, "no event within 30 s after %llu", (unsigned long long)got);
    for (size_t i = 0; i < n; i++) CHECK(events[i].key == key && events[i].kind == RB_EVENT_DATA, "an event of the queue");
}

static int consume(const char *root, uint64_t producers, uint64_t count, int use_waitset) {
    rb_node *node;
    OK(rb_node_open("c-consumer", root, &node));
    rb_queue_options o = options();
    rb_queue_consumer *consumer;
    OK(rb_queue_consumer_open(node, "c/commands", &o, &consumer));
    rb_waitset *ws = NULL;
    uint64_t key = 0, pipe_key = 0;
    int quiet[2];
    if (use_waitset) {
        CHECK(pipe(quiet) == 0, "pipe");
        OK(rb_waitset_open(&ws));
        OK(rb_waitset_attach_queue(ws, consumer, &key));
        OK(rb_waitset_attach_fd(ws, quiet[0], RB_FD_READABLE, &pipe_key));
    }
    printf("ready\n");
    fflush(stdout);
    uint64_t next[16] = {0}, got = 0;
    CHECK(producers <= 16, "at most 16 producers");
    command_t batch[8];
    while (got < producers * count) {
        wait_for_commands(consumer, ws, key, got);
        size_t n = 0;
        OK(rb_queue_pop_batch(consumer, batch, 8, &n));
        for (size_t i = 0; i < n; i++) {
            command_t c = batch[i];
            CHECK(c.producer < producers, "producer %llu", (unsigned long long)c.producer);
            CHECK(c.sequence == next[c.producer], "producer %llu: %llu after %llu", (unsigned long long)c.producer,
                  (unsigned long long)c.sequence, (unsigned long long)next[c.producer]);
            CHECK(c.check == check_of(c.producer, c.sequence), "a garbled command");
            next[c.producer]++;
        }
        got += n;
    }
    command_t none;
    expect(rb_queue_pop(consumer, &none), RB_EMPTY, "a pop of an empty queue", NULL);
    CHECK(rb_queue_abandoned(consumer) == 0, "nothing abandoned");
    printf("consumed %llu\n", (unsigned long long)got);
    if (ws) {
        OK(rb_waitset_close(ws));
        close(quiet[0]);
        close(quiet[1]);
    }
    OK(rb_queue_unlink(consumer));
    rb_queue_consumer_close(consumer);
    rb_node_close(node);
    return 0;
}

static int produce(const char *root, uint64_t id, uint64_t count) {
    rb_node *node;
    OK(rb_node_open("c-producer", root, &node));
    rb_queue_options o = options();
    rb_queue_producer *producer;
    OK(rb_queue_producer_open(node, "c/commands", &o, &producer));
    CHECK(rb_queue_consumer_alive(producer), "the consumer opened first");
    uint64_t sequence = 0;
    while (sequence < count) {
        if (sequence % 3 == 0) {
            command_t c = {id, sequence, check_of(id, sequence)};
            OK(rb_queue_push_timeout(producer, &c, 30000000000LL));
            sequence++;
            continue;
        }
        command_t batch[5];
        size_t want = count - sequence < 5 ? (size_t)(count - sequence) : 5, pushed = 0;
        for (size_t i = 0; i < want; i++) batch[i] = (command_t){id, sequence + i, check_of(id, sequence + i)};
        OK(rb_queue_push_batch(producer, batch, want, &pushed));
        sequence += pushed;
    }
    rb_queue_producer_close(producer);
    rb_node_close(node);
    return 0;
}

static int errors(const char *root) {
    rb_node *node;
    OK(rb_node_open("c-errors", root, &node));
    rb_queue_options o = options();
    o.producers = RB_QUEUE_SPSC;
    o.capacity = 2;
    rb_queue_consumer *consumer = (rb_queue_consumer *)1;
    rb_queue_producer *producer;

    rb_queue_options bad = o;
    bad.type_name = NULL;
    expect(rb_queue_consumer_open(node, "e", &bad, &consumer), RB_ERR_INVALID_ARGUMENT, "no type name",
           "type_name is NULL");
    CHECK(consumer == NULL, "a failed open leaves NULL");
    bad = o;
    bad.command_size = 0;
    expect(rb_queue_consumer_open(node, "e", &bad, &consumer), RB_ERR_INVALID_CONFIG, "size 0", "command size");
    bad = o;
    bad.command_align = 3;
    expect(rb_queue_consumer_open(node, "e", &bad, &consumer), RB_ERR_INVALID_CONFIG, "align 3", "alignment");
    expect(rb_queue_consumer_open(node, "e", NULL, &consumer), RB_ERR_INVALID_ARGUMENT, "no options", "options");

    OK(rb_queue_consumer_open(node, "e", &o, &consumer));
    rb_queue_consumer *second;
    expect(rb_queue_consumer_open(node, "e", &o, &second), RB_ERR_TOO_MANY, "a second consumer", "consumer");
    bad = o;
    bad.type_name = "test.other";
    expect(rb_queue_producer_open(node, "e", &bad, &producer), RB_ERR_MISMATCH, "another type", "test.other");
    bad = o;
    bad.command_size = sizeof(command_t) + 8;
    expect(rb_queue_producer_open(node, "e", &bad, &producer), RB_ERR_MISMATCH, "another size", "bytes");
    bad = o;
    bad.producers = RB_QUEUE_MPSC;
    expect(rb_queue_producer_open(node, "e", &bad, &producer), RB_ERR_MISMATCH, "mpsc on spsc", "producers");

    OK(rb_queue_producer_open(node, "e", &o, &producer));
    command_t c = {1, 2, 3}, out;
    expect(rb_queue_pop(consumer, &out), RB_EMPTY, "an empty pop", NULL);
    expect(rb_queue_wait(consumer, 1000000), RB_TIMEOUT, "a wait on an empty queue", NULL);
    OK(rb_queue_push(producer, &c));
    OK(rb_queue_push(producer, &c));
    expect(rb_queue_push(producer, &c), RB_ERR_FULL, "a push to a full queue", "full");
    expect(rb_queue_push_timeout(producer, &c, 1000000), RB_TIMEOUT, "a timed push to a full queue", NULL);
    expect(rb_queue_push(producer, NULL), RB_ERR_INVALID_ARGUMENT, "a NULL command", "command is NULL");
    expect(rb_queue_push(NULL, &c), RB_ERR_INVALID_ARGUMENT, "a NULL producer", "producer is NULL");
    size_t n = 99;
    OK(rb_queue_pop_batch(consumer, NULL, 0, &n));
    CHECK(n == 0, "a batch of 0");
    OK(rb_queue_pop(consumer, &out));
    CHECK(out.producer == 1 && out.sequence == 2 && out.check == 3, "the command as pushed");
    CHECK(!rb_queue_consumer_alive(NULL), "NULL: false");
    CHECK(rb_queue_abandoned(NULL) == 0, "NULL: 0");
    rb_waitset *ws;
    uint64_t key;
    OK(rb_waitset_open(&ws));
    expect(rb_waitset_attach_queue(ws, NULL, &key), RB_ERR_INVALID_ARGUMENT, "a NULL consumer", "consumer is NULL");
    rb_queue_options polled = o;
    polled.wake = RB_WAKE_NEVER;
    rb_queue_consumer *poller;
    OK(rb_queue_consumer_open(node, "polled", &polled, &poller));
    expect(rb_waitset_attach_queue(ws, poller, &key), RB_ERR_POLLING_ONLY, "a polling queue in a wait set", NULL);
    OK(rb_queue_unlink(poller));
    rb_queue_consumer_close(poller);
    OK(rb_waitset_close(ws));
    OK(rb_queue_unlink(consumer));
    rb_queue_producer_close(producer);
    rb_queue_consumer_close(consumer);
    rb_queue_consumer_close(NULL);
    rb_node_close(node);
    printf("errors ok\n");
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 5 && !strcmp(argv[1], "consume")) return consume(argv[2], strtoull(argv[3], 0, 10), strtoull(argv[4], 0, 10), 0);
    if (argc == 5 && !strcmp(argv[1], "consume-waitset"))
        return consume(argv[2], strtoull(argv[3], 0, 10), strtoull(argv[4], 0, 10), 1);
    if (argc == 5 && !strcmp(argv[1], "produce")) return produce(argv[2], strtoull(argv[3], 0, 10), strtoull(argv[4], 0, 10));
    if (argc == 3 && !strcmp(argv[1], "errors")) return errors(argv[2]);
    fprintf(stderr, "usage: queue consume|consume-waitset ROOT PRODUCERS COUNT | produce ROOT ID COUNT | errors ROOT\n");
    return 2;
}
