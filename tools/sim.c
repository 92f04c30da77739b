/*
 * hearts-sim: the engine's command-line tool. `play` plays whole games
 * between computer players and prints per-seat figures; `replay` checks
 * game records (replay.c); `roundrobin` rates the levels (roundrobin.c);
 * `bench` measures the engine's speed (bench.c);
 * `leaderboard` rebuilds a channel's leaderboards (leaderboard.c).
 */
#include "bot/common/msg.h"
#include "bot/common/rule_words.h"
#include "bot/common/strbuf.h"
#include "bot/common/xalloc.h"
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
                 "                  [--seats LEVEL[/VARIANT],...] [--games N] "
                 "[--seed S] [--records FILE]\n"
                 "                  [--budget PLAYOUTS|LEVEL=PLAYOUTS,...] "
                 "[--duplicate]\n"
                 "                  [--against LEVEL[/VARIANT]]\n"
                 "       hearts-sim roundrobin [--levels LEVEL,LEVEL,...] "
                 "[--games N] [--preset NAME]\n"
                 "                  [--set KEY=VALUE]... [--seed S] "
                 "[--budget ...]\n"
                 "       hearts-sim bench [--runs N] [--seconds S]\n"
                 "       hearts-sim think [--level LEVEL] [--budget N] "
                 "[--decisions N]\n"
                 "                  [--phase play|pass|review] [--total T]\n"
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

/* One tournament's counting, fed by the engine's events. */
struct tour_count {
    const struct engine_rules *rules;
    struct sim_tour_result *res;
    int player_of[ENGINE_MAX_PLAYERS]; /* this game's seat -> player */
    /* this group's deals: [hand][player] points and seat-hands, and its
     * games' win shares by player */
    double (*deal_sum)[ENGINE_MAX_PLAYERS];
    double (*deal_count)[ENGINE_MAX_PLAYERS];
    int deal_hands; /* the most hands a game of the group had */
    double group_won[ENGINE_MAX_PLAYERS], group_games[ENGINE_MAX_PLAYERS];
    struct sim_pair_game *cur; /* this game's of player 0 (per_game), or NULL */
};

/* Each seat's margin in the hand just scored (sim_player.margin), added
 * by player. */
static void add_margins(struct tour_count *tc, const struct engine_game *g)
{
    struct sim_tour_result *res = tc->res;
    int n = g->n;
    double sum[ENGINE_MAX_PLAYERS] = {0}, count[ENGINE_MAX_PLAYERS] = {0};
    for (int s = 0; s < n; s++) {
        sum[tc->player_of[s]] += ai_hand_margin(g, s);
        count[tc->player_of[s]]++;
    }
    for (int p = 0; p < res->nplayers; p++)
        sim_mean_add(&res->players[p].margin, sum[p], count[p]);
    if (tc->cur) {
        tc->cur->margin += sum[0];
        tc->cur->hands += count[0];
    }
}

static void count_event(void *ctx, const struct engine_game *g,
                        const struct engine_event *ev)
{
    struct tour_count *tc = ctx;
    struct sim_tour_result *res = tc->res;
    int n = g->n, np = res->nplayers;
    switch (ev->kind) {
    case ENGINE_EV_MOON:
        res->seat_moons[ev->seat]++;
        res->players[tc->player_of[ev->seat]].moons++;
        break;
    case ENGINE_EV_HAND_SCORED: {
        res->hands++;
        double sum[ENGINE_MAX_PLAYERS] = {0}, count[ENGINE_MAX_PLAYERS] = {0};
        for (int s = 0; s < n; s++) {
            sim_mean_add(&res->seat_points[s], g->points[s], 1);
            sum[tc->player_of[s]] += g->points[s];
            count[tc->player_of[s]]++;
        }
        int h = g->hand_no - 1;
        if (h >= 0 && h < ENGINE_MAX_HANDS) {
            if (h + 1 > tc->deal_hands)
                tc->deal_hands = h + 1;
            for (int p = 0; p < np; p++) {
                tc->deal_sum[h][p] += sum[p];
                tc->deal_count[h][p] += count[p];
            }
        }
        for (int p = 0; p < np; p++)
            sim_mean_add(&res->players[p].points, sum[p], count[p]);
        add_margins(tc, g);
        break;
    }
    case ENGINE_EV_GAME_OVER: {
        /* a win is shared by the sides tied for it (tie = share; with
         * play_on only the last hand a game may have ends in a tie); under
         * partners both seats of a side win its share */
        int sides = g->nwinners;
        if (tc->rules->partners != ENGINE_PARTNERS_OFF && sides > 1)
            sides /= 2;
        double won[ENGINE_MAX_PLAYERS] = {0}, share[ENGINE_MAX_PLAYERS] = {0};
        for (int i = 0; i < g->nwinners; i++)
            share[g->winners[i]] = 1.0 / (sides > 0 ? sides : 1);
        double count[ENGINE_MAX_PLAYERS] = {0};
        for (int s = 0; s < n; s++) {
            sim_mean_add(&res->seat_won[s], share[s], 1);
            won[tc->player_of[s]] += share[s];
            count[tc->player_of[s]]++;
        }
        for (int p = 0; p < np; p++) {
            sim_mean_add(&res->players[p].won, won[p], count[p]);
            tc->group_won[p] += won[p];
            tc->group_games[p] += count[p];
        }
        if (tc->cur) {
            tc->cur->won += won[0];
            tc->cur->seats += count[0];
        }
        break;
    }
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

int sim_parse_rules_arg(const char *who, const char *arg, const char *val,
                        const char **preset, struct strbuf *text)
{
    if (!strcmp(arg, "--preset")) {
        *preset = val;
        return 1;
    }
    if (strcmp(arg, "--set"))
        return 0;
    if (!strchr(val, '=') || strchr(val, ' ') ||
        text->len + strlen(val) + 2 >= text->size) {
        fprintf(stderr, "%s: --set takes KEY=VALUE\n", who);
        return -1;
    }
    strbuf_addf(text, " %s", val);
    return 1;
}

int sim_parse_seats(const char *who, const char *list, struct sim_seat *seats,
                    int max)
{
    char buf[256];
    if (strlen(list) >= sizeof buf) {
        fprintf(stderr, "%s: --seats is too long\n", who);
        return -1;
    }
    size_t len = strlen(list);
    if (len == 0 || list[0] == ',' || list[len - 1] == ',' ||
        strstr(list, ",,")) {
        fprintf(stderr, "%s: a seat left empty in '%s'\n", who, list);
        return -1;
    }
    snprintf(buf, sizeof buf, "%s", list);
    int n = 0;
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        char err[160];
        if (n == max) {
            fprintf(stderr, "%s: more than %d seats\n", who, max);
            return -1;
        }
        if (sim_seat_parse(tok, &seats[n], err, sizeof err)) {
            fprintf(stderr, "%s: %s\n", who, err);
            return -1;
        }
        n++;
    }
    return n;
}

int sim_parse_budgets(const char *who, const char *arg, int *budgets)
{
    long v;
    int out[AI_LEVEL_MAX] = {0};
    if (sim_parse_count(arg, 0, 10000000, &v) == 0) {
        for (int l = 0; l < AI_LEVEL_MAX; l++)
            out[l] = (int)v;
        memcpy(budgets, out, sizeof out);
        return 0;
    }
    char buf[256];
    snprintf(buf, sizeof buf, "%s", arg);
    char *save = NULL;
    int any = 0;
    for (char *tok = strtok_r(buf, ",", &save); tok && strlen(arg) < sizeof buf;
         tok = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(tok, '=');
        if (eq)
            *eq = '\0';
        int level = eq ? ai_level_find(tok) : -1;
        if (level < 0 || ai_default_budget(level) == 0 ||
            sim_parse_count(eq + 1, 0, 10000000, &v)) {
            any = 0;
            break;
        }
        out[level] = (int)v;
        any = 1;
    }
    if (!any) {
        fprintf(stderr,
                "%s: --budget is PLAYOUTS (0: each level's own) or "
                "LEVEL=PLAYOUTS,... for searching levels\n",
                who);
        return -1;
    }
    memcpy(budgets, out, sizeof out);
    return 0;
}

/* Plays one game to its end; -1 if an action was refused (a bug). */
static int play_game(struct engine_game *g, const struct sim_seat *seats,
                     const int *budgets, struct engine_prng *rng,
                     const struct engine_sink *sink)
{
    /* the players are told each other's levels' ratings, as the bot tells
     * its computer players */
    struct ai_table table = {{0}};
    for (int s = 0; s < g->n; s++)
        table.rating[s] = ai_level_rating(seats[s].level, NULL);
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
            int level = seats[s].level;
            if (ai_decide_table(level, &v, rng, budgets[level], seats[s].flags,
                                &table, &a))
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

/* Plays game `gi` (its deals from deal seed `deal`, first dealer `dealer`)
 * with `seats`, its record (if t->records) written; 0, or 1. */
static int tour_game(const struct sim_tour *t, long gi, uint64_t deal,
                     int dealer, const struct sim_seat *seats,
                     struct engine_prng *rng, struct tour_count *tc)
{
    const struct engine_rules *rules = t->rules;
    int n = rules->players, rc = 0;
    struct record_writer *w = NULL;
    if (t->records) {
        char names[ENGINE_MAX_PLAYERS][48];
        const char *name_ptrs[ENGINE_MAX_PLAYERS];
        for (int s = 0; s < n; s++) {
            char who[32];
            sim_seat_name(&seats[s], who, sizeof who);
            snprintf(names[s], sizeof names[s], "%s%d", who, s);
            name_ptrs[s] = names[s];
        }
        w = record_writer_new(rules, name_ptrs, n);
        if (!w) {
            fprintf(stderr, "hearts-sim: cannot record these rules\n");
            return 1;
        }
    }
    struct engine_game g;
    engine_game_init(&g, rules, deal, dealer);
    struct tee tee = {.first = {.emit = count_event, .ctx = tc},
                      .second = w ? record_writer_sink(w) : NULL};
    struct engine_sink sink = {.emit = tee_emit, .ctx = &tee};
    if (play_game(&g, seats, t->budgets, rng, &sink)) {
        fprintf(stderr, "hearts-sim: game %ld did not finish\n", gi + 1);
        rc = 1;
    }
    if (w) {
        char *json = record_writer_json(w);
        if (json)
            fprintf(t->records, "%s\n", json);
        else
            fprintf(stderr, "hearts-sim: game %ld is too long to record\n",
                    gi + 1);
        free(json);
        record_writer_free(w);
    }
    return rc;
}

int sim_tour_run(const struct sim_tour *t, struct sim_tour_result *res)
{
    int n = t->rules->players;
    memset(res, 0, sizeof *res);
    /* the players: the pattern's distinct seats, in their first seat's
     * order */
    int player_at[ENGINE_MAX_PLAYERS];
    for (int s = 0; s < n; s++) {
        int p = 0;
        while (p < res->nplayers &&
               !sim_seat_same(&res->players[p].who, &t->pattern[s]))
            p++;
        if (p == res->nplayers)
            res->players[res->nplayers++].who = t->pattern[s];
        res->players[p].seats++;
        player_at[s] = p;
    }
    int seatings = t->duplicate ? sim_seatings(t->pattern, n) : 1;
    res->seatings = seatings;
    long groups = (t->games + seatings - 1) / seatings;
    struct tour_count tc = {.rules = t->rules, .res = res};
    tc.deal_sum = xcalloc(ENGINE_MAX_HANDS, sizeof *tc.deal_sum);
    tc.deal_count = xcalloc(ENGINE_MAX_HANDS, sizeof *tc.deal_count);
    /* without duplicate, one stream for the players' choices, as before */
    struct engine_prng rng;
    engine_prng_seed(&rng, (uint64_t)t->seed ^ UINT64_C(0x5eed5eed5eed5eed));
    int rc = 0;
    for (long k = 0; k < groups && rc == 0; k++) {
        memset(tc.group_won, 0, sizeof tc.group_won);
        memset(tc.group_games, 0, sizeof tc.group_games);
        tc.deal_hands = 0;
        for (int r = 0; r < seatings && rc == 0; r++) {
            long gi = k * seatings + r;
            struct sim_seat seats[ENGINE_MAX_PLAYERS];
            for (int s = 0; s < n; s++) {
                int from = sim_seating_of(s, r, n);
                seats[s] = t->pattern[from];
                tc.player_of[s] = player_at[from];
            }
            if (t->duplicate) {
                /* the players' own randomness, apart from the deals */
                engine_prng_seed(
                    &rng,
                    ((uint64_t)t->seed ^ UINT64_C(0x5eed5eed5eed5eed)) +
                        (uint64_t)(gi + 1) * UINT64_C(0x9e3779b97f4a7c15));
            }
            if (t->per_game) {
                tc.cur = &t->per_game[gi];
                tc.cur->group = k;
            }
            rc = tour_game(t, gi, (uint64_t)t->seed * 1000003u + (uint64_t)k,
                           (int)(k % n), seats, &rng, &tc);
            res->games++;
        }
        for (int h = 0; h < tc.deal_hands; h++) {
            for (int p = 0; p < res->nplayers; p++)
                sim_mean_add(&res->players[p].points_dup, tc.deal_sum[h][p],
                             tc.deal_count[h][p]);
        }
        memset(tc.deal_sum, 0, (size_t)tc.deal_hands * sizeof *tc.deal_sum);
        memset(tc.deal_count, 0, (size_t)tc.deal_hands * sizeof *tc.deal_count);
        for (int p = 0; p < res->nplayers; p++)
            sim_mean_add(&res->players[p].won_dup, tc.group_won[p],
                         tc.group_games[p]);
        res->groups++;
    }
    free(tc.deal_sum);
    free(tc.deal_count);
    return rc;
}

/* --against keeps two figures a game of each run in memory */
#define SIM_AGAINST_MAX_GAMES 1000000

/* What `hearts-sim play` was asked. */
struct play_opts {
    const char *preset, *records;
    char text[1024]; /* " KEY=VALUE" for each --set */
    long players, games, seed;
    int duplicate;
    int budgets[AI_LEVEL_MAX];
    struct sim_seat seats[ENGINE_MAX_PLAYERS];
    int nseats;
    struct sim_seat against; /* --against: in place of seats[0]'s player */
    int has_against;
};

/* Reads the arguments into o; 0, or 2 (the exit code) with the message
 * said. */
static int play_args(int argc, char **argv, struct play_opts *o)
{
    struct strbuf tb;
    strbuf_init(&tb, o->text, sizeof o->text);
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i];
        if (!strcmp(arg, "--duplicate")) {
            o->duplicate = 1;
            continue;
        }
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (!val) {
            fprintf(stderr, "hearts-sim play: %s needs a value\n", arg);
            return 2;
        }
        i++;
        int rules_arg =
            sim_parse_rules_arg("hearts-sim play", arg, val, &o->preset, &tb);
        if (rules_arg < 0)
            return 2;
        if (rules_arg > 0) {
            continue;
        } else if (!strcmp(arg, "--players")) {
            if (sim_parse_count(val, 2, ENGINE_MAX_PLAYERS, &o->players)) {
                fprintf(stderr, "hearts-sim play: --players is 2 to 10\n");
                return 2;
            }
        } else if (!strcmp(arg, "--seats")) {
            o->nseats = sim_parse_seats("hearts-sim play", val, o->seats,
                                        ENGINE_MAX_PLAYERS);
            if (o->nseats < 0)
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
            if (sim_parse_budgets("hearts-sim play", val, o->budgets))
                return 2;
        } else if (!strcmp(arg, "--against")) {
            char err[160];
            if (sim_seat_parse(val, &o->against, err, sizeof err)) {
                fprintf(stderr, "hearts-sim play: --against: %s\n", err);
                return 2;
            }
            o->has_against = 1;
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

/* A share as a percentage, or "-" when there is none. */
static void pct(char *buf, size_t len, double v, int shown)
{
    if (shown)
        snprintf(buf, len, "%.2f", 100 * v);
    else
        snprintf(buf, len, "-");
}

/* The tables of `hearts-sim play`: by seat, then by player (its seats
 * pooled), with the standard errors; under duplicate, how many times more
 * hands the same standard error takes without it. */
static void play_report(FILE *report, const struct play_opts *o,
                        const struct engine_rules *rules,
                        const struct sim_tour_result *res)
{
    int n = rules->players;
    fprintf(report, "%s, %d players, %ld game%s, %ld hand%s, seed %ld",
            engine_preset_name(rules->preset), n, res->games,
            res->games == 1 ? "" : "s", res->hands, res->hands == 1 ? "" : "s",
            o->seed);
    if (o->duplicate)
        fprintf(report, ", duplicate: %ld deal%s x %d seating%s", res->groups,
                res->groups == 1 ? "" : "s", res->seatings,
                res->seatings == 1 ? "" : "s");
    fprintf(report, "\nseat  level          points/hand  std.err   won %%  "
                    "std.err  moons\n");
    for (int s = 0; s < n; s++) {
        char who[32] = "(rotated)", won[16], wse[16];
        if (!o->duplicate)
            sim_seat_name(&o->seats[s], who, sizeof who);
        pct(won, sizeof won, sim_mean_value(&res->seat_won[s]), 1);
        pct(wse, sizeof wse, sim_mean_se(&res->seat_won[s]), 1);
        fprintf(report, "%4d  %-13s  %11.3f  %7.3f  %6s  %7s  %5ld\n", s, who,
                sim_mean_value(&res->seat_points[s]),
                sim_mean_se(&res->seat_points[s]), won, wse,
                res->seat_moons[s]);
    }
    fprintf(report, "level          seats  points/hand  std.err  dup.err   "
                    "won %%  std.err  dup.err  moons   margin  std.err\n");
    for (int p = 0; p < res->nplayers; p++) {
        const struct sim_player *pl = &res->players[p];
        char who[32], dup[16], won[16], wse[16], wdup[16];
        sim_seat_name(&pl->who, who, sizeof who);
        if (o->duplicate)
            snprintf(dup, sizeof dup, "%.3f", sim_mean_se(&pl->points_dup));
        else
            snprintf(dup, sizeof dup, "-");
        pct(won, sizeof won, sim_mean_value(&pl->won), 1);
        pct(wse, sizeof wse, sim_mean_se(&pl->won), 1);
        pct(wdup, sizeof wdup, sim_mean_se(&pl->won_dup), o->duplicate);
        fprintf(report,
                "%-13s  %5d  %11.3f  %7.3f  %7s  %6s  %7s  %7s  %5ld  %7.3f  "
                "%7.3f\n",
                who, pl->seats, sim_mean_value(&pl->points),
                sim_mean_se(&pl->points), dup, won, wse, wdup, pl->moons,
                sim_mean_value(&pl->margin), sim_mean_se(&pl->margin));
    }
    if (!o->duplicate)
        return;
    /* the variance of a mean falls as 1 / hands: the ratio of the squared
     * standard errors is how many times the hands without duplicate */
    fprintf(report, "hands for the same std.err without duplicate, "
                    "times those with it:");
    for (int p = 0; p < res->nplayers; p++) {
        const struct sim_player *pl = &res->players[p];
        char who[32];
        sim_seat_name(&pl->who, who, sizeof who);
        double a = sim_mean_se(&pl->points), b = sim_mean_se(&pl->points_dup);
        double c = sim_mean_se(&pl->won), d = sim_mean_se(&pl->won_dup);
        fprintf(report, "%s %s points ", p ? ";" : "", who);
        if (b > 0)
            fprintf(report, "%.2f", a * a / (b * b));
        else
            fprintf(report, "-");
        fprintf(report, ", won ");
        if (d > 0)
            fprintf(report, "%.2f", c * c / (d * d));
        else
            fprintf(report, "-");
    }
    fprintf(report, "\n");
}

/* Under --against: the player put in place of the first seat's, and the
 * two compared game by game on the same deals. */
static void against_report(FILE *report, const struct play_opts *o,
                           const struct sim_tour_result *res,
                           const struct sim_pair_game *a,
                           const struct sim_pair_game *b)
{
    const struct sim_player *pl = &res->players[0];
    char who[32], was[32], won[16], wse[16];
    sim_seat_name(&o->against, who, sizeof who);
    sim_seat_name(&o->seats[0], was, sizeof was);
    /* its own count of hands: the two players' games may differ in
     * length (a moon choice that keeps a game going) */
    fprintf(report,
            "against: %s in %s's seats, the same deals and seeds, %ld hand%s\n"
            "level          seats  points/hand  std.err   won %%  std.err  "
            "moons   margin  std.err\n",
            who, was, res->hands, res->hands == 1 ? "" : "s");
    pct(won, sizeof won, sim_mean_value(&pl->won), 1);
    pct(wse, sizeof wse, sim_mean_se(&pl->won), 1);
    fprintf(report, "%-13s  %5d  %11.3f  %7.3f  %6s  %7s  %5ld  %7.3f  %7.3f\n",
            who, pl->seats, sim_mean_value(&pl->points),
            sim_mean_se(&pl->points), won, wse, pl->moons,
            sim_mean_value(&pl->margin), sim_mean_se(&pl->margin));
    struct sim_pair_diff w, m;
    if (sim_pair_compare(a, b, res->games, &w, &m)) {
        fprintf(report, "%s less %s: the runs do not pair\n", was, who);
        return;
    }
    fprintf(report,
            "%s less %s, paired by deal: won %+.2f %% (std.err %.2f, "
            "unpaired %.2f), margin %+.3f (std.err %.3f, unpaired %.3f)\n",
            was, who, 100 * w.diff, 100 * w.se, 100 * w.unpaired, m.diff, m.se,
            m.unpaired);
}

int sim_play(int argc, char **argv)
{
    struct play_opts o = {.games = 100, .seed = 1};
    int rc = play_args(argc, argv, &o);
    if (rc)
        return rc;
    char line[1200];
    snprintf(line, sizeof line, "%s%s", o.preset, o.text);
    if (o.nseats > 0 && o.players == 0)
        o.players = o.nseats;
    struct engine_rules rules;
    struct engine_error e;
    char err[256];
    if (engine_rules_parse(&rules, line, (int)o.players, &e)) {
        fprintf(stderr, "hearts-sim play: %s\n",
                rule_words_error_text(err, sizeof err, MSG_EN, &e));
        return 2;
    }
    int n = rules.players;
    if (o.nseats == 0) {
        for (int s = 0; s < n; s++)
            o.seats[s] = (struct sim_seat){.level = AI_EASY};
    } else if (o.nseats != n) {
        fprintf(stderr,
                "hearts-sim play: --seats names %d levels for %d "
                "players\n",
                o.nseats, n);
        return 2;
    }
    if (o.has_against) {
        if (sim_seat_same(&o.seats[0], &o.against)) {
            fprintf(stderr, "hearts-sim play: --against names the player "
                            "it replaces\n");
            return 2;
        }
        /* counted apart, so that it may be one of the others at the table
         * (hard against three hard/points, and hard/points in its seat) */
        o.against.apart = 1;
        if (o.games > SIM_AGAINST_MAX_GAMES) {
            fprintf(stderr,
                    "hearts-sim play: --against plays at most %d games\n",
                    SIM_AGAINST_MAX_GAMES);
            return 2;
        }
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
    struct sim_tour t = {.rules = &rules,
                         .games = o.games,
                         .seed = o.seed,
                         .duplicate = o.duplicate,
                         .records = out};
    memcpy(t.pattern, o.seats, sizeof t.pattern);
    memcpy(t.budgets, o.budgets, sizeof t.budgets);
    struct sim_pair_game *per_a = NULL, *per_b = NULL;
    if (o.has_against) {
        /* the games played: whole groups of seatings (the other run's
         * pattern has the same, its player in the same seats) */
        long seatings = o.duplicate ? sim_seatings(t.pattern, n) : 1;
        size_t games = (size_t)((o.games + seatings - 1) / seatings * seatings);
        per_a = xcalloc(games, sizeof *per_a);
        per_b = xcalloc(games, sizeof *per_b);
        t.per_game = per_a;
    }
    struct sim_tour_result *res = xcalloc(1, sizeof *res);
    rc = sim_tour_run(&t, res);
    if (out && out != stdout && fclose(out)) {
        fprintf(stderr, "hearts-sim play: %s: %s\n", o.records,
                strerror(errno));
        rc = 2;
    }
    FILE *report = out == stdout ? stderr : stdout;
    play_report(report, &o, &rules, res);
    if (o.has_against && rc == 0) {
        /* the same games again, the first seat's player replaced; its
         * records are not written */
        struct sim_tour tb = t;
        for (int s = 0; s < n; s++)
            if (sim_seat_same(&t.pattern[s], &o.seats[0]))
                tb.pattern[s] = o.against;
        tb.records = NULL;
        tb.per_game = per_b;
        struct sim_tour_result *res_b = xcalloc(1, sizeof *res_b);
        rc = sim_tour_run(&tb, res_b);
        if (rc == 0)
            against_report(report, &o, res_b, per_a, per_b);
        free(res_b);
    }
    free(per_a);
    free(per_b);
    free(res);
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
    if (!strcmp(argv[1], "roundrobin"))
        return sim_roundrobin(argc - 2, argv + 2);
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
