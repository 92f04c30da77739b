/*
 * libcurl's multi interface on our loop (curl_loop.h). curl forbids
 * calling socket_action from inside its own callbacks, so the timer
 * callback only schedules a loop timer (even for 0 ms) and the work
 * happens when the loop fires it.
 */
#include "bot/common/curl_loop.h"

#include <stdlib.h>

static void on_fd(struct loop *l, int fd, int events, void *ctx)
{
    (void)l;
    struct curl_loop *cl = ctx;
    if (cl->detached)
        return;
    int mask = 0, running = 0;
    if (events & LOOP_READ)
        mask |= CURL_CSELECT_IN;
    if (events & LOOP_WRITE)
        mask |= CURL_CSELECT_OUT;
    curl_multi_socket_action(cl->multi, fd, mask, &running);
    cl->progress(cl->ctx);
}

static void on_timer(struct loop *l, void *ctx)
{
    (void)l;
    struct curl_loop *cl = ctx;
    int running = 0;
    cl->timer = 0;
    if (cl->detached)
        return;
    curl_multi_socket_action(cl->multi, CURL_SOCKET_TIMEOUT, 0, &running);
    cl->progress(cl->ctx);
}

static int socket_cb(CURL *easy, curl_socket_t s, int what, void *userp,
                     void *socketp)
{
    (void)easy;
    (void)socketp;
    struct curl_loop *cl = userp;
    if (cl->detached)
        return 0; /* the socket is the owner's now */
    if (what == CURL_POLL_REMOVE) {
        loop_unwatch(cl->loop, s);
        return 0;
    }
    int events = 0;
    if (what == CURL_POLL_IN || what == CURL_POLL_INOUT)
        events |= LOOP_READ;
    if (what == CURL_POLL_OUT || what == CURL_POLL_INOUT)
        events |= LOOP_WRITE;
    loop_watch(cl->loop, s, events, on_fd, cl);
    return 0;
}

static int timer_cb(CURLM *multi, long timeout_ms, void *userp)
{
    (void)multi;
    struct curl_loop *cl = userp;
    loop_cancel(cl->loop, cl->timer);
    cl->timer = 0;
    if (timeout_ms >= 0 && !cl->detached)
        cl->timer = loop_timer(cl->loop, timeout_ms, on_timer, cl);
    return 0;
}

int curl_loop_init(struct curl_loop *cl, struct loop *l,
                   void (*progress)(void *ctx), void *ctx)
{
    static bool global_done;
    if (!global_done) {
        if (curl_global_init(CURL_GLOBAL_DEFAULT) != 0)
            return -1;
        global_done = true;
    }
    cl->loop = l;
    cl->timer = 0;
    cl->detached = false;
    cl->progress = progress;
    cl->ctx = ctx;
    cl->multi = curl_multi_init();
    if (!cl->multi)
        abort();
    curl_multi_setopt(cl->multi, CURLMOPT_SOCKETFUNCTION, socket_cb);
    curl_multi_setopt(cl->multi, CURLMOPT_SOCKETDATA, cl);
    curl_multi_setopt(cl->multi, CURLMOPT_TIMERFUNCTION, timer_cb);
    curl_multi_setopt(cl->multi, CURLMOPT_TIMERDATA, cl);
    return 0;
}

void curl_loop_detach(struct curl_loop *cl)
{
    cl->detached = true;
    if (cl->timer)
        loop_cancel(cl->loop, cl->timer);
    cl->timer = 0;
}

void curl_loop_free(struct curl_loop *cl)
{
    /* cleaning up may still call the timer callback: cancel after it */
    cl->detached = true;
    if (cl->multi)
        curl_multi_cleanup(cl->multi);
    cl->multi = NULL;
    if (cl->timer)
        loop_cancel(cl->loop, cl->timer);
    cl->timer = 0;
}
