/*
 * The IRC adapter against a real server: Debian's ngIRCd, started here on
 * 127.0.0.1 on a free port with a throw-away config (not daemonized, killed
 * at the end), and a raw socket client sitting in the channel. Checks that
 * the adapter connects, joins, says and hears, and that after ngIRCd is
 * killed and started again it reconnects, rejoins and talks again. Skipped
 * (exit 77) when ngIRCd is not installed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "adapters/irc/irc_adapter.h"
#include "bot/common/log.h"
#include "bot/common/loop.h"

static const char *ngircd_path(void)
{
    const char *p = getenv("NGIRCD");
    if (p && access(p, X_OK) == 0)
        return p;
    if (access("/usr/sbin/ngircd", X_OK) == 0)
        return "/usr/sbin/ngircd";
    return NULL;
}

/* ---- ngIRCd ------------------------------------------------------------- */

struct ircd {
    char dir[64];
    char conf[128];
    char log[128];
    int port;
    pid_t pid;
};

static int free_port(void)
{
    int s = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(s >= 0);
    struct sockaddr_in sa = {.sin_family = AF_INET};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(s, (struct sockaddr *)&sa, sizeof sa), 0);
    socklen_t len = sizeof sa;
    assert_int_equal(getsockname(s, (struct sockaddr *)&sa, &len), 0);
    close(s);
    return ntohs(sa.sin_port);
}

static void ircd_setup(struct ircd *d)
{
    memset(d, 0, sizeof *d);
    snprintf(d->dir, sizeof d->dir, "/tmp/heartsbot-ngircd.XXXXXX");
    assert_non_null(mkdtemp(d->dir));
    /* ngIRCd started as root reads its config, then runs as nobody */
    chmod(d->dir, 0755);
    snprintf(d->conf, sizeof d->conf, "%s/ngircd.conf", d->dir);
    snprintf(d->log, sizeof d->log, "%s/ngircd.log", d->dir);
    d->port = free_port();
    FILE *f = fopen(d->conf, "w");
    assert_non_null(f);
    fprintf(f,
            "[Global]\n"
            "Name = irc.test\n"
            "Info = heartsbot test server\n"
            "AdminInfo1 = test\nAdminInfo2 = test\nAdminEMail = test@test\n"
            "Listen = 127.0.0.1\n"
            "Ports = %d\n"
            "MotdPhrase = \"test\"\n"
            "[Limits]\n"
            "MaxNickLength = 30\n"
            "[Options]\n"
            "DNS = no\n"
            "Ident = no\n"
            "PAM = no\n",
            d->port);
    fclose(f);
    chmod(d->conf, 0644);
}

static bool port_open(int port)
{
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    sa.sin_port = htons((uint16_t)port);
    bool ok = connect(s, (struct sockaddr *)&sa, sizeof sa) == 0;
    close(s);
    return ok;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static void ircd_start(struct ircd *d)
{
    d->pid = fork();
    assert_true(d->pid >= 0);
    if (d->pid == 0) {
        int fd = open(d->log, O_WRONLY | O_CREAT | O_APPEND, 0644);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
            close(fd);
        }
        execl(ngircd_path(), "ngircd", "-n", "-p", "-f", d->conf, (char *)NULL);
        _exit(127);
    }
    for (int i = 0; i < 250 && !port_open(d->port); i++)
        sleep_ms(20);
    assert_true(port_open(d->port));
}

static void ircd_stop(struct ircd *d)
{
    if (d->pid <= 0)
        return;
    kill(d->pid, SIGTERM);
    int status;
    for (int i = 0; i < 250; i++) {
        if (waitpid(d->pid, &status, WNOHANG) == d->pid) {
            d->pid = 0;
            return;
        }
        sleep_ms(20);
    }
    kill(d->pid, SIGKILL);
    waitpid(d->pid, &status, 0);
    d->pid = 0;
}

/* The server of the running test, static so that the teardown can stop
 * it even when an assertion ends the test early. */
static struct ircd server;

static void ircd_cleanup(struct ircd *d)
{
    ircd_stop(d);
    unlink(d->conf);
    unlink(d->log);
    rmdir(d->dir);
    d->dir[0] = '\0';
}

/* ---- A raw client in the channel ----------------------------------------- */

#define MAX_LINES 256

struct client {
    struct loop *l;
    int fd;
    char buf[8192];
    size_t len;
    char *lines[MAX_LINES];
    int nlines;
};

static void cl_send(struct client *c, const char *line)
{
    char out[600];
    int n = snprintf(out, sizeof out, "%s\r\n", line);
    assert_true(send(c->fd, out, (size_t)n, MSG_NOSIGNAL) == n);
}

static void cl_close(struct client *c)
{
    if (c->fd < 0)
        return;
    loop_unwatch(c->l, c->fd);
    close(c->fd);
    c->fd = -1;
}

static void cl_on_read(struct loop *l, int fd, int events, void *ctx)
{
    (void)l;
    (void)events;
    struct client *c = ctx;
    ssize_t n =
        recv(fd, c->buf + c->len, sizeof c->buf - c->len - 1, MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        return;
    if (n <= 0) {
        cl_close(c);
        return;
    }
    c->len += (size_t)n;
    c->buf[c->len] = '\0';
    char *start = c->buf, *crlf;
    while ((crlf = strstr(start, "\r\n"))) {
        *crlf = '\0';
        if (strncmp(start, "PING ", 5) == 0) {
            char pong[300];
            snprintf(pong, sizeof pong, "PONG %s", start + 5);
            cl_send(c, pong);
        }
        if (c->nlines < MAX_LINES)
            c->lines[c->nlines++] = strdup(start);
        start = crlf + 2;
    }
    c->len -= (size_t)(start - c->buf);
    memmove(c->buf, start, c->len);
}

static void cl_connect(struct client *c, struct loop *l, int port)
{
    c->l = l;
    c->len = 0;
    c->fd = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(c->fd >= 0);
    struct sockaddr_in sa = {.sin_family = AF_INET};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    sa.sin_port = htons((uint16_t)port);
    assert_int_equal(connect(c->fd, (struct sockaddr *)&sa, sizeof sa), 0);
    loop_watch(l, c->fd, LOOP_READ, cl_on_read, c);
    cl_send(c, "NICK watcher");
    cl_send(c, "USER w 0 * :watcher");
    cl_send(c, "JOIN #hearts");
}

static void cl_free(struct client *c)
{
    cl_close(c);
    for (int i = 0; i < c->nlines; i++)
        free(c->lines[i]);
    c->nlines = 0;
}

/* Whether a line from `from` on contains all of a and b (b may be NULL). */
static bool cl_saw(const struct client *c, int from, const char *a,
                   const char *b)
{
    for (int i = from; i < c->nlines; i++)
        if (strstr(c->lines[i], a) && (!b || strstr(c->lines[i], b)))
            return true;
    return false;
}

/* ---- Fixture ---------------------------------------------------------- */

struct rec {
    enum chat_event_kind kind;
    char room[64], nick[64], id[128], text[256];
    bool has_room;
};

struct fx {
    struct loop *l;
    uint64_t t_check;
    struct ircd *d;
    struct client c;
    int cl_from; /* lines of the current client start here */
    struct chat_adapter *a;
    struct rec ev[64];
    int nev;
    bool (*done)(struct fx *);
    int64_t deadline;
};

static void on_event(void *ctx, struct chat_adapter *a,
                     const struct chat_event *ev)
{
    (void)a;
    struct fx *f = ctx;
    if (f->nev >= 64)
        return;
    struct rec *r = &f->ev[f->nev++];
    memset(r, 0, sizeof *r);
    r->kind = ev->kind;
    r->has_room = ev->room != NULL;
    snprintf(r->room, sizeof r->room, "%s", ev->room ? ev->room : "");
    snprintf(r->nick, sizeof r->nick, "%s", ev->from.nick ? ev->from.nick : "");
    snprintf(r->id, sizeof r->id, "%s", ev->from.id ? ev->from.id : "");
    snprintf(r->text, sizeof r->text, "%s", ev->text ? ev->text : "");
}

static int count(const struct fx *f, enum chat_event_kind kind)
{
    int n = 0;
    for (int i = 0; i < f->nev; i++)
        n += f->ev[i].kind == kind;
    return n;
}

static void check(struct loop *l, void *ctx)
{
    struct fx *f = ctx;
    f->t_check = 0;
    if (f->done(f) || loop_now(l) >= f->deadline)
        loop_stop(l);
    else
        f->t_check = loop_timer(l, 10, check, f);
}

static bool run_until(struct fx *f, bool (*done)(struct fx *), int64_t ms)
{
    f->done = done;
    f->deadline = loop_now(f->l) + ms;
    f->t_check = loop_timer(f->l, 0, check, f);
    loop_run(f->l);
    loop_cancel(f->l, f->t_check);
    f->t_check = 0;
    return done(f);
}

static bool client_in_channel(struct fx *f)
{
    return cl_saw(&f->c, f->cl_from, " 366 watcher #hearts", NULL);
}

static bool bot_joined(struct fx *f)
{
    return count(f, CHAT_CONNECTED) >= 1 &&
           cl_saw(&f->c, f->cl_from, ":hearts!", "JOIN");
}

static bool client_heard_hello(struct fx *f)
{
    return cl_saw(&f->c, f->cl_from, ":hearts!",
                  "PRIVMSG #hearts :hello table \xE2\x99\xA5");
}

static bool bot_heard_two(struct fx *f)
{
    return count(f, CHAT_MESSAGE) >= 2;
}

static bool bot_lost(struct fx *f)
{
    return count(f, CHAT_DISCONNECTED) >= 1;
}

/* Whether a NAMES reply (353) lists "hearts" (with or without a status
 * prefix such as @). */
static bool names_list_bot(const struct client *c, int from)
{
    for (int i = from; i < c->nlines; i++) {
        const char *l = c->lines[i];
        if (!strstr(l, " 353 watcher "))
            continue;
        const char *names = strstr(l + 1, " :");
        if (!names)
            continue;
        char copy[512];
        snprintf(copy, sizeof copy, "%s", names + 2);
        for (char *save, *n = strtok_r(copy, " ", &save); n;
             n = strtok_r(NULL, " ", &save)) {
            n += strspn(n, "@+%&~");
            if (strcmp(n, "hearts") == 0)
                return true;
        }
    }
    return false;
}

/* After the restart the bot is back when it says so and the new client
 * sees it in the channel (in the NAMES list, or joining after). */
static bool bot_back(struct fx *f)
{
    return count(f, CHAT_CONNECTED) >= 2 &&
           (names_list_bot(&f->c, f->cl_from) ||
            cl_saw(&f->c, f->cl_from, ":hearts!", "JOIN"));
}

static bool client_heard_again(struct fx *f)
{
    return cl_saw(&f->c, f->cl_from, ":hearts!",
                  "PRIVMSG #hearts :after the restart");
}

static bool client_saw_quit(struct fx *f)
{
    return cl_saw(&f->c, f->cl_from, ":hearts!", "QUIT");
}

static void test_ircad_real_server_talks_and_reconnects(void **state)
{
    (void)state;
    struct fx f;
    memset(&f, 0, sizeof f);
    f.c.fd = -1;
    f.l = loop_new();
    f.d = &server;
    ircd_setup(f.d);
    ircd_start(f.d);

    cl_connect(&f.c, f.l, f.d->port);
    assert_true(run_until(&f, client_in_channel, 5000));

    struct protocol_room chans[] = {{.name = "#hearts"}};
    struct irc_config cfg = {
        .name = "ngircd",
        .host = "127.0.0.1",
        .port = f.d->port,
        .nick = "hearts",
        .username = "hb",
        .realname = "Hearts bot",
        .password = "",
        .nickserv_password = "",
        .channels = chans,
        .nchannels = 1,
        .flood_burst = 4,
        .flood_interval_ms = 1100,
    };
    f.a = ircad_new(f.l, &cfg, on_event, &f);
    assert_non_null(f.a);
    struct ircad_timing t = {
        .ping_after_ms = 90000,
        .dead_after_ms = 180000,
        .register_ms = 10000,
        .regain_ms = 60000,
        .rejoin_ms = 30000,
        .backoff_base_ms = 200,
        .backoff_cap_ms = 1000,
    };
    ircad_set_timing(f.a, &t);
    assert_int_equal(f.a->ops->start(f.a), 0);
    assert_true(run_until(&f, bot_joined, 10000));

    /* the bot speaks in the channel; the client hears it */
    f.a->ops->say(f.a, "#hearts", "hello table \xE2\x99\xA5", CHAT_NORMAL);
    assert_true(run_until(&f, client_heard_hello, 5000));

    /* the client speaks in the channel and privately; the bot hears it */
    cl_send(&f.c, "PRIVMSG #hearts :!status");
    cl_send(&f.c, "PRIVMSG hearts :hand");
    assert_true(run_until(&f, bot_heard_two, 5000));
    struct rec msg[2];
    memset(msg, 0, sizeof msg);
    int nmsg = 0;
    for (int i = 0; i < f.nev && nmsg < 2; i++)
        if (f.ev[i].kind == CHAT_MESSAGE)
            msg[nmsg++] = f.ev[i];
    assert_int_equal(nmsg, 2);
    assert_true(msg[0].has_room);
    assert_string_equal(msg[0].room, "#hearts");
    assert_string_equal(msg[0].nick, "watcher");
    assert_string_equal(msg[0].id, "~w@127.0.0.1");
    assert_string_equal(msg[0].text, "!status");
    assert_false(msg[1].has_room);
    assert_string_equal(msg[1].text, "hand");

    /* the server goes away */
    ircd_stop(f.d);
    assert_true(run_until(&f, bot_lost, 10000));
    cl_close(&f.c);

    /* and comes back: the bot reconnects and rejoins by itself */
    ircd_start(f.d);
    f.cl_from = f.c.nlines;
    cl_connect(&f.c, f.l, f.d->port);
    assert_true(run_until(&f, bot_back, 15000));
    f.a->ops->say(f.a, "#hearts", "after the restart", CHAT_NORMAL);
    assert_true(run_until(&f, client_heard_again, 5000));
    assert_int_equal(count(&f, CHAT_DISCONNECTED), 1);

    /* goodbye */
    f.a->ops->stop(f.a, "bye for now");
    assert_true(run_until(&f, client_saw_quit, 5000));
    assert_true(cl_saw(&f.c, f.cl_from, ":hearts!", "bye for now"));

    f.a->ops->free(f.a);
    cl_free(&f.c);
    ircd_cleanup(f.d);
    loop_free(f.l);
}

static int teardown(void **state)
{
    (void)state;
    if (server.dir[0])
        ircd_cleanup(&server);
    return 0;
}

int main(void)
{
    if (!ngircd_path()) {
        fprintf(stderr, "ngircd not installed: skipped\n");
        return 77;
    }
    signal(SIGPIPE, SIG_IGN);
    log_level_set(LOG_ERROR);
    if (getenv("HEARTS_TEST_DEBUG"))
        log_level_set(LOG_DEBUG);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_ircad_real_server_talks_and_reconnects,
                                  teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
