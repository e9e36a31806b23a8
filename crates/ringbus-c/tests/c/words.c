/* Driven by tests/c_api.rs: `words ROOT ROUNDS` checks rb_word_wait and rb_word_wake between
 * processes, with no handle: ROUNDS values ping-ponged between a parent and a forked child
 * over two words of a file in ROOT that each maps on its own (so at different addresses);
 * three children woken by one wake of all, on an anonymous shared mapping; waits that
 * return at once or time out; and bad arguments. Every wait is bounded (10 s), so a lost
 * wake-up fails instead of hanging. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include "ringbus.h"
#include "check.h"

static const int64_t STEP_LIMIT_NS = 10LL * 1000 * 1000 * 1000;
/* u32 words per cache line: the two ping-pong words sit on lines of their own. */
enum { LINE = 16 };

static uint32_t load(const uint32_t *w) { return __atomic_load_n(w, __ATOMIC_ACQUIRE); }
static void store(uint32_t *w, uint32_t v) { __atomic_store_n(w, v, __ATOMIC_RELEASE); }

/* Waits until *w holds `want`, each wait at most STEP_LIMIT_NS. */
static void await_value(const uint32_t *w, uint32_t want) {
    for (uint32_t now = load(w); now != want; now = load(w)) {
        uint32_t found = now;
        rb_status s = rb_word_wait(w, now, STEP_LIMIT_NS, &found);
        CHECK(s == RB_OK, "waited 10 s for %u; the word still holds %u (status %d)", want, now, (int)s);
        CHECK(found != now, "rb_word_wait returned with the value it was to wait past (%u)", found);
    }
}

static uint32_t *map_file(int fd) {
    uint32_t *w = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    CHECK(w != MAP_FAILED, "mmap of the words file");
    return w;
}

static void reap(pid_t child) {
    int status = 0;
    CHECK(waitpid(child, &status, 0) == child, "waitpid");
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child %d failed (status %#x)", (int)child, status);
}

static void ping_pong(const char *root, uint32_t rounds) {
    char path[4096];
    snprintf(path, sizeof path, "%s/words-ping-pong", root);
    int fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
    CHECK(fd >= 0, "cannot create %s", path);
    CHECK(ftruncate(fd, 4096) == 0, "ftruncate");
    uint32_t *mine = map_file(fd);
    pid_t child = fork();
    CHECK(child >= 0, "fork");
    if (child == 0) {
        uint32_t *theirs = map_file(fd); /* `mine` is still mapped: another address */
        CHECK(theirs != mine, "the second mapping landed at the same address");
        for (uint32_t r = 1; r <= rounds; r++) {
            await_value(&theirs[0], r);
            store(&theirs[LINE], r);
            OK(rb_word_wake(&theirs[LINE], 1, NULL));
        }
        _exit(0);
    }
    uint32_t woken_total = 0;
    for (uint32_t r = 1; r <= rounds; r++) {
        store(&mine[0], r);
        uint32_t woken = UINT32_MAX;
        OK(rb_word_wake(&mine[0], 1, &woken));
        CHECK(woken <= 1, "a wake of 1 reported %u woken", woken);
        woken_total += woken;
        await_value(&mine[LINE], r);
    }
    reap(child);
    printf("ping-pong: %u rounds, the child was woken %u times\n", rounds, woken_total);
    munmap(mine, 4096);
    close(fd);
    CHECK(unlink(path) == 0, "unlink %s", path);
}

static void wake_all(uint32_t *m) {
    enum { CHILDREN = 3 };
    uint32_t *word = &m[0], *ready = &m[LINE];
    pid_t children[CHILDREN];
    for (int i = 0; i < CHILDREN; i++) {
        children[i] = fork();
        CHECK(children[i] >= 0, "fork");
        if (children[i] == 0) {
            __atomic_fetch_add(ready, 1, __ATOMIC_RELEASE);
            uint32_t found = 0;
            OK(rb_word_wait(word, 0, STEP_LIMIT_NS, &found));
            CHECK(found == 7, "woken with %u, expected 7", found);
            _exit(0);
        }
    }
    for (int waited_ms = 0; load(ready) < CHILDREN; waited_ms++) {
        CHECK(waited_ms < 10000, "the children did not start");
        usleep(1000);
    }
    usleep(20000); /* most likely asleep by now; either way they must end */
    store(word, 7);
    uint32_t woken = UINT32_MAX;
    OK(rb_word_wake(word, UINT32_MAX, &woken));
    CHECK(woken <= CHILDREN, "%u woken of %d waiters", woken, CHILDREN);
    for (int i = 0; i < CHILDREN; i++) reap(children[i]);
    printf("wake all: %u of %d children were asleep\n", woken, CHILDREN);
}

static void expect_invalid(rb_status got, const char *what, const char *in_message) {
    CHECK(got == RB_ERR_INVALID_ARGUMENT, "%s: status %d", what, (int)got);
    CHECK(strstr(rb_last_error(), in_message), "%s: the message does not mention \"%s\"", what, in_message);
}

static void timeouts_and_bad_arguments(uint32_t *m) {
    uint32_t *word = &m[0]; /* holds 7 (wake_all) */
    uint32_t found = 0;
    OK(rb_word_wait(word, 8, 0, &found));
    CHECK(found == 7, "a word that differs already: found %u", found);
    found = 12345;
    CHECK(rb_word_wait(word, 7, 1000 * 1000, &found) == RB_TIMEOUT, "1 ms on an unchanged word");
    CHECK(found == 12345, "a timed-out wait wrote %u", found);
    CHECK(rb_word_wait(word, 7, 0, NULL) == RB_TIMEOUT, "a zero timeout polls");
    uint32_t woken = UINT32_MAX;
    OK(rb_word_wake(word, 5, &woken));
    CHECK(woken == 0, "nobody waits, yet %u woken", woken);

    expect_invalid(rb_word_wait(NULL, 0, 0, NULL), "wait on NULL", "word is NULL");
    expect_invalid(rb_word_wake(NULL, 1, NULL), "wake of NULL", "word is NULL");
    const uint32_t *odd = (const uint32_t *)(void *)((char *)m + 1);
    expect_invalid(rb_word_wait(odd, 0, 0, NULL), "misaligned wait", "4-byte aligned");
    expect_invalid(rb_word_wake(odd, 1, NULL), "misaligned wake", "4-byte aligned");
}

int main(int argc, char **argv) {
    CHECK(argc == 4 && strcmp(argv[1], "words") == 0, "usage: %s words ROOT ROUNDS", argv[0]);
    ping_pong(argv[2], (uint32_t)strtoul(argv[3], NULL, 10));
    uint32_t *m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    CHECK(m != MAP_FAILED, "mmap");
    wake_all(m);
    timeouts_and_bad_arguments(m);
    munmap(m, 4096);
    printf("words ok\n");
    return 0;
}
