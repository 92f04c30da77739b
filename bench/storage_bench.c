/*
 * storage-bench: issue 8's and issue 19's figures for the archive and the
 * leaderboards (docs/benchmarks.md).
 *
 *   storage-bench gen DIR [--games N] [--players P] [--seed S]
 *       a channel directory with N archived games (random computer play,
 *       standard, 4 seats) among P people, written buffered (no fsync)
 *   storage-bench rebuild DIR     rebuild leaderboard.json: time, peak RSS
 *   storage-bench load DIR [--calls N]
 *       start with a current leaderboard.json: load time and RSS; then the
 *       answers of !top and !stats, median and max over N calls each
 *   storage-bench archive DIR [--games N]
 *       archive N games as the bot does (archive_add, stats_counted, which
 *       writes leaderboard.json every stats_checkpoint_every games): time
 *       and bytes written per game and per hand
 *   storage-bench crash DIR
 *       a crash at a game's end (one game archived, not counted), then the
 *       start's stats_load: its time, and whether it rebuilt
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

#include "bot/common/file.h"
#include "engine/ai/ai.h"
#include "storage/archive.h"
#include "bot/common/msg.h"
#include "bot/manager/board_names.h"
#include "storage/record/record.h"
#include "bot/manager/played.h"
#include "bot/manager/results.h"
#include "storage/stats.h"
#include "bot/manager/table.h"
#include "bot/manager/text.h"
#include "tests/support/fake_chat.h"
#include "bench/random_game.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static long rss_kb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "VmRSS:", 6))
            kb = atol(line + 6);
    if (f)
        fclose(f);
    return kb;
}

static long peak_kb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

static long arg_long(int argc, char **argv, const char *name, long dflt)
{
    for (int i = 0; i + 1 < argc; i++)
        if (!strcmp(argv[i], name))
            return atol(argv[i + 1]);
    return dflt;
}

static int gen(const char *dir, long games, long players, long seed)
{
    char apath[FILE_PATH_MAX], rpath[FILE_PATH_MAX], err[300];
    if (file_mkdirs(dir, dir, err, sizeof err) ||
        archive_paths(dir, apath, rpath, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    FILE *a = fopen(apath, "w"), *r = fopen(rpath, "w");
    if (!a || !r) {
        perror(dir);
        return 1;
    }
    struct engine_rules rules;
    engine_rules_parse(&rules, "standard", 4, NULL);
    uint64_t x = (uint64_t)seed;
    long hands = 0;
    int64_t offset = 0;
    double t0 = now_s();
    for (long i = 0; i < games; i++) {
        int h;
        char *rec =
            random_game(&rules, (uint64_t)seed * 1000003u + (uint64_t)i, &h);
        hands += h;
        struct archive_result res;
        random_result(&res, &x, i, players);
        res.offset = offset;
        res.has_hash = true;
        res.record_hash = archive_record_hash(rec, strlen(rec));
        char *line = archive_result_json(&res);
        fprintf(a, "%s\n", rec);
        fprintf(r, "%s\n", line);
        offset += (int64_t)strlen(rec) + 1;
        free(rec);
        free(line);
    }
    fclose(a);
    fclose(r);
    struct stat sa, sr;
    stat(apath, &sa);
    stat(rpath, &sr);
    printf("generated %ld games (%ld hands, %.1f a game) among %ld people "
           "in %.1f s: archive %lld bytes (%.0f a game), results %lld bytes "
           "(%.0f a game)\n",
           games, hands, (double)hands / (double)games, players, now_s() - t0,
           (long long)sa.st_size, (double)sa.st_size / (double)games,
           (long long)sr.st_size, (double)sr.st_size / (double)games);
    return 0;
}

static int rebuild(const char *dir)
{
    char err[300];
    struct stats *s;
    int skipped;
    long before = rss_kb();
    double t0 = now_s();
    if (stats_rebuild(dir, &s, &skipped, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    double t1 = now_s();
    if (stats_save(dir, s, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    double t2 = now_s();
    const struct stats_board *b = stats_board(s, "standard");
    printf("rebuild: %lld games, %d people, %d skipped: %.2f s, save %.3f s; "
           "RSS %ld KiB before, peak %ld KiB\n",
           (long long)s->games, b ? b->n : 0, skipped, t1 - t0, t2 - t1, before,
           peak_kb());
    stats_free(s);
    return 0;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

/* Median and max of n timings, microseconds. */
static void report(const char *what, double *t, long n)
{
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    printf("%s: median %.1f us, max %.1f us over %ld calls\n", what,
           t[n / 2] * 1e6, t[n - 1] * 1e6, n);
}

static int load(const char *dir, long calls)
{
    char err[300], why[600] = "";
    struct stats *s;
    bool rebuilt;
    long before = rss_kb();
    double t0 = now_s();
    if (stats_load(dir, &s, &rebuilt, why, sizeof why, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    double t1 = now_s();
    const struct stats_board *b = stats_board(s, "standard");
    printf("load: %s, %d people: %.3f s; RSS %ld KiB before, %ld KiB after "
           "(+%ld KiB)%s%s\n",
           rebuilt ? "REBUILT" : "current", b ? b->n : 0, t1 - t0, before,
           rss_kb(), rss_kb() - before, why[0] ? ": " : "", why);
    /* the adapter the answers need: names compared without case */
    struct fake_chat fake;
    fake_chat_init(&fake, FAKE_CHAT_UNFOLDED, "bench", NULL, NULL);
    struct chat_adapter *a = &fake.base;
    struct results_room room = {.a = a, .stats = s};
    snprintf(room.room, sizeof room.room, "#bench");
    double *t = calloc((size_t)calls, sizeof *t);
    char text[MGR_TEXT_SIZE];
    struct strbuf sb;
    strbuf_init(&sb, text, sizeof text);
    for (long i = 0; i < calls; i++) {
        strbuf_reset(&sb);
        double a0 = now_s();
        mgr_results_top(&room, MSG_EN, i % 2 ? "10" : NULL, NULL, "standard",
                        &sb);
        t[i] = now_s() - a0;
    }
    printf("  %s\n", sb.buf);
    report("!top", t, calls);
    char key[64], nick[64];
    struct played *pl = played_new();
    for (long i = 0; i < calls; i++) {
        strbuf_reset(&sb);
        long who = (i * 7919) % (b ? b->n : 1);
        snprintf(key, sizeof key, "n:player%ld", who);
        snprintf(nick, sizeof nick, "player%ld", who);
        /* the key they played under this session, as after a game */
        played_add(pl, a, nick, "u@bench", key);
        struct chat_user u = {.nick = nick, .id = "u@bench"};
        double a0 = now_s();
        mgr_results_stats(&room, MSG_EN, pl, &u, NULL, NULL, "standard", &sb);
        t[i] = now_s() - a0;
    }
    printf("  %s\n", sb.buf);
    report("!stats (yourself)", t, calls);
    for (long i = 0; i < calls; i++) {
        strbuf_reset(&sb);
        snprintf(key, sizeof key, "PLAYER%ld", (i * 7919) % (b ? b->n : 1));
        double a0 = now_s();
        mgr_results_stats(&room, MSG_EN, pl,
                          &(struct chat_user){.nick = "x", .id = "u@h"}, key,
                          NULL, "standard", &sb);
        t[i] = now_s() - a0;
    }
    printf("  %s\n", sb.buf);
    report("!stats NAME (by name, not key: the slow path)", t, calls);
    /* the names of the board, made by the first answer, stay */
    printf("RSS after the answers: %ld KiB\n", rss_kb());
    board_names_free(room.names);
    played_free(pl);
    fake_chat_free(&fake);
    free(t);
    stats_free(s);
    return 0;
}

/* As the bot does at a game's end (results.c): archive_add, then
 * stats_counted, which writes leaderboard.json only every
 * stats_checkpoint_every games. Bytes written: the record, the results
 * line, and leaderboard.json each time it is written. */
static int archive(const char *dir, long games)
{
    char err[300], why[300];
    bool rebuilt;
    struct stats *s;
    if (file_mkdirs(dir, dir, err, sizeof err) ||
        stats_load(dir, &s, &rebuilt, why, sizeof why, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    struct engine_rules rules;
    engine_rules_parse(&rules, "standard", 4, NULL);
    uint64_t x = 99;
    long hands = 0, saves = 0;
    long long bytes = 0, board = 0;
    double spent = 0;
    char lpath[FILE_PATH_MAX];
    file_path(lpath, sizeof lpath, NULL, 0, dir, STATS_FILE, (char *)NULL);
    for (long i = 0; i < games; i++) {
        int h;
        char *rec = random_game(&rules, (uint64_t)i + 7, &h);
        hands += h;
        struct archive_result res;
        random_result(&res, &x, i + 1000000, 8);
        double t0 = now_s();
        bool added, saved;
        struct stats_game g;
        if (archive_add(dir, &res, rec, false, &added, err, sizeof err) ||
            stats_game_from_record(rec, strlen(rec), &g, err, sizeof err) ||
            stats_counted(dir, s, &res, &g, &saved, err, sizeof err)) {
            fprintf(stderr, "%s\n", err);
            return 1;
        }
        spent += now_s() - t0;
        char *line = archive_result_json(&res);
        bytes += (long long)strlen(rec) + 1 + (long long)strlen(line) + 1;
        free(line);
        if (saved) {
            struct stat st;
            saves++;
            if (!stat(lpath, &st)) {
                bytes += (long long)st.st_size;
                board = (long long)st.st_size;
            }
        }
        free(rec);
    }
    const struct stats_board *b = stats_board(s, "standard");
    printf("archive: %ld games, %ld hands, %d people on the board: %.2f ms a "
           "game (archive_add, count, checkpoint); %lld bytes written a game "
           "(%.0f a hand); leaderboard.json (%lld bytes) written %ld times, "
           "every %lld games\n",
           games, hands, b ? b->n : 0, spent * 1e3 / (double)games,
           bytes / games, (double)bytes / (double)hands, board, saves,
           (long long)stats_checkpoint_every(s));
    stats_free(s);
    return 0;
}

/* A crash at a game's end: one more game archived (archive_add) but not
 * counted, as the bot leaves it when killed between the two; then the
 * start: stats_load, timed. */
static int crash(const char *dir)
{
    char err[300], why[600] = "";
    struct engine_rules rules;
    engine_rules_parse(&rules, "standard", 4, NULL);
    int h;
    char *rec = random_game(&rules, (uint64_t)time(NULL), &h);
    struct archive_result res;
    uint64_t x = (uint64_t)time(NULL);
    random_result(&res, &x, 2000000, 8);
    bool added;
    if (archive_add(dir, &res, rec, false, &added, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    free(rec);
    struct stats *s;
    bool rebuilt;
    double t0 = now_s();
    if (stats_load(dir, &s, &rebuilt, why, sizeof why, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    printf("start after a crash at a game's end: %lld games: %.3f s (%s%s%s)"
           "\n",
           (long long)s->games, now_s() - t0, rebuilt ? "REBUILT" : "current",
           why[0] ? ": " : "", why);
    stats_free(s);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: storage-bench gen|rebuild|load|archive|crash "
                        "DIR [options]\n");
        return 2;
    }
    const char *dir = argv[2];
    if (!strcmp(argv[1], "gen"))
        return gen(dir, arg_long(argc, argv, "--games", 100000),
                   arg_long(argc, argv, "--players", 10000),
                   arg_long(argc, argv, "--seed", 1));
    if (!strcmp(argv[1], "rebuild"))
        return rebuild(dir);
    if (!strcmp(argv[1], "load"))
        return load(dir, arg_long(argc, argv, "--calls", 10000));
    if (!strcmp(argv[1], "archive"))
        return archive(dir, arg_long(argc, argv, "--games", 100));
    if (!strcmp(argv[1], "crash"))
        return crash(dir);
    fprintf(stderr, "storage-bench: unknown mode '%s'\n", argv[1]);
    return 2;
}
