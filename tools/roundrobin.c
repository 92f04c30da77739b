/*
 * hearts-sim roundrobin: every pair of the levels named plays a duplicate
 * tournament on a table of four, two seats each, alternating (A B A B,
 * then B A B A on the same deals); a Bradley-Terry fit of the games won
 * rates the levels on the Elo scale, easy (or the first level) at 1500.
 * docs/engine.md, "Measuring strength", says why games won and how to
 * read the table; the rows it ends with go into engine/ai/ai_ratings.c.
 */
#include "bot/common/msg.h"
#include "bot/common/rule_words.h"
#include "bot/common/strbuf.h"
#include "bot/common/xalloc.h"
#include "tools/sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define RR_ANCHOR_RATING 1500

struct rr_opts {
    const char *preset;
    char text[1024]; /* " KEY=VALUE" for each --set */
    long games, seed;
    int budgets[AI_LEVEL_MAX];
    struct sim_seat levels[ENGINE_MAX_PLAYERS];
    int nlevels;
};

static int rr_args(int argc, char **argv, struct rr_opts *o)
{
    static const char who[] = "hearts-sim roundrobin";
    struct strbuf tb;
    strbuf_init(&tb, o->text, sizeof o->text);
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (!val) {
            fprintf(stderr, "%s: %s needs a value\n", who, arg);
            return 2;
        }
        i++;
        int rules_arg = sim_parse_rules_arg(who, arg, val, &o->preset, &tb);
        if (rules_arg < 0)
            return 2;
        if (rules_arg > 0) {
            continue;
        } else if (!strcmp(arg, "--levels")) {
            o->nlevels =
                sim_parse_seats(who, val, o->levels, ENGINE_MAX_PLAYERS);
            if (o->nlevels < 0)
                return 2;
        } else if (!strcmp(arg, "--games")) {
            if (sim_parse_count(val, 2, 100000000, &o->games)) {
                fprintf(stderr, "%s: --games (a pair's) is 2 or more\n", who);
                return 2;
            }
        } else if (!strcmp(arg, "--seed")) {
            if (sim_parse_count(val, 0, 0x7fffffffffffffffL, &o->seed)) {
                fprintf(stderr, "%s: --seed is a number\n", who);
                return 2;
            }
        } else if (!strcmp(arg, "--budget")) {
            if (sim_parse_budgets(who, val, o->budgets))
                return 2;
        } else {
            fprintf(stderr, "%s: unknown argument '%s'\n", who, arg);
            return 2;
        }
    }
    if (o->nlevels == 0)
        for (int l = 0; l < ai_level_count() && l < ENGINE_MAX_PLAYERS; l++)
            o->levels[o->nlevels++] = (struct sim_seat){.level = l};
    for (int i = 0; i < o->nlevels; i++)
        for (int j = 0; j < i; j++)
            if (sim_seat_same(&o->levels[i], &o->levels[j])) {
                fprintf(stderr, "%s: --levels names a level twice\n", who);
                return 2;
            }
    if (o->nlevels < 2) {
        fprintf(stderr, "%s: --levels names at least two levels\n", who);
        return 2;
    }
    return 0;
}

int sim_roundrobin(int argc, char **argv)
{
    struct rr_opts o = {.preset = "standard", .games = 100, .seed = 1};
    int rc = rr_args(argc, argv, &o);
    if (rc)
        return rc;
    char line[1200], err[256];
    snprintf(line, sizeof line, "%s%s", o.preset, o.text);
    struct engine_rules rules;
    struct engine_error e;
    if (engine_rules_parse(&rules, line, 4, &e)) {
        fprintf(stderr, "hearts-sim roundrobin: %s\n",
                rule_words_error_text(err, sizeof err, MSG_EN, &e));
        return 2;
    }
    if (rules.players != 4) {
        fprintf(stderr,
                "hearts-sim roundrobin: the round robin is for 4 "
                "players, not %d\n",
                rules.players);
        return 2;
    }
    int k = o.nlevels, anchor = 0;
    for (int i = 0; i < k; i++)
        if (o.levels[i].level == AI_EASY && o.levels[i].flags == 0)
            anchor = i;
    char names[ENGINE_MAX_PLAYERS][32];
    for (int i = 0; i < k; i++)
        sim_seat_name(&o.levels[i], names[i], sizeof names[i]);
    double wins[ENGINE_MAX_PLAYERS * ENGINE_MAX_PLAYERS] = {0};
    double games[ENGINE_MAX_PLAYERS * ENGINE_MAX_PLAYERS] = {0};
    struct sim_tour_result *res = xcalloc(1, sizeof *res);
    printf("round robin, %s, 4 players (two seats each, alternating), "
           "duplicate, %ld games a pair, seed %ld\n",
           engine_preset_name(rules.preset), o.games, o.seed);
    printf("pair                         games  hands   first won %%  "
           "std.err  points/hand first, second  dup.err  seconds\n");
    double start = sim_seconds();
    for (int i = 0; i < k && rc == 0; i++) {
        for (int j = i + 1; j < k && rc == 0; j++) {
            struct sim_tour t = {.rules = &rules,
                                 .games = o.games,
                                 .seed = o.seed,
                                 .duplicate = 1};
            for (int s = 0; s < 4; s++)
                t.pattern[s] = o.levels[s % 2 ? j : i];
            memcpy(t.budgets, o.budgets, sizeof t.budgets);
            double t0 = sim_seconds();
            rc = sim_tour_run(&t, res);
            /* a game's win shares: the two sides' add up to the game */
            double wa = res->players[0].won.s, wb = res->players[1].won.s;
            double share = wa + wb > 0 ? wa / (wa + wb) : 0.5;
            /* the side's share of a game is its two seats' shares over
             * what a game hands out (1, or 2 under partners) */
            double per_game = res->games ? (wa + wb) / (double)res->games : 1;
            double share_se = per_game > 0
                                  ? res->players[0].seats *
                                        sim_mean_se(&res->players[0].won_dup) /
                                        per_game
                                  : 0;
            wins[i * k + j] = share * (double)res->games;
            wins[j * k + i] = (1 - share) * (double)res->games;
            games[i * k + j] = games[j * k + i] = (double)res->games;
            char pair[80];
            snprintf(pair, sizeof pair, "%.31s v %.31s", names[i], names[j]);
            printf("%-27s  %6ld  %6ld  %11.2f  %7.2f  %11.3f, %6.3f  %7.3f  "
                   "%7.0f\n",
                   pair, res->games, res->hands, 100 * share, 100 * share_se,
                   sim_mean_value(&res->players[0].points),
                   sim_mean_value(&res->players[1].points),
                   sim_mean_se(&res->players[0].points_dup),
                   sim_seconds() - t0);
            fflush(stdout);
        }
    }
    free(res);
    if (rc)
        return rc;
    double rating[ENGINE_MAX_PLAYERS], se[ENGINE_MAX_PLAYERS];
    if (sim_rating_fit(k, wins, games, anchor, RR_ANCHOR_RATING, rating, se)) {
        fprintf(stderr, "hearts-sim roundrobin: the ratings cannot be "
                        "fitted\n");
        return 1;
    }
    printf("level          rating  std.err   (Bradley-Terry on games won, "
           "%s = %d; %.0f seconds)\n",
           names[anchor], RR_ANCHOR_RATING, sim_seconds() - start);
    for (int i = 0; i < k; i++)
        printf("%-13s  %6.0f  %7.0f\n", names[i], rating[i], se[i]);
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    printf("for engine/ai/ai_ratings.c (%04d-%02d-%02d):\n", tm.tm_year + 1900,
           tm.tm_mon + 1, tm.tm_mday);
    for (int i = 0; i < k; i++)
        if (o.levels[i].flags == 0)
            printf("    {\"%s\", %.0f, %.0f},\n", names[i], rating[i], se[i]);
    return 0;
}
