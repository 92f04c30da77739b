/*
 * libFuzzer target for the whole inbound IRC path: any bytes are what a
 * server sends, and they go through everything the bot's own lines do:
 * the transport (libcurl's connection, framing, tags and checks in
 * line.c, CAP in cap.c, PING answered), libircclient on its socketpair,
 * the adapter's handlers, and the events they make.
 *
 * A listening socket on 127.0.0.1 in this process plays the server. For
 * each input a new adapter connects and sends CAP LS, NICK and USER; the
 * input goes out before or after the welcome (001) as its first byte
 * says, followed by "\r\nPING :sentinel"; the PONG to that proves every
 * line before it was handled (a line end always ends whatever the input
 * left open). The promises: no crash, no memory error, no hang (the
 * sentinel is answered within 10 s, unless the bot closed the link), and
 * every event's strings are free of CR, LF and NUL and valid UTF-8.
 *
 * Built when HEARTS_FUZZ is on and the compiler is clang; run it as
 * `build/tests/fuzz_irc_inbound -max_len=20000 DIR`.
 */
#include "adapters/irc/irc_adapter.h"
#include "bot/common/log.h"
#include "bot/common/loop.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The longest run one input gets before it counts as a hang. */
#define DEADLINE_MS 10000

struct run {
    struct loop *l;
    int lfd, cfd;
    int port;
    const uint8_t *data;
    size_t size;
    bool before_welcome;
    bool sent;
    bool done;
    bool hung;
    char buf[8192];
    size_t len;
};

static struct run R;

/* Valid UTF-8 (no overlongs, surrogates or code points past U+10FFFF). */
static bool utf8_ok(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        unsigned c = *p;
        int n = c < 0x80             ? 0
                : (c & 0xe0) == 0xc0 ? 1
                : (c & 0xf0) == 0xe0 ? 2
                : (c & 0xf8) == 0xf0 ? 3
                                     : -1;
        if (n < 0 || (n == 1 && c < 0xc2) || (c > 0xf4))
            return false;
        unsigned cp = n == 0 ? c : c & (0x3fu >> n);
        for (int i = 1; i <= n; i++) {
            if ((p[i] & 0xc0) != 0x80)
                return false;
            cp = cp << 6 | (p[i] & 0x3f);
        }
        if ((n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) ||
            (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
            return false;
        p += n + 1;
    }
    return true;
}

static void check_str(const char *s)
{
    if (!s)
        return;
    if (strpbrk(s, "\r\n") || strlen(s) > 8192 || !utf8_ok(s))
        abort();
}

static void on_event(void *ctx, struct chat_adapter *a,
                     const struct chat_event *ev)
{
    (void)ctx;
    (void)a;
    check_str(ev->room);
    check_str(ev->from.nick);
    check_str(ev->from.id);
    check_str(ev->from.account);
    check_str(ev->from.display);
    check_str(ev->text);
    check_str(ev->target);
    if ((ev->kind == CHAT_MESSAGE || ev->kind == CHAT_JOIN ||
         ev->kind == CHAT_PART || ev->kind == CHAT_QUIT ||
         ev->kind == CHAT_NICK) &&
        (!ev->from.nick || !*ev->from.nick))
        abort();
}

static void send_all(int fd, const void *p, size_t n)
{
    const char *c = p;
    while (n > 0) {
        ssize_t w = send(fd, c, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;
        c += w;
        n -= (size_t)w;
    }
}

static void send_str(int fd, const char *s)
{
    send_all(fd, s, strlen(s));
}

static void welcome(int fd)
{
    send_str(fd, ":irc.test 001 fuzzbot :Welcome\r\n"
                 ":irc.test 005 fuzzbot CHANTYPES=# :are supported\r\n");
}

static void close_client(void)
{
    if (R.cfd >= 0) {
        loop_unwatch(R.l, R.cfd);
        close(R.cfd);
        R.cfd = -1;
    }
}

static void on_client(struct loop *l, int fd, int events, void *ctx)
{
    (void)events;
    (void)ctx;
    ssize_t n = recv(fd, R.buf + R.len, sizeof R.buf - R.len - 1, MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    if (n <= 0) {
        /* the bot closed the link: what it had read was handled */
        close_client();
        R.done = true;
        loop_stop(l);
        return;
    }
    R.len += (size_t)n;
    R.buf[R.len] = '\0';
    if (!R.sent && strstr(R.buf, "\r\nUSER ")) {
        R.sent = true;
        if (!R.before_welcome)
            welcome(fd);
        send_all(fd, R.data, R.size);
        send_str(fd, "\r\nPING :sentinel\r\n");
        if (R.before_welcome)
            welcome(fd);
    }
    if (strstr(R.buf, "PONG :sentinel")) {
        R.done = true;
        loop_stop(l);
    }
    /* keep the tail: a PONG may be split between reads */
    if (R.len > sizeof R.buf / 2) {
        size_t keep = 64;
        memmove(R.buf, R.buf + R.len - keep, keep);
        R.len = keep;
        R.buf[R.len] = '\0';
    }
}

static void on_accept(struct loop *l, int fd, int events, void *ctx)
{
    (void)events;
    (void)ctx;
    int c = accept(fd, NULL, NULL);
    if (c < 0)
        return;
    close_client();
    R.cfd = c;
    R.len = 0;
    loop_watch(l, c, LOOP_READ, on_client, NULL);
}

static void on_deadline(struct loop *l, void *ctx)
{
    (void)ctx;
    R.hung = true;
    loop_stop(l);
}

static void setup(void)
{
    signal(SIGPIPE, SIG_IGN);
    log_level_set(LOG_ERROR);
    R.l = loop_new();
    R.cfd = -1;
    R.lfd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET,
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof sa;
    if (R.lfd < 0 || bind(R.lfd, (struct sockaddr *)&sa, sizeof sa) != 0 ||
        listen(R.lfd, 4) != 0 ||
        getsockname(R.lfd, (struct sockaddr *)&sa, &len) != 0)
        abort();
    R.port = ntohs(sa.sin_port);
    loop_watch(R.l, R.lfd, LOOP_READ, on_accept, NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!R.l)
        setup();
    if (size == 0)
        return 0;
    R.before_welcome = data[0] & 1;
    R.data = data + 1;
    R.size = size - 1;
    R.sent = R.done = R.hung = false;

    struct protocol_room chan = {.name = "#c", .rules = NULL};
    struct irc_config cfg = {
        .name = "fuzz",
        .host = "127.0.0.1",
        .port = R.port,
        .nick = "fuzzbot",
        .username = "fuzz",
        .realname = "fuzz",
        .password = "",
        .nickserv_password = "",
        .channels = &chan,
        .nchannels = 1,
        .flood_burst = 100,
        .flood_interval_ms = 1,
        .tls_verify = true,
        .tls_ca_file = "",
        .tls_cert_file = "",
        .tls_key_file = "",
        .sasl_mechanism = "none",
        .sasl_username = "",
        .sasl_password = "",
    };
    struct chat_adapter *a = ircad_new(R.l, &cfg, on_event, NULL);
    if (a->ops->start(a) != 0)
        abort();
    uint64_t t = loop_timer(R.l, DEADLINE_MS, on_deadline, NULL);
    while (!R.done && !R.hung)
        loop_run(R.l);
    loop_cancel(R.l, t);
    if (R.hung)
        abort();
    a->ops->free(a);
    close_client();
    return 0;
}
