/* ringbus C API: zero-copy publish/subscribe between processes on one Linux machine.
 *
 * Generated from crates/ringbus-c/src by cbindgen; do not edit. A test
 * (crates/ringbus-c/tests/c_api.rs) fails when this file is out of date;
 * RINGBUS_BLESS=1 cargo test -p ringbus-c rewrites it.
 *
 * Conventions: every function that can fail returns an rb_status; on failure
 * rb_last_error() describes what went wrong and what to do, for the calling
 * thread. Handles are opaque. Nodes, latches and semaphores may be used by
 * several threads at once; publishers, subscribers and samples by one thread
 * at a time; a wait set only by the thread that opened it. Build and link:
 * see crates/ringbus-c/README.md. */

#ifndef RINGBUS_H
#define RINGBUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/**
 * `rb_waitset_attach_fd`'s interest and `RB_EVENT_FD`'s value: readable.
 */
#define RB_FD_READABLE 1

/**
 * `rb_waitset_attach_fd`'s interest and `RB_EVENT_FD`'s value: writable.
 */
#define RB_FD_WRITABLE 2

/**
 * `RB_EVENT_FD`'s value: hung up or failed.
 */
#define RB_FD_HANGUP 4

/**
 * What a call returned. `RB_OK` and the positive values are outcomes; the negative ones are
 * failures, described by `rb_last_error`.
 */
enum rb_status
#if defined(__cplusplus) || __STDC_VERSION__ >= 202311L
  : int32_t
#endif // defined(__cplusplus) || __STDC_VERSION__ >= 202311L
 {
  /**
   * Done.
   */
  RB_OK = 0,
  /**
   * `rb_subscriber_take`: nothing new. `rb_semaphore_try_wait`: no free token.
   * `rb_queue_pop`: no command.
   */
  RB_EMPTY = 1,
  /**
   * `rb_subscriber_receive`, `rb_latch_wait`, `rb_semaphore_wait`, `rb_word_wait`,
   * `rb_queue_wait`, `rb_queue_push_timeout`, `rb_client_call`: the timeout expired.
   */
  RB_TIMEOUT = 2,
  /**
   * A NULL pointer, a string that is not UTF-8, a misaligned word, or a call out of order
   * (a second loan, a publish without a loan, a publish longer than its loan).
   */
  RB_ERR_INVALID_ARGUMENT = -1,
  /**
   * A system call failed (the message names it and the path).
   */
  RB_ERR_IO = -2,
  /**
   * The root directory is missing, not ours, or has the wrong mode.
   */
  RB_ERR_ROOT_UNUSABLE = -3,
  /**
   * The shared-memory filesystem is full.
   */
  RB_ERR_NO_SPACE = -4,
  /**
   * The topic or node name is not allowed.
   */
  RB_ERR_INVALID_NAME = -5,
  /**
   * A topic option is out of its range.
   */
  RB_ERR_INVALID_CONFIG = -6,
  /**
   * The topic or queue exists with a different configuration or type.
   */
  RB_ERR_MISMATCH = -7,
  /**
   * A file in the root is not a ringbus segment, or is truncated.
   */
  RB_ERR_FOREIGN = -8,
  /**
   * A segment was made by an incompatible version of ringbus.
   */
  RB_ERR_VERSION_MISMATCH = -9,
  /**
   * Shared memory holds a value out of range (a bad or crashed peer).
   */
  RB_ERR_CORRUPTED = -10,
  /**
   * The topic already has its maximum number of publishers or subscribers, or the queue
   * its consumer (or its SPSC producer, or 64 MPSC producers).
   */
  RB_ERR_TOO_MANY = -11,
  /**
   * A loan larger than the topic's `max_payload_bytes`.
   */
  RB_ERR_TOO_LARGE = -12,
  /**
   * Every chunk of the publisher is held by subscribers or loaned.
   */
  RB_ERR_POOL_EXHAUSTED = -13,
  /**
   * The subscriber already holds `max_held` samples: release one first.
   */
  RB_ERR_HELD_LIMIT = -14,
  /**
   * `rb_subscriber_receive` on a subscriber opened with `RB_WAKE_NEVER`.
   */
  RB_ERR_POLLING_ONLY = -15,
  /**
   * `rb_semaphore_post` on a semaphore that already holds the maximum count (2^31 - 1):
   * a post without a matching wait.
   */
  RB_ERR_SEMAPHORE_FULL = -16,
  /**
   * A loan would take the publisher's payload memory over the topic's `pool_bytes`:
   * create the topic with a larger `pool_bytes`, or keep fewer messages in flight.
   */
  RB_ERR_POOL_BUDGET = -17,
  /**
   * A reliable subscriber has not taken the message a loan would overwrite, and the
   * publisher's `when_full` said not to wait (longer). `rb_queue_push`: the queue is
   * full (nothing pushed).
   */
  RB_ERR_FULL = -18,
  /**
   * Opening waited longer than its open timeout for another process holding the topic's
   * or queue's lock (one stopped by Ctrl-Z or a debugger while it joined or left).
   */
  RB_ERR_LOCK_TIMED_OUT = -19,
  /**
   * `rb_client_call`: no server serves the service (none was started, or it exited or
   * was killed). Start one and call again; the client finds it by name.
   */
  RB_ERR_SERVER_GONE = -20,
  /**
   * A bug in ringbus; the message says where.
   */
  RB_ERR_PANIC = -99,
};
#ifndef __cplusplus
#if __STDC_VERSION__ >= 202311L
typedef enum rb_status rb_status;
#else
typedef int32_t rb_status;
#endif // __STDC_VERSION__ >= 202311L
#endif // __cplusplus

/**
 * How many producers a queue takes (`rb_queue_options::producers`).
 */
enum rb_queue_producers
#if defined(__cplusplus) || __STDC_VERSION__ >= 202311L
  : uint32_t
#endif // defined(__cplusplus) || __STDC_VERSION__ >= 202311L
 {
  /**
   * An existing queue's setting; one producer at a time for a new queue.
   */
  RB_QUEUE_DEFAULT = 0,
  /**
   * One producer at a time: pushes need no atomic read-modify-write.
   */
  RB_QUEUE_SPSC = 1,
  /**
   * Up to 64 producers at once; a consumer skips what a producer killed mid-push
   * claimed and never wrote (`rb_queue_abandoned`).
   */
  RB_QUEUE_MPSC = 2,
};
#ifndef __cplusplus
#if __STDC_VERSION__ >= 202311L
typedef enum rb_queue_producers rb_queue_producers;
#else
typedef uint32_t rb_queue_producers;
#endif // __STDC_VERSION__ >= 202311L
#endif // __cplusplus

/**
 * How a subscriber learns of new messages (`rb_topic_options::wake`).
 */
enum rb_wake
#if defined(__cplusplus) || __STDC_VERSION__ >= 202311L
  : uint32_t
#endif // defined(__cplusplus) || __STDC_VERSION__ >= 202311L
 {
  /**
   * Sleeps in `rb_subscriber_receive` and is woken by publishers (the default).
   */
  RB_WAKE_ON_DATA = 0,
  /**
   * Never woken: only `rb_subscriber_take`; publishers make no system call for it.
   */
  RB_WAKE_NEVER = 1,
};
#ifndef __cplusplus
#if __STDC_VERSION__ >= 202311L
typedef enum rb_wake rb_wake;
#else
typedef uint32_t rb_wake;
#endif // __STDC_VERSION__ >= 202311L
#endif // __cplusplus

/**
 * What became ready.
 */
typedef enum {
  /**
   * The subscriber may have data: `rb_subscriber_take` until `RB_EMPTY`. For a queue's
   * consumer: a command is ready; `rb_queue_pop` until `RB_EMPTY`.
   */
  RB_EVENT_DATA = 1,
  /**
   * The word changed; `value` is its new value (the next wait waits for it to change again).
   */
  RB_EVENT_WORD = 2,
  /**
   * The latch is set (reported at every wait until it is reset).
   */
  RB_EVENT_LATCH_SET = 3,
  /**
   * A semaphore token was taken for you: `rb_semaphore_post` it back when done.
   */
  RB_EVENT_TOKEN = 4,
  /**
   * The fd is ready (level-triggered); `value` holds `RB_FD_*` bits.
   */
  RB_EVENT_FD = 5,
  /**
   * An interval elapsed; `value` is how many periods passed since it last fired.
   */
  RB_EVENT_INTERVAL = 6,
  /**
   * The deadline passed (reported once).
   */
  RB_EVENT_DEADLINE = 7,
} rb_event_kind;

/**
 * Whether a publisher reserves every chunk's memory when it is created
 * (`rb_topic_options::preallocate`).
 */
enum rb_preallocate
#if defined(__cplusplus) || __STDC_VERSION__ >= 202311L
  : uint32_t
#endif // defined(__cplusplus) || __STDC_VERSION__ >= 202311L
 {
  /**
   * The existing topic's setting; for a new topic, `RB_PREALLOCATE_YES` if
   * `max_payload_bytes` ≤ 4096, else `RB_PREALLOCATE_NO`.
   */
  RB_PREALLOCATE_DEFAULT = 0,
  /**
   * A fixed pool: all of it reserved up front, no system call on any loan.
   */
  RB_PREALLOCATE_YES = 1,
  /**
   * On demand: each chunk holds memory (whole pages) only for the message lent in it,
   * at most `pool_bytes` per publisher.
   */
  RB_PREALLOCATE_NO = 2,
};
#ifndef __cplusplus
#if __STDC_VERSION__ >= 202311L
typedef enum rb_preallocate rb_preallocate;
#else
typedef uint32_t rb_preallocate;
#endif // __STDC_VERSION__ >= 202311L
#endif // __cplusplus

/**
 * What a publisher's loan does when a reliable subscriber has not taken the message it would
 * overwrite (`rb_topic_options::when_full`).
 */
enum rb_when_full
#if defined(__cplusplus) || __STDC_VERSION__ >= 202311L
  : uint32_t
#endif // defined(__cplusplus) || __STDC_VERSION__ >= 202311L
 {
  /**
   * Wait until that subscriber takes it, at most `when_full_timeout_ns` (0: as long as it
   * takes; the default), then fail with `RB_ERR_FULL`. A subscriber that dies stops
   * holding the publisher back.
   */
  RB_WHEN_FULL_WAIT = 0,
  /**
   * Fail at once with `RB_ERR_FULL`.
   */
  RB_WHEN_FULL_FAIL = 1,
};
#ifndef __cplusplus
#if __STDC_VERSION__ >= 202311L
typedef enum rb_when_full rb_when_full;
#else
typedef uint32_t rb_when_full;
#endif // __STDC_VERSION__ >= 202311L
#endif // __cplusplus

/**
 * Calls one service; follows it across server restarts. One thread at a time.
 */
typedef struct rb_client rb_client;

/**
 * A one-bit event between processes: `rb_latch_set` wakes every waiter (one system call,
 * none if nobody waits); the owner resets it, then looks for work, then waits.
 */
typedef struct rb_latch rb_latch;

/**
 * A participant: opens topics, latches and semaphores, from several threads at once if
 * need be. What it opens keeps what it needs of it, so it may be closed before them.
 */
typedef struct rb_node rb_node;

/**
 * A publisher on one topic, with at most one loan outstanding.
 */
typedef struct rb_publisher rb_publisher;

/**
 * Pops commands from a queue (its only consumer). One thread at a time.
 */
typedef struct rb_queue_consumer rb_queue_consumer;

/**
 * Pushes commands into a queue. One thread at a time.
 */
typedef struct rb_queue_producer rb_queue_producer;

/**
 * A message held in place in shared memory until `rb_sample_release`; it counts against
 * the topic's `max_held` and keeps its chunk from being reused meanwhile.
 */
typedef struct rb_sample rb_sample;

/**
 * A counting semaphore between processes: `rb_semaphore_post` wakes exactly one sleeper
 * (no herd) and makes no system call when nobody sleeps.
 */
typedef struct rb_semaphore rb_semaphore;

/**
 * Serves one service: answers requests with a handler. One thread at a time.
 */
typedef struct rb_service rb_service;

/**
 * A subscriber on one topic.
 */
typedef struct rb_subscriber rb_subscriber;

/**
 * A wait set, used only by the thread that opened it.
 */
typedef struct rb_waitset rb_waitset;

/**
 * A topic's settings. Zero-initialize it (`rb_topic_options o = {0};`) and set what you
 * need: every field left 0 means "the default for a new topic, whatever the topic already
 * has for an existing one". A set field that differs from an existing topic's makes the
 * open fail with `RB_ERR_MISMATCH`. Ranges and defaults are those of the Rust
 * `TopicBuilder` (see the README): max_publishers 1..=64 (4), max_subscribers 1..=1024
 * (16), depth a power of two up to 65536 (16), history ≤ depth (0), max_held 1..=256 (4),
 * max_payload_bytes up to 1 GiB (4096), pool_bytes from max_payload_bytes up to 16 TiB
 * (1 GiB, or 4 × max_payload_bytes if more), preallocate (`RB_PREALLOCATE_DEFAULT`).
 * `reliable`, `when_full` and `when_full_timeout_ns` belong to one subscriber or publisher,
 * not to the topic: they never make an open fail with `RB_ERR_MISMATCH`, and 0 means
 * a lossy subscriber and a publisher that waits as long as it takes.
 */
typedef struct {
  uint32_t max_publishers;
  uint32_t max_subscribers;
  /**
   * Log entries per publisher (a power of two).
   */
  uint32_t depth;
  /**
   * Past messages a subscriber that joins late receives.
   */
  uint32_t history;
  /**
   * Samples one subscriber may hold at once.
   */
  uint32_t max_held;
  /**
   * Payload chunks per publisher.
   */
  uint32_t chunks;
  /**
   * Largest message.
   */
  uint64_t max_payload_bytes;
  /**
   * Most payload memory one publisher may hold at once; a loan that would go over it
   * fails with `RB_ERR_POOL_BUDGET`.
   */
  uint64_t pool_bytes;
  /**
   * An `rb_preallocate` value.
   */
  uint32_t preallocate;
  /**
   * Subscribers only: keep only the newest `keep_last` unread messages (1..=depth).
   */
  uint32_t keep_last;
  /**
   * Publishers only: sleepers a publish wakes itself before relaying (at least 1; 2).
   */
  uint32_t direct_wakes;
  /**
   * Subscribers only: an `rb_wake` value.
   */
  uint32_t wake;
  /**
   * Subscribers only: 1 for a reliable subscriber — no publisher overwrites a message it
   * has not taken (a publisher that would waits or fails, as its `when_full` says);
   * 0 for a lossy one (the default: a slow subscriber loses what publishers overwrite,
   * and counts it in `rb_subscriber_lost`). Not with `keep_last` (`RB_ERR_INVALID_CONFIG`).
   */
  uint32_t reliable;
  /**
   * Publishers only: an `rb_when_full` value.
   */
  uint32_t when_full;
  /**
   * Publishers only, with `RB_WHEN_FULL_WAIT`: the longest a loan waits for a reliable
   * subscriber, in nanoseconds; 0: as long as it takes.
   */
  uint64_t when_full_timeout_ns;
  /**
   * The payload type's name (1 to 256 bytes, NUL-terminated; the same in every program
   * of the topic, e.g. "geometry.Pose"), or NULL for a topic of plain bytes. With a
   * name, `payload_size` (at least 1) and `payload_align` (a power of two up to 4096; 0
   * means 1) say the type's layout, and an open with another name, size or alignment
   * fails with `RB_ERR_MISMATCH`. A Rust program joins with its own type under that name
   * (`payload_type_as::<T>(name)`).
   */
  const char *payload_type_name;
  /**
   * `sizeof` the payload type (with a name).
   */
  size_t payload_size;
  /**
   * `_Alignof` the payload type (with a name; 0 means 1).
   */
  size_t payload_align;
} rb_topic_options;

/**
 * A queue's command type and settings. Zero-initialize it (`rb_queue_options o = {0};`),
 * then give the command type — `type_name` (1 to 256 bytes, the same in every program that
 * opens the queue, e.g. "arm.move"), `command_size` (1 to 65536 bytes) and `command_align`
 * (a power of two up to 4096; 0 means 1) — and what else you need. `capacity` (a power of
 * two, 2 to 2^24): 0 means the existing queue's, or 1024 for a new one. `wake`:
 * `RB_WAKE_NEVER` creates a queue nobody sleeps on (pushes and pops skip the wake-up
 * check; waits poll); `RB_WAKE_ON_DATA` (0) takes an existing queue's setting and creates
 * a waking one. A type or set field that differs from an existing queue's makes the open
 * fail with `RB_ERR_MISMATCH`.
 */
typedef struct {
  /**
   * The command type's name (NUL-terminated).
   */
  const char *type_name;
  /**
   * Bytes of one command (`sizeof` your command struct).
   */
  size_t command_size;
  /**
   * Its alignment (`_Alignof` your command struct); 0 means 1.
   */
  size_t command_align;
  /**
   * Commands the ring holds; 0: the existing queue's, or 1024.
   */
  uint32_t capacity;
  /**
   * An `rb_queue_producers` value.
   */
  rb_queue_producers producers;
  /**
   * An `rb_wake` value.
   */
  rb_wake wake;
} rb_queue_options;

/**
 * A service's request and response types, and its queue sizes. Zero-initialize it
 * (`rb_service_options o = {0};`) and give both types: a name (1 to 256 bytes, the same in
 * every program of the service, e.g. "arm.plan_request"), a size (1 to 65520 bytes) and an
 * alignment (a power of two up to 4096; 0 means 1). `capacity` (a power of two, 2 to
 * 2^24; 0: 64): for a service, the requests that can wait; for a client, its responses
 * in flight.
 */
typedef struct {
  /**
   * The request type's name (NUL-terminated).
   */
  const char *request_type_name;
  /**
   * `sizeof` the request struct.
   */
  size_t request_size;
  /**
   * `_Alignof` the request struct (0 means 1).
   */
  size_t request_align;
  /**
   * The response type's name (NUL-terminated).
   */
  const char *response_type_name;
  /**
   * `sizeof` the response struct.
   */
  size_t response_size;
  /**
   * `_Alignof` the response struct (0 means 1).
   */
  size_t response_align;
  /**
   * Requests that can wait (service), responses in flight (client); 0: 64.
   */
  uint32_t capacity;
} rb_service_options;

/**
 * Answers one request: reads `request` (the request type's size) and writes the answer
 * into `response` (the response type's size, zeroed). `context` is what was given to
 * `rb_service_serve_once`. It must return normally (no `longjmp` out of it).
 */
typedef void (*rb_service_handler)(void *context, const void *request, void *response);

/**
 * One ready source: the key its `rb_waitset_attach_*` returned, what happened, and a
 * value for `RB_EVENT_WORD`, `RB_EVENT_FD` and `RB_EVENT_INTERVAL` (0 otherwise).
 */
typedef struct {
  uint64_t key;
  rb_event_kind kind;
  uint64_t value;
} rb_event;

#ifdef __cplusplus
extern "C" {
#endif // __cplusplus

/**
 * The message of the last call that failed on this thread ("" if none has): what went
 * wrong and what to do. Valid until the next failing call on this thread.
 */
const char *rb_last_error(void);

/**
 * The library's version, e.g. "0.1.0" (static storage).
 */
const char *rb_version(void);

/**
 * Opens a node named `name` in the root directory `root` (NULL: `$RINGBUS_ROOT`, else
 * `/dev/shm/ringbus-<uid>`), creating the directory if needed. On success `*out_node` is
 * the node, to be closed with `rb_node_close`; on failure it is NULL.
 *
 * # Safety
 * `name` (and `root` unless NULL) are NUL-terminated strings; `out_node` is writable.
 */
rb_status rb_node_open(const char *name, const char *root, rb_node **out_node);

/**
 * Closes a node (NULL: nothing).
 *
 * # Safety
 * `node` is NULL or a node from `rb_node_open` not closed yet.
 */
void rb_node_close(rb_node *node);

/**
 * Opens the latch `name` under the node's root, creating it (not set) if it does not
 * exist. Names follow the topic-name rules. On success `*out_latch` is the latch, to be
 * closed with `rb_latch_close`; on failure it is NULL.
 *
 * # Safety
 * `node` is a live node; `name` a NUL-terminated string; `out_latch` writable.
 */
rb_status rb_latch_open(const rb_node *node, const char *name, rb_latch **out_latch);

/**
 * Sets the latch and wakes every waiter; setting a set latch does nothing.
 *
 * # Safety
 * `latch` is a live latch.
 */
rb_status rb_latch_set(const rb_latch *latch);

/**
 * Clears the latch. Reset, *then* look for work, then wait: a set in between is never
 * missed.
 *
 * # Safety
 * `latch` is a live latch.
 */
rb_status rb_latch_reset(const rb_latch *latch);

/**
 * Whether the latch is set (NULL: false).
 *
 * # Safety
 * `latch` is NULL or a live latch.
 */
bool rb_latch_is_set(const rb_latch *latch);

/**
 * Waits until the latch is set (at once if it is), at most `timeout_ns` nanoseconds
 * (negative: no limit): `RB_OK`, or `RB_TIMEOUT`.
 *
 * # Safety
 * `latch` is a live latch.
 */
rb_status rb_latch_wait(const rb_latch *latch, int64_t timeout_ns);

/**
 * Removes the latch's name, like `sem_unlink`: handles already open keep working; the
 * next open of the name creates a new latch.
 *
 * # Safety
 * `latch` is a live latch.
 */
rb_status rb_latch_unlink(const rb_latch *latch);

/**
 * Closes this handle (NULL: nothing); the latch itself stays for other handles and
 * processes.
 *
 * # Safety
 * `latch` is NULL or a latch from `rb_latch_open` not closed yet, in use by no thread.
 */
void rb_latch_close(rb_latch *latch);

/**
 * Opens the semaphore `name` under the node's root, creating it with `initial` tokens
 * (at most 2^31 - 1) if it does not exist; an existing semaphore keeps its count. On
 * success `*out_semaphore` is the semaphore, to be closed with `rb_semaphore_close`; on
 * failure it is NULL.
 *
 * # Safety
 * `node` is a live node; `name` a NUL-terminated string; `out_semaphore` writable.
 */
rb_status rb_semaphore_open(const rb_node *node,
                            const char *name,
                            uint32_t initial,
                            rb_semaphore **out_semaphore);

/**
 * Returns a token and wakes exactly one sleeper, if any sleeps: `RB_OK`, or
 * `RB_ERR_SEMAPHORE_FULL` (nothing changed) when it already holds 2^31 - 1 tokens.
 *
 * # Safety
 * `semaphore` is a live semaphore.
 */
rb_status rb_semaphore_post(const rb_semaphore *semaphore);

/**
 * Takes a token if one is free, without blocking and without a system call: `RB_OK`
 * (taken) or `RB_EMPTY` (none free).
 *
 * # Safety
 * `semaphore` is a live semaphore.
 */
rb_status rb_semaphore_try_wait(const rb_semaphore *semaphore);

/**
 * Takes a token, sleeping until one is free, at most `timeout_ns` nanoseconds (negative:
 * no limit): `RB_OK` (taken), or `RB_TIMEOUT` (nothing taken).
 *
 * # Safety
 * `semaphore` is a live semaphore.
 */
rb_status rb_semaphore_wait(const rb_semaphore *semaphore, int64_t timeout_ns);

/**
 * Free tokens right now, a snapshot (NULL: 0).
 *
 * # Safety
 * `semaphore` is NULL or a live semaphore.
 */
uint32_t rb_semaphore_value(const rb_semaphore *semaphore);

/**
 * Removes the semaphore's name, like `sem_unlink`: handles already open keep working;
 * the next open of the name creates a new semaphore.
 *
 * # Safety
 * `semaphore` is a live semaphore.
 */
rb_status rb_semaphore_unlink(const rb_semaphore *semaphore);

/**
 * Closes this handle (NULL: nothing); the semaphore and its tokens stay for other
 * handles and processes. Tokens taken through it and not posted back stay taken: like a
 * POSIX semaphore, a process that dies holding tokens loses them.
 *
 * # Safety
 * `semaphore` is NULL or a semaphore from `rb_semaphore_open` not closed yet, in use by
 * no thread.
 */
void rb_semaphore_close(rb_semaphore *semaphore);

/**
 * Opens a publisher on `topic` (created with `options` if it does not exist; NULL: all
 * defaults). On success `*out_publisher` is the publisher, to be closed with
 * `rb_publisher_close`; on failure it is NULL.
 *
 * # Safety
 * `node` is a live node; `topic` a NUL-terminated string; `options` NULL or readable;
 * `out_publisher` writable.
 */
rb_status rb_publisher_open(const rb_node *node,
                            const char *topic,
                            const rb_topic_options *options,
                            rb_publisher **out_publisher);

/**
 * Closes a publisher (NULL: nothing), discarding its outstanding loan. Subscribers can
 * still take what it published.
 *
 * # Safety
 * `publisher` is NULL or a publisher from `rb_publisher_open` not closed yet.
 */
void rb_publisher_close(rb_publisher *publisher);

/**
 * Lends a chunk of `len` bytes (at most the topic's `max_payload_bytes`) and sets `*data`
 * to it: write the message there, then `rb_publisher_publish` (or `rb_publisher_discard`).
 * The memory is shared: do not keep the pointer after publishing. One loan at a time per
 * publisher: a second one fails with `RB_ERR_INVALID_ARGUMENT`. A loan that would take
 * the publisher's memory over the topic's `pool_bytes` fails with `RB_ERR_POOL_BUDGET`,
 * one the shared-memory filesystem has no room for with `RB_ERR_NO_SPACE`; smaller loans
 * may still succeed. Never blocks, unless the topic has a reliable subscriber that has not
 * taken the message this loan would overwrite (it is `depth` messages behind): then the
 * loan waits for it or fails with `RB_ERR_FULL`, as the publisher's `when_full` says.
 *
 * # Safety
 * `publisher` is a live publisher; `data` is writable.
 */
rb_status rb_publisher_loan(rb_publisher *publisher, size_t len, void **data);

/**
 * Lends a chunk for an array of `count` elements of `element_size` bytes (e.g.
 * `sizeof(struct point)`) and sets `*data` to its first element, as `rb_publisher_loan`
 * does for `count * element_size` bytes; publish it with `rb_publisher_publish(publisher,
 * count * element_size)`. Chunks are aligned to at least 64 bytes (more than any standard
 * C type needs).
 * An element size of 0 fails with `RB_ERR_INVALID_ARGUMENT`, a product that overflows
 * `size_t` with `RB_ERR_TOO_LARGE`. Subscribers read it with `rb_sample_array`.
 *
 * # Safety
 * `publisher` is a live publisher; `data` is writable.
 */
rb_status rb_publisher_loan_array(rb_publisher *publisher,
                                  size_t element_size,
                                  size_t count,
                                  void **data);

/**
 * Bytes of payload memory the publisher holds right now: with preallocation, the whole
 * pool; otherwise what the messages lent, in the log or held by subscribers take (whole
 * pages), at most the topic's `pool_bytes`.
 *
 * # Safety
 * `publisher` is NULL (0 is returned) or a live publisher.
 */
uint64_t rb_publisher_reserved_payload_bytes(const rb_publisher *publisher);

/**
 * Publishes the outstanding loan's first `len` bytes (at most what was loaned): every
 * subscriber sees them, sleeping ones are woken (one system call at most).
 *
 * # Safety
 * `publisher` is a live publisher.
 */
rb_status rb_publisher_publish(rb_publisher *publisher, size_t len);

/**
 * Gives the outstanding loan back unpublished (no loan: nothing).
 *
 * # Safety
 * `publisher` is a live publisher.
 */
rb_status rb_publisher_discard(rb_publisher *publisher);

/**
 * Publishes a copy of `len` bytes at `data` (one copy into shared memory). Its loan may
 * wait for a reliable subscriber or fail with `RB_ERR_FULL`, as `rb_publisher_loan`'s.
 *
 * # Safety
 * `publisher` is a live publisher; `data` is readable for `len` bytes (or `len` is 0).
 */
rb_status rb_publisher_publish_copy(rb_publisher *publisher, const void *data, size_t len);

/**
 * Opens the queue `name` under the node's root as a producer, creating it if it does not
 * exist. An SPSC queue takes one producer at a time (another open fails with
 * `RB_ERR_TOO_MANY` while it lives), an MPSC one up to 64. On success `*out_producer` is
 * the producer, to be closed with `rb_queue_producer_close`; on failure it is NULL.
 *
 * # Safety
 * `node` is a live node; `name` a NUL-terminated string; `options` valid, with a
 * NUL-terminated `type_name`; `out_producer` writable.
 */
rb_status rb_queue_producer_open(const rb_node *node,
                                 const char *name,
                                 const rb_queue_options *options,
                                 rb_queue_producer **out_producer);

/**
 * Pushes one command (`command_size` bytes at `command`): `RB_OK`, or `RB_ERR_FULL` when
 * the queue is full (nothing pushed: try again later, or use `rb_queue_push_timeout`).
 * Never blocks; wakes the consumer only if it sleeps.
 *
 * # Safety
 * `producer` is a live producer; `command` readable for `command_size` bytes.
 */
rb_status rb_queue_push(rb_queue_producer *producer, const void *command);

/**
 * Pushes as many of the `count` commands at `commands` (back to back) as fit, in order;
 * `*out_pushed` says how many (0 when full). Never blocks; one wake-up check for all.
 *
 * # Safety
 * `producer` is a live producer; `commands` readable for `count * command_size` bytes;
 * `out_pushed` NULL or writable.
 */
rb_status rb_queue_push_batch(rb_queue_producer *producer,
                              const void *commands,
                              size_t count,
                              size_t *out_pushed);

/**
 * Pushes one command, waiting at most `timeout_ns` nanoseconds (negative: no limit) for
 * room: `RB_OK`, or `RB_TIMEOUT` (nothing pushed).
 *
 * # Safety
 * As `rb_queue_push`.
 */
rb_status rb_queue_push_timeout(rb_queue_producer *producer,
                                const void *command,
                                int64_t timeout_ns);

/**
 * Whether the queue's consumer is alive (NULL: false). One system call.
 *
 * # Safety
 * `producer` is NULL or a live producer.
 */
bool rb_queue_consumer_alive(const rb_queue_producer *producer);

/**
 * Closes the producer (NULL: nothing); the queue and what it holds stay.
 *
 * # Safety
 * `producer` is NULL or a producer from `rb_queue_producer_open` not closed yet.
 */
void rb_queue_producer_close(rb_queue_producer *producer);

/**
 * Opens the queue `name` under the node's root as its consumer, creating it if it does
 * not exist. One consumer at a time: another open fails with `RB_ERR_TOO_MANY` while it
 * lives; after it dies, the next one takes over what was queued. On success
 * `*out_consumer` is the consumer, to be closed with `rb_queue_consumer_close`; on
 * failure it is NULL.
 *
 * # Safety
 * As `rb_queue_producer_open`, with `out_consumer` writable.
 */
rb_status rb_queue_consumer_open(const rb_node *node,
                                 const char *name,
                                 const rb_queue_options *options,
                                 rb_queue_consumer **out_consumer);

/**
 * Pops the oldest command into `out_command` (`command_size` bytes): `RB_OK`, or
 * `RB_EMPTY` (nothing written). Never blocks.
 *
 * # Safety
 * `consumer` is a live consumer; `out_command` writable for `command_size` bytes.
 */
rb_status rb_queue_pop(rb_queue_consumer *consumer, void *out_command);

/**
 * Pops up to `max` commands into `out_commands` (back to back, oldest first);
 * `*out_popped` says how many (0 when empty). Never blocks.
 *
 * # Safety
 * `consumer` is a live consumer; `out_commands` writable for `max * command_size` bytes;
 * `out_popped` NULL or writable.
 */
rb_status rb_queue_pop_batch(rb_queue_consumer *consumer,
                             void *out_commands,
                             size_t max,
                             size_t *out_popped);

/**
 * Waits until a command is ready, at most `timeout_ns` nanoseconds (negative: no limit):
 * `RB_OK` (pop it now), or `RB_TIMEOUT`. Sleeps only while the queue is empty; in a
 * `RB_WAKE_NEVER` queue it polls.
 *
 * # Safety
 * `consumer` is a live consumer.
 */
rb_status rb_queue_wait(rb_queue_consumer *consumer, int64_t timeout_ns);

/**
 * Commands skipped because their MPSC producer was killed after claiming their slots and
 * before writing them (NULL: 0). Never a command a live producer pushed.
 *
 * # Safety
 * `consumer` is NULL or a live consumer.
 */
uint64_t rb_queue_abandoned(const rb_queue_consumer *consumer);

/**
 * Removes the queue's name, like `sem_unlink`: handles already open keep working; the
 * next open of the name creates a new queue.
 *
 * # Safety
 * `consumer` is a live consumer.
 */
rb_status rb_queue_unlink(const rb_queue_consumer *consumer);

/**
 * Closes the consumer (NULL: nothing); the queue and what it holds stay, for the next
 * consumer.
 *
 * # Safety
 * `consumer` is NULL or a consumer from `rb_queue_consumer_open` not closed yet.
 */
void rb_queue_consumer_close(rb_queue_consumer *consumer);

/**
 * Serves the service `name` (one server at a time: another open fails with
 * `RB_ERR_TOO_MANY` while it lives). On success `*out_service` is the service, to be
 * closed with `rb_service_close` (which takes its request queue away: clients' calls
 * then fail with `RB_ERR_SERVER_GONE` until a new server opens); on failure it is NULL.
 *
 * # Safety
 * `node` is a live node; `name` a NUL-terminated string; `options` valid, with
 * NUL-terminated type names; `out_service` writable.
 */
rb_status rb_service_open(const rb_node *node,
                          const char *name,
                          const rb_service_options *options,
                          rb_service **out_service);

/**
 * Waits at most `timeout_ns` nanoseconds (negative: no limit) for requests, then answers
 * every request that is ready with `handler(context, request, response)`; `*out_answered`
 * says how many (0 after a timeout). A response whose client is gone is dropped.
 *
 * # Safety
 * `service` is a live service; `handler` a function that reads `request_size` bytes at
 * `request`, writes at most `response_size` bytes at `response` and returns normally;
 * `out_answered` NULL or writable.
 */
rb_status rb_service_serve_once(rb_service *service,
                                int64_t timeout_ns,
                                rb_service_handler handler,
                                void *context,
                                size_t *out_answered);

/**
 * Responses dropped because their client was gone or did not read (NULL: 0).
 *
 * # Safety
 * `service` is NULL or a live service.
 */
uint64_t rb_service_dropped(const rb_service *service);

/**
 * Stops serving (NULL: nothing): the request queue is removed, so calls fail with
 * `RB_ERR_SERVER_GONE` until another server opens.
 *
 * # Safety
 * `service` is NULL or a service from `rb_service_open` not closed yet.
 */
void rb_service_close(rb_service *service);

/**
 * Opens a client of the service `name`. Opening needs no server (a call without one fails
 * with `RB_ERR_SERVER_GONE`), but the types must be the service's. On success
 * `*out_client` is the client, to be closed with `rb_client_close`; on failure it is NULL.
 *
 * # Safety
 * As `rb_service_open`, with `out_client` writable.
 */
rb_status rb_client_open(const rb_node *node,
                         const char *name,
                         const rb_service_options *options,
                         rb_client **out_client);

/**
 * Sends `request` (`request_size` bytes) and waits at most `timeout_ns` nanoseconds (a
 * negative value: no limit) for the answer, written into `response` (`response_size`
 * bytes): `RB_OK`; `RB_TIMEOUT` (the server lives but did not answer in time; a late
 * answer is dropped); `RB_ERR_SERVER_GONE` (no server: none was started, or it exited
 * or was killed; checked before sending and while waiting — start one and call again);
 * or `RB_ERR_MISMATCH` (the server found serves other request or response types).
 *
 * # Safety
 * `client` is a live client; `request` readable for `request_size` bytes; `response`
 * writable for `response_size` bytes.
 */
rb_status rb_client_call(rb_client *client,
                         const void *request,
                         void *response,
                         int64_t timeout_ns);

/**
 * Closes the client (NULL: nothing); its response queue goes with it.
 *
 * # Safety
 * `client` is NULL or a client from `rb_client_open` not closed yet.
 */
void rb_client_close(rb_client *client);

/**
 * Opens a subscriber on `topic` (created with `options` if it does not exist; NULL: all
 * defaults). It receives what is published from now on, plus `history` older messages.
 * On success `*out_subscriber` is the subscriber, to be closed with
 * `rb_subscriber_close`; on failure it is NULL.
 *
 * # Safety
 * `node` is a live node; `topic` a NUL-terminated string; `options` NULL or readable;
 * `out_subscriber` writable.
 */
rb_status rb_subscriber_open(const rb_node *node,
                             const char *topic,
                             const rb_topic_options *options,
                             rb_subscriber **out_subscriber);

/**
 * Closes a subscriber (NULL: nothing). Samples it took stay valid until released.
 *
 * # Safety
 * `subscriber` is NULL or a subscriber from `rb_subscriber_open` not closed yet.
 */
void rb_subscriber_close(rb_subscriber *subscriber);

/**
 * The next unread message, without blocking and without a system call: `RB_OK` with
 * `*out_sample` set, or `RB_EMPTY` with it NULL.
 *
 * # Safety
 * `subscriber` is a live subscriber; `out_sample` is writable.
 */
rb_status rb_subscriber_take(rb_subscriber *subscriber, rb_sample **out_sample);

/**
 * Waits for the next message, sleeping in the kernel if there is none, at most
 * `timeout_ns` nanoseconds (negative: no limit): `RB_OK` with `*out_sample` set, or
 * `RB_TIMEOUT` with it NULL.
 *
 * # Safety
 * `subscriber` is a live subscriber; `out_sample` is writable.
 */
rb_status rb_subscriber_receive(rb_subscriber *subscriber,
                                int64_t timeout_ns,
                                rb_sample **out_sample);

/**
 * Messages taken so far.
 *
 * # Safety
 * `subscriber` is NULL (0 is returned) or a live subscriber.
 */
uint64_t rb_subscriber_taken(const rb_subscriber *subscriber);

/**
 * Messages overwritten before they were taken (`keep_last`, or a publisher lapping a slow
 * subscriber).
 *
 * # Safety
 * `subscriber` is NULL (0 is returned) or a live subscriber.
 */
uint64_t rb_subscriber_lost(const rb_subscriber *subscriber);

/**
 * The message's bytes, in place in shared memory (read-only), valid until
 * `rb_sample_release`.
 *
 * # Safety
 * `sample` is NULL (NULL is returned) or a live sample.
 */
const void *rb_sample_data(const rb_sample *sample);

/**
 * The message's length in bytes.
 *
 * # Safety
 * `sample` is NULL (0 is returned) or a live sample.
 */
size_t rb_sample_len(const rb_sample *sample);

/**
 * The message as an array of elements of `element_size` bytes aligned to `element_align`
 * (`sizeof` and `_Alignof` of the element type): on `RB_OK`, `*data` is the first element,
 * in place in shared memory (read-only) until `rb_sample_release`, and `*count` the number
 * of elements. `RB_ERR_INVALID_ARGUMENT` (with `*data` NULL and `*count` 0) if the message
 * is not a whole number of elements, is not aligned to `element_align`, or `element_size`
 * is 0 or `element_align` not a power of two.
 *
 * # Safety
 * `sample` is a live sample; `data` and `count` are writable.
 */
rb_status rb_sample_array(const rb_sample *sample,
                          size_t element_size,
                          size_t element_align,
                          const void **data,
                          size_t *count);

/**
 * When it was published: CLOCK_MONOTONIC nanoseconds, comparable across processes.
 *
 * # Safety
 * `sample` is NULL (0 is returned) or a live sample.
 */
uint64_t rb_sample_timestamp_ns(const rb_sample *sample);

/**
 * Releases a sample (NULL: nothing): its chunk may be reused, and it no longer counts
 * against `max_held`.
 *
 * # Safety
 * `sample` is NULL or a sample from `rb_subscriber_take`/`rb_subscriber_receive` not
 * released yet.
 */
void rb_sample_release(rb_sample *sample);

/**
 * Opens an empty wait set on the cheapest backend (futex while only shared-memory sources
 * and timers are attached; io_uring, or epoll where io_uring is refused, once an fd is).
 * It belongs to the calling thread. On failure `*out_waitset` is NULL.
 *
 * # Safety
 * `out_waitset` is writable.
 */
rb_status rb_waitset_open(rb_waitset **out_waitset);

/**
 * Wakes on data for `subscriber` (opened with `RB_WAKE_ON_DATA`: `RB_ERR_POLLING_ONLY`
 * otherwise). The subscriber stays usable; on `RB_EVENT_DATA`, take until `RB_EMPTY`.
 *
 * # Safety
 * `ws` is a live wait set; `subscriber` a live subscriber not used by another thread
 * during the call; `out_key` writable.
 */
rb_status rb_waitset_attach_subscriber(rb_waitset *ws,
                                       const rb_subscriber *subscriber,
                                       uint64_t *out_key);

/**
 * Wakes when a command is ready for `consumer` (of a queue opened with
 * `RB_WAKE_ON_DATA`: `RB_ERR_POLLING_ONLY` otherwise), as `RB_EVENT_DATA`. The consumer
 * stays usable; pop until `RB_EMPTY`. Do not also `rb_queue_wait` on it while the wait
 * set sleeps.
 *
 * # Safety
 * `ws` is a live wait set; `consumer` a live consumer not used by another thread during
 * the call; `out_key` writable.
 */
rb_status rb_waitset_attach_queue(rb_waitset *ws,
                                  const rb_queue_consumer *consumer,
                                  uint64_t *out_key);

/**
 * Wakes when the 32-bit word at `word` differs from `expected` (`RB_EVENT_WORD`, with the
 * new value, which becomes the next `expected`). Woken by `rb_word_wake` from any process.
 *
 * # Safety
 * `ws` is a live wait set; `word` as for `rb_word_wait`, and it stays mapped until it is
 * detached or the wait set closed; `out_key` writable.
 */
rb_status rb_waitset_attach_word(rb_waitset *ws,
                                 const uint32_t *word,
                                 uint32_t expected,
                                 uint64_t *out_key);

/**
 * Wakes while `latch` is set (`RB_EVENT_LATCH_SET` at every wait until it is reset).
 *
 * # Safety
 * `ws` is a live wait set; `latch` a live latch; `out_key` writable.
 */
rb_status rb_waitset_attach_latch(rb_waitset *ws, const rb_latch *latch, uint64_t *out_key);

/**
 * Takes a token of `semaphore` for you whenever one is free: each `RB_EVENT_TOKEN` is one
 * token you now hold and must `rb_semaphore_post` back.
 *
 * # Safety
 * `ws` is a live wait set; `semaphore` a live semaphore; `out_key` writable.
 */
rb_status rb_waitset_attach_semaphore(rb_waitset *ws,
                                      const rb_semaphore *semaphore,
                                      uint64_t *out_key);

/**
 * Wakes when `fd` is readable and/or writable (`interest`: `RB_FD_READABLE`,
 * `RB_FD_WRITABLE` or both; level-triggered). The wait set watches a duplicate, so the
 * caller may close its fd at any time (then detach: the duplicate stays open until then).
 *
 * # Safety
 * `ws` is a live wait set; `out_key` writable.
 */
rb_status rb_waitset_attach_fd(rb_waitset *ws, int32_t fd, uint32_t interest, uint64_t *out_key);

/**
 * Fires every `period_ns` nanoseconds (more than 0), first one period from now.
 *
 * # Safety
 * `ws` is a live wait set; `out_key` writable.
 */
rb_status rb_waitset_attach_interval(rb_waitset *ws, uint64_t period_ns, uint64_t *out_key);

/**
 * Fires once, `in_ns` nanoseconds from now.
 *
 * # Safety
 * `ws` is a live wait set; `out_key` writable.
 */
rb_status rb_waitset_attach_deadline(rb_waitset *ws, uint64_t in_ns, uint64_t *out_key);

/**
 * Detaches the source `key` (`RB_ERR_INVALID_ARGUMENT` if no source has it). Its pending
 * events are dropped, except semaphore tokens, which go back to the semaphore.
 *
 * # Safety
 * `ws` is a live wait set.
 */
rb_status rb_waitset_detach(rb_waitset *ws, uint64_t key);

/**
 * Waits until a source is ready or `timeout_ns` passes (negative: no limit; 0: only look)
 * and writes up to `capacity` events to `events`: `RB_OK` with `*out_count` ≥ 1, or
 * `RB_TIMEOUT` with 0. Events beyond `capacity` are returned by the next call, at once.
 * With nothing attached and no limit: `RB_ERR_INVALID_ARGUMENT` (it would never return).
 *
 * # Safety
 * `ws` is a live wait set; `events` writable for `capacity` events; `out_count` writable.
 */
rb_status rb_waitset_wait(rb_waitset *ws,
                          int64_t timeout_ns,
                          rb_event *events,
                          size_t capacity,
                          size_t *out_count);

/**
 * An fd that becomes readable when `rb_waitset_wait` would report something, for a
 * foreign event loop (epoll, libuv, ...): poll it, then call `rb_waitset_wait` with a
 * timeout of 0, which collects the events and re-arms. Valid until the wait set is closed.
 *
 * # Safety
 * `ws` is a live wait set; `out_fd` writable.
 */
rb_status rb_waitset_fd(rb_waitset *ws, int32_t *out_fd);

/**
 * The backend in use now: "futex", "io_uring" or "epoll" (static storage); "" for NULL or
 * a call from another thread.
 *
 * # Safety
 * `ws` is NULL or a live wait set.
 */
const char *rb_waitset_backend(rb_waitset *ws);

/**
 * Closes the wait set (NULL: nothing): detaches everything and gives back the semaphore
 * tokens of events never returned. `RB_ERR_INVALID_ARGUMENT` from another thread than the
 * one that opened it (the wait set then stays open).
 *
 * # Safety
 * `ws` is NULL or a live wait set, not used again after `RB_OK`.
 */
rb_status rb_waitset_close(rb_waitset *ws);

/**
 * Waits until the 32-bit word at `word` differs from `expected` (at once if it does), at
 * most `timeout_ns` nanoseconds (negative: no limit; 0: only look): `RB_OK`, with the
 * value found in `*out_found` unless `out_found` is NULL, or `RB_TIMEOUT` (`*out_found`
 * untouched). Spurious wake-ups are absorbed.
 *
 * Change the word first (an atomic store with release order), then call `rb_word_wake`:
 * a waiter that has not slept yet sees the change and does not sleep.
 *
 * # Safety
 * `word` points to a 4-byte aligned word that stays mapped during the call and is accessed
 * only atomically by every thread and process (`__atomic` builtins on a `uint32_t`, or a
 * C11 `_Atomic uint32_t` cast to `const uint32_t *`: the same layout with gcc and clang);
 * `out_found` is NULL or writable.
 */
rb_status rb_word_wait(const uint32_t *word,
                       uint32_t expected,
                       int64_t timeout_ns,
                       uint32_t *out_found);

/**
 * Wakes up to `n` processes or threads waiting on the word at `word` (`UINT32_MAX`: all of
 * them) — in `rb_word_wait`, a ringbus wait, or a raw shared `FUTEX_WAIT` — with one system
 * call, and stores how many woke in `*out_woken` unless it is NULL. Skip the call when you
 * know nobody waits (a waiters count beside the word): it costs a system call even then.
 *
 * # Safety
 * `word` is as for `rb_word_wait` (it is not written); `out_woken` is NULL or writable.
 */
rb_status rb_word_wake(const uint32_t *word, uint32_t n, uint32_t *out_woken);

#ifdef __cplusplus
}  // extern "C"
#endif  // __cplusplus

#endif  /* RINGBUS_H */
