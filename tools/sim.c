/*
 * hearts-sim: the engine's command-line tool. `play` plays whole games
 * between computer players and prints per-seat figures; `replay` checks
 * game records (replay.c); `bench` measures the engine's speed (bench.c);
 * `leaderboard` rebuilds a channel's leaderboards (leaderboard.c).
 */
#include "bot/common/msg.h"
#include "bot/common/rule_words.h"
#include "bot/common/strbuf.h"
#include "bot/common/version.h"
#include "engine/ai/ai.h"
#include "engine/engine.h"
#include "storage/record/record.h"
#include "tools/sim.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void usage(FILE *out)
{
    fprintf(out, "usage: hearts-sim replay FILE [--fill] [--legal]\n"
                 "       hearts-sim play --preset NAME [--set KEY=VALUE]... "
                 "[--players N]\n"
                 "                  [--seats LEVEL,LEVEL,...] [--games N] "
                 "[--seed S] [--records FILE]\n"
                 "                  [--budget PLAYOUTS]\n"
                 "       hearts-sim bench [--runs N] [--seconds S]\n"
                 "       hearts-sim think [--level LEVEL] [--budget N] "
                 "[--decisions N]\n"
                 "                  [--phase play|pass]\n"
                 "       hearts-sim leaderboard ROOM_DIR [--check]\n"
                 "       hearts-sim --version\n");
}

double sim_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int sim_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int sim_parse_count(const char *s, long min, long max, long *out)
{
    /* strtoll would skip leading blanks and take a '+' */
    if (!((*s >= '0' && *s <= '9') ||
          (*s == '-' && s[1] >= '0' && s[1] <= '9')))
        return -1;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end || v < min || v > max)
        return -1;
    *out = (long)v;
    return 0;
}

struct play_stats {
    int n;
    long hands;
    long points[ENGINE_MAX_PLAYERS];
    double squares[ENGINE_MAX_PLAYERS]; /* of the points per hand */
    long wins[ENGINE_MAX_PLAYERS];
    long moons[ENGINE_MAX_PLAYERS];
};

static void count_event(void *ctx, const struct engine_game *g,
                        const struct engine_event *ev)
{
    struct play_stats *st = ctx;
    switch (ev->kind) {
    case ENGINE_EV_MOON:
        st->moons[ev->seat]++;
        break;
    case ENGINE_EV_HAND_SCORED:
        st->hands++;
        for (int s = 0; s < g->n; s++) {
            st->points[s] += g->points[s];
            st->squares[s] += (double)g->points[s] * g->points[s];
        }
        break;
    case ENGINE_EV_GAME_OVER:
        for (int i = 0; i < g->nwinners; i++)
            st->wins[g->winners[i]]++;
        break;
    default:
        break;
    }
}

/* Both sinks at once: the statistics and, if asked, the record writer. */
struct tee {
    struct engine_sink first;
    const struct engine_sink *second;
};

static void tee_emit(void *ctx, const struct engine_game *g,
                     const struct engine_event *ev)
{
    struct tee *t = ctx;
    t->first.emit(t->first.ctx, g, ev);
    if (t->second)
        t->second->emit(t->second->ctx, g, ev);
}

static int parse_seats(const char *list, int *levels, int max, int *count)
{
    char buf[256];
    if (strlen(list) >= sizeof buf)
        return -1;
    snprintf(buf, sizeof buf, "%s", list);
    int n = 0;
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        int level = ai_level_find(tok);
        if (level < 0 || n == max) {
            fprintf(stderr,
                    "hearts-sim: unknown level '%s' (random, easy, normal, "
                    "hard)\n",
                    tok);
            return -1;
        }
        levels[n++] = level;
    }
    *count = n;
    return n ? 0 : -1;
}

/* Plays one game to its end; -1 if an action was refused (a bug). */
static int play_game(struct engine_game *g, const int *levels, int budget,
                     struct engine_prng *rng, const struct engine_sink *sink)
{
    for (long steps = 0; steps < 10000000; steps++) {
        enum engine_phase phase = engine_phase(g);
        if (phase == ENGINE_PHASE_GAME_OVER)
            return 0;
        if (phase == ENGINE_PHASE_DEAL) {
            engine_deal(g, sink);
            continue;
        }
        for (int s = 0; s < g->n; s++) {
            struct engine_action a;
            if (!engine_may_act(g, s))
                continue;
            struct engine_view v;
            engine_view_make(g, s, &v);
            if (ai_decide_budget(levels[s], &v, rng, budget, &a))
                return -1;
            enum engine_refusal why = engine_act(g, &a, sink, NULL);
            if (why) {
                char words[100];
                fprintf(
                    stderr, "hearts-sim: seat %d's action refused: %s\n", s,
                    rule_words_refusal_text(words, sizeof words, MSG_EN, why));
                return -1;
            }
            break;
        }
    }
    return -1;
}

/* What `hearts-sim play` was asked. */
struct play_opts {
    const char *preset, *records;
    char text[1024]; /* " KEY=VALUE" for each --set */
    long players, games, seed, budget;
    int levels[ENGINE_MAX_PLAYERS];
    int nlevels;
};

/* Reads the arguments into o; 0, or 2 (the exit code) with the message
 * said. */
static int play_args(int argc, char **argv, struct play_opts *o)
{
    struct strbuf tb;
    strbuf_init(&tb, o->text, sizeof o->text);
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (!val) {
            fprintf(stderr, "hearts-sim play: %s needs a value\n", arg);
            return 2;
        }
        i++;
        if (!strcmp(arg, "--preset")) {
            o->preset = val;
        } else if (!strcmp(arg, "--set")) {
            if (!strchr(val, '=') || strchr(val, ' ') ||
                tb.len + strlen(val) + 2 >= sizeof o->text) {
                fprintf(stderr, "hearts-sim play: --set takes KEY=VALUE\n");
                return 2;
            }
            strbuf_addf(&tb, " %s", val);
        } else if (!strcmp(arg, "--players")) {
            if (sim_parse_count(val, 2, ENGINE_MAX_PLAYERS, &o->players)) {
                fprintf(stderr, "hearts-sim play: --players is 2 to 10\n");
                return 2;
            }
        } else if (!strcmp(arg, "--seats")) {
            if (parse_seats(val, o->levels, ENGINE_MAX_PLAYERS, &o->nlevels))
                return 2;
        } else if (!strcmp(arg, "--games")) {
            if (sim_parse_count(val, 1, 100000000, &o->games)) {
                fprintf(stderr, "hearts-sim play: --games is 1 or more\n");
                return 2;
            }
        } else if (!strcmp(arg, "--seed")) {
            if (sim_parse_count(val, 0, 0x7fffffffffffffffL, &o->seed)) {
                fprintf(stderr, "hearts-sim play: --seed is a number\n");
                return 2;
            }
        } else if (!strcmp(arg, "--budget")) {
            if (sim_parse_count(val, 0, 10000000, &o->budget)) {
                fprintf(stderr, "hearts-sim play: --budget is 0 (each "
                                "level's own) or more playouts\n");
                return 2;
            }
        } else if (!strcmp(arg, "--records")) {
            o->records = val;
        } else {
            fprintf(stderr, "hearts-sim play: unknown argument '%s'\n", arg);
            usage(stderr);
            return 2;
        }
    }
    if (!o->preset) {
        fprintf(stderr, "hearts-sim play: --preset NAME is needed\n");
        return 2;
    }
    return 0;
}

/* Plays game gi, its record (if w) written to out; 0, 1 if it did not
 * finish. */
static int play_one(const struct play_opts *o, const struct engine_rules *rules,
                    long gi, struct engine_prng *rng, struct play_stats *st,
                    struct record_writer *w, FILE *out)
{
    int n = rules->players, rc = 0;
    struct engine_game g;
    engine_game_init(&g, rules, (uint64_t)o->seed * 1000003u + (uint64_t)gi,
                     (int)(gi % n));
    struct tee t = {.first = {.emit = count_event, .ctx = st},
                    .second = w ? record_writer_sink(w) : NULL};
    struct engine_sink sink = {.emit = tee_emit, .ctx = &t};
    if (play_game(&g, o->levels, (int)o->budget, rng, &sink)) {
        fprintf(stderr, "hearts-sim play: game %ld did not finish\n", gi + 1);
        rc = 1;
    }
    if (w) {
        char *json = record_writer_json(w);
        if (json)
            fprintf(out, "%s\n", json);
        else
            fprintf(stderr,
                    "hearts-sim play: game %ld is too long to "
                    "record\n",
                    gi + 1);
        free(json);
    }
    return rc;
}

/* The table of points, wins and moons by seat. */
static void play_report(FILE *report, const struct play_opts *o,
                        const struct engine_rules *rules,
                        const struct play_stats *st)
{
    int n = rules->players;
    fprintf(report, "%s, %d players, %ld game%s, %ld hand%s, seed %ld\n",
            engine_preset_name(rules->preset), n, o->games,
            o->games == 1 ? "" : "s", st->hands, st->hands == 1 ? "" : "s",
            o->seed);
    fprintf(report, "seat  level   points/hand  std.err   wins  moons\n");
    for (int s = 0; s < n; s++) {
        double h = (double)st->hands, mean = 0, se = 0;
        if (st->hands) {
            mean = (double)st->points[s] / h;
            double var = st->squares[s] / h - mean * mean;
            se = st->hands > 1 && var > 0 ? sqrt(var / (h - 1)) : 0;
        }
        fprintf(report, "%4d  %-6s  %11.3f  %7.3f  %5ld  %5ld\n", s,
                ai_level_name(o->levels[s]), mean, se, st->wins[s],
                st->moons[s]);
    }
}

int sim_play(int argc, char **argv)
{
    struct play_opts o = {.games = 100, .seed = 1};
    int rc = play_args(argc, argv, &o);
    if (rc)
        return rc;
    char line[1200];
    snprintf(line, sizeof line, "%s%s", o.preset, o.text);
    if (o.nlevels > 0 && o.players == 0)
        o.players = o.nlevels;
    struct engine_rules rules;
    struct engine_error e;
    char err[256];
    if (engine_rules_parse(&rules, line, (int)o.players, &e)) {
        fprintf(stderr, "hearts-sim play: %s\n",
                rule_words_error_text(err, sizeof err, MSG_EN, &e));
        return 2;
    }
    int n = rules.players;
    if (o.nlevels == 0) {
        for (int s = 0; s < n; s++)
            o.levels[s] = AI_EASY;
    } else if (o.nlevels != n) {
        fprintf(stderr,
                "hearts-sim play: --seats names %d levels for %d "
                "players\n",
                o.nlevels, n);
        return 2;
    }
    FILE *out = NULL;
    if (o.records) {
        out = strcmp(o.records, "-") ? fopen(o.records, "w") : stdout;
        if (!out) {
            fprintf(stderr, "hearts-sim play: %s: %s\n", o.records,
                    strerror(errno));
            return 2;
        }
    }
    struct play_stats st = {.n = n};
    struct engine_prng rng;
    engine_prng_seed(&rng, (uint64_t)o.seed ^ UINT64_C(0x5eed5eed5eed5eed));
    char names[ENGINE_MAX_PLAYERS][16];
    const char *name_ptrs[ENGINE_MAX_PLAYERS];
    for (int s = 0; s < n; s++) {
        snprintf(names[s], sizeof names[s], "%s%d", ai_level_name(o.levels[s]),
                 s);
        name_ptrs[s] = names[s];
    }
    for (long gi = 0; gi < o.games && rc == 0; gi++) {
        struct record_writer *w = NULL;
        if (out) {
            w = record_writer_new(&rules, name_ptrs, n);
            if (!w) {
                fprintf(stderr, "hearts-sim play: cannot record these rules\n");
                rc = 2;
                break;
            }
        }
        rc = play_one(&o, &rules, gi, &rng, &st, w, out);
        record_writer_free(w);
    }
    if (out && out != stdout && fclose(out)) {
        fprintf(stderr, "hearts-sim play: %s: %s\n", o.records,
                strerror(errno));
        rc = 2;
    }
    play_report(out == stdout ? stderr : stdout, &o, &rules, &st);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "replay"))
        return sim_replay(argc - 2, argv + 2);
    if (!strcmp(argv[1], "play"))
        return sim_play(argc - 2, argv + 2);
    if (!strcmp(argv[1], "bench"))
        return sim_bench(argc - 2, argv + 2);
    if (!strcmp(argv[1], "think"))
        return sim_think(argc - 2, argv + 2);
    if (!strcmp(argv[1], "leaderboard"))
        return sim_leaderboard(argc - 2, argv + 2);
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "--version") && argc == 2) {
        version_print(stdout, "hearts-sim");
        return 0;
    }
    fprintf(stderr, "hearts-sim: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return 2;
}
