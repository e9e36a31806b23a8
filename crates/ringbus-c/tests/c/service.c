/* Driven by tests/c_api.rs: services from C.
 * `serve ROOT COUNT` serves "c/plan" until it has answered COUNT requests (prints "ready"
 *   once serving, then "served N").
 * `call ROOT COUNT` calls "c/plan" COUNT times and checks every answer.
 * `errors ROOT` checks that bad calls fail with the right status and a message. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ringbus.h"
#include "check.h"

/* What Rust's `#[repr(C)] struct { goal: [f64; 2], id: u32 }` and `{ steps: u64, id: u32 }` are. */
typedef struct {
    double goal[2];
    uint32_t id;
} plan_request;

typedef struct {
    uint64_t steps;
    uint32_t id;
} plan_response;

static rb_service_options options(void) {
    rb_service_options o = {0};
    o.request_type_name = "test.plan_request";
    o.request_size = sizeof(plan_request);
    o.request_align = _Alignof(plan_request);
    o.response_type_name = "test.plan_response";
    o.response_size = sizeof(plan_response);
    o.response_align = _Alignof(plan_response);
    return o;
}

static uint64_t steps_for(const plan_request *r) { return (uint64_t)(r->goal[0] * 10 + r->goal[1]) + r->id; }

static void plan(void *context, const void *request, void *response) {
    const plan_request *r = request;
    plan_response *out = response;
    out->steps = steps_for(r);
    out->id = r->id;
    (*(uint64_t *)context)++;
}

static int serve(const char *root, uint64_t count) {
    rb_node *node;
    OK(rb_node_open("c-server", root, &node));
    rb_service_options o = options();
    rb_service *service;
    OK(rb_service_open(node, "c/plan", &o, &service));
    printf("ready\n");
    fflush(stdout);
    uint64_t served = 0;
    while (served < count) {
        size_t answered = 0;
        OK(rb_service_serve_once(service, 30000000000LL, plan, &served, &answered));
        CHECK(answered > 0, "no request within 30 s after %llu", (unsigned long long)served);
    }
    printf("served %llu\n", (unsigned long long)served);
    fflush(stdout);
    rb_service_close(service);
    rb_node_close(node);
    return 0;
}

static int call(const char *root, uint64_t count) {
    rb_node *node;
    OK(rb_node_open("c-client", root, &node));
    rb_service_options o = options();
    rb_client *client;
    OK(rb_client_open(node, "c/plan", &o, &client));
    for (uint64_t i = 0; i < count; i++) {
        plan_request request = {{(double)i, 0.5}, (uint32_t)i};
        plan_response response = {0, 0};
        OK(rb_client_call(client, &request, &response, 30000000000LL));
        CHECK(response.id == request.id && response.steps == steps_for(&request), "call %llu answered %llu",
              (unsigned long long)i, (unsigned long long)response.steps);
    }
    rb_client_close(client);
    rb_node_close(node);
    return 0;
}

static int errors(const char *root) {
    rb_node *node;
    OK(rb_node_open("c-errors", root, &node));
    rb_service_options o = options();
    rb_client *client = (rb_client *)1;
    plan_request request = {{1, 2}, 3};
    plan_response response;

    rb_service_options bad = o;
    bad.response_type_name = NULL;
    expect(rb_client_open(node, "e", &bad, &client), RB_ERR_INVALID_ARGUMENT, "no response type", "response_type_name");
    CHECK(client == NULL, "a failed open leaves NULL");
    bad = o;
    bad.request_size = 0;
    expect(rb_client_open(node, "e", &bad, &client), RB_ERR_INVALID_CONFIG, "size 0", "command size");

    OK(rb_client_open(node, "e", &o, &client));
    expect(rb_client_call(client, &request, &response, 1000000000LL), RB_ERR_SERVER_GONE, "a call without a server",
           "start it");
    expect(rb_client_call(client, NULL, &response, 0), RB_ERR_INVALID_ARGUMENT, "a NULL request", "request is NULL");

    rb_service *service;
    OK(rb_service_open(node, "e", &o, &service));
    rb_service *second;
    expect(rb_service_open(node, "e", &o, &second), RB_ERR_TOO_MANY, "a second server", "consumer");
    rb_client *other;
    bad = o;
    bad.request_type_name = "test.other";
    expect(rb_client_open(node, "e", &bad, &other), RB_ERR_MISMATCH, "a client of another request type", "test.other");
    expect(rb_client_call(client, &request, &response, 10000000LL), RB_TIMEOUT, "a call nobody answers", NULL);
    size_t answered = 9;
    expect(rb_service_serve_once(service, 0, NULL, NULL, &answered), RB_ERR_INVALID_ARGUMENT, "no handler",
           "handler is NULL");
    uint64_t served = 0;
    OK(rb_service_serve_once(service, 0, plan, &served, &answered));
    CHECK(answered == 1 && served == 1, "the timed-out request is still served (its answer is dropped by the client)");
    CHECK(rb_service_dropped(NULL) == 0, "NULL: 0");
    rb_service_close(service);
    expect(rb_client_call(client, &request, &response, 1000000000LL), RB_ERR_SERVER_GONE, "a call after the server left",
           NULL);
    rb_client_close(client);
    rb_client_close(NULL);
    rb_service_close(NULL);
    rb_node_close(node);
    printf("errors ok\n");
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 4 && !strcmp(argv[1], "serve")) return serve(argv[2], strtoull(argv[3], 0, 10));
    if (argc == 4 && !strcmp(argv[1], "call")) return call(argv[2], strtoull(argv[3], 0, 10));
    if (argc == 3 && !strcmp(argv[1], "errors")) return errors(argv[2]);
    fprintf(stderr, "usage: service serve ROOT COUNT | call ROOT COUNT | errors ROOT\n");
    return 2;
}
