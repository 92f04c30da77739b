/*
 * think-bench: how long the bot's loop is blocked while computer players
 * decide (issue 11, docs/benchmarks.md). The real searching levels live
 * in the engine; here a decision's cost is simulated with think.c's
 * test-only hook (it sleeps), so the figure is the loop's, not the search's.
 *
 *   think-bench [--ms N] [--tables T]
 *
 * T tables (default 2) in one manager, each one person who is away and
 * three computer players, play a hand of computer decisions; a 1 ms timer
 * probes the loop and records how late it fires. Three runs:
 *   easy     the real `easy` level, decided on the loop (as every level
 *            was before the worker);
 *   inline   decisions of N ms (default 20) on the loop, one per loop turn
 *            (think_test_inline: a lower bound of the old behaviour, which
 *            chained a computer's decisions in one turn);
 *   worker   the same N ms decisions on the worker thread.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bot/config.h"
#include "bot/common/loop.h"
#include "bot/manager/manager.h"
#include "bot/manager/table.h"
#include "bot/manager/turn.h"
#include "bot/think.h"
#include "tests/support/fake_chat.h"

static int decision_ms;
static long decisions;

static void slow_decision(const struct think_job *j)
{
    (void)j;
    struct timespec ts = {decision_ms / 1000,
                          (long)(decision_ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
    __atomic_add_fetch(&decisions, 1, __ATOMIC_RELAXED);
}

struct probe {
    int64_t due;
    int64_t worst;
    long late5; /* probes more than 5 ms late */
    long n;
};

static void probe_fire(struct loop *l, void *ctx)
{
    struct probe *p = ctx;
    int64_t late = loop_now(l) - p->due;
    if (late > p->worst)
        p->worst = late;
    p->late5 += late > 5;
    p->n++;
    p->due = loop_now(l) + 1;
    loop_timer(l, 1, probe_fire, p);
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* The longest a command or a resume took to return: the loop's block
 * when a computer decides at once, before the loop even turns. */
static double worst_entry;

static void entered(double since)
{
    double d = now_ms() - since;
    if (d > worst_entry)
        worst_entry = d;
}

static void said(struct manager *m, struct chat_adapter *a, const char *nick,
                 const char *room, const char *text)
{
    char id[100];
    snprintf(id, sizeof id, "%s@bench", nick);
    struct chat_event ev = {.kind = CHAT_MESSAGE,
                            .room = room,
                            .from = {.nick = nick, .id = id},
                            .text = text};
    double t = now_ms();
    manager_on_event(m, a, &ev);
    entered(t);
}

/* Cards played at the tables, all told. */
static int played(struct manager *m, struct chat_adapter *a, int tables)
{
    int n = 0;
    for (int i = 0; i < tables; i++) {
        char room[16];
        snprintf(room, sizeof room, "#t%d", i);
        struct table *t = mgr_table_find(m, a, room);
        n += t ? t->game.nplays : 0;
    }
    return n;
}

static bool all_paused(struct manager *m, struct chat_adapter *a, int tables)
{
    for (int i = 0; i < tables; i++) {
        char room[16];
        snprintf(room, sizeof room, "#t%d", i);
        struct table *t = mgr_table_find(m, a, room);
        if (t && !t->paused)
            return false;
    }
    return true;
}

static void stop_loop(struct loop *l, void *ctx)
{
    (void)ctx;
    loop_stop(l);
}

static void run(const char *name, int tables)
{
    char err[200];
    struct config cfg;
    if (config_parse("", 0, "bench", NULL, &cfg, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        exit(1);
    }
    free(cfg.data_dir);
    cfg.data_dir = strdup("");
    cfg.unattended_pause = 3600; /* computers alone play the hand out */
    cfg.next_hand_delay = 0;
    struct loop *l = loop_new();
    struct manager *m = manager_new(l, &cfg);
    /* an adapter that says nothing anywhere: lines are counted only */
    struct fake_chat fake;
    fake_chat_init(&fake, FAKE_CHAT_PLAIN, "bench", manager_on_event, m);
    fake.discard = true;
    struct chat_adapter *a = &fake.base;
    decisions = 0;
    worst_entry = 0;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int i = 0; i < tables; i++) {
        char room[16], nick[16];
        snprintf(room, sizeof room, "#t%d", i);
        snprintf(nick, sizeof nick, "p%d", i);
        said(m, a, nick, room, "!hearts standard");
        said(m, a, nick, room, "!start");
        struct table *t = mgr_table_find(m, a, room);
        for (int s = 0; s < t->capacity; s++)
            if (t->seats[s].human)
                t->seats[s].away = true;
        double t2 = now_ms();
        mgr_table_resume(t);
        entered(t2);
    }
    struct probe p = {.due = loop_now(l) + 1};
    loop_timer(l, 1, probe_fire, &p);
    for (int guard = 0; guard < 6000 && !all_paused(m, a, tables); guard++) {
        loop_timer(l, 10, stop_loop, NULL);
        loop_run(l);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double secs = (double)(t1.tv_sec - t0.tv_sec) +
                  (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    printf("%-7s %d tables: %d cards played in %.2f s, %ld slow decisions; "
           "longest command %.2f ms; loop probes %ld, late > 5 ms %ld, "
           "worst %lld ms\n",
           name, tables, played(m, a, tables), secs, decisions, worst_entry,
           p.n, p.late5, (long long)p.worst);
    manager_free(m);
    fake_chat_free(&fake);
    loop_free(l);
    config_free(&cfg);
}

int main(int argc, char **argv)
{
    int tables = 2;
    decision_ms = 20;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--ms") == 0)
            decision_ms = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--tables") == 0)
            tables = atoi(argv[i + 1]);
    }
    run("easy", tables);
    think_test_hook(slow_decision);
    think_test_inline(true);
    run("inline", tables);
    think_test_inline(false);
    run("worker", tables);
    think_test_hook(NULL);
    return 0;
}
