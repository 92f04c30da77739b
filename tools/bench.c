/*
 * hearts-sim bench: the engine's speed on one core for the standard
 * 4-player game. Three figures, each the median of several timed runs:
 * random playouts (whole hands: deal, pass, every play, score) per second,
 * legal-move generations per second, and the easy computer player's
 * decisions per second. With --search, the searching levels' playouts
 * instead (search_bench). A benchmark, not a test: it prints, it asserts
 * nothing about time.
 */
#include "bot/common/msg.h"
#include "bot/common/rule_words.h"
#include "engine/ai/ai.h"
#include "engine/engine.h"
#include "tools/sim.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A uniformly chosen card of a non-empty set. */
static inline int random_card(struct engine_prng *rng, uint64_t set)
{
    uint32_t k = engine_prng_below(rng, (uint32_t)__builtin_popcountll(set));
    while (k--)
        set &= set - 1;
    return __builtin_ctzll(set);
}

/* One hand the way a Monte Carlo player simulates: deal, random passes,
 * and engine_playout for the plays and the score. Returns the hand's
 * plays (52 in the standard game). */
static int random_hand(struct engine_game *g, struct engine_prng *rng)
{
    if (engine_phase(g) == ENGINE_PHASE_GAME_OVER)
        engine_game_init(g, g->rules, engine_prng_next(rng), 0);
    engine_deal(g, NULL);
    engine_pass_random(g, rng, NULL);
    engine_playout(g, rng);
    return g->nplays;
}

/* The same hand one checked call per card: engine_legal_plays, a random
 * legal card, engine_play. What a caller pays without engine_playout. */
static int checked_hand(struct engine_game *g, struct engine_prng *rng)
{
    if (engine_phase(g) == ENGINE_PHASE_GAME_OVER)
        engine_game_init(g, g->rules, engine_prng_next(rng), 0);
    engine_deal(g, NULL);
    engine_pass_random(g, rng, NULL);
    int plays = 0;
    while (engine_phase(g) == ENGINE_PHASE_PLAY) {
        engine_play(g, random_card(rng, engine_legal_plays(g)), NULL, NULL);
        plays++;
    }
    if (engine_phase(g) == ENGINE_PHASE_MOON) {
        struct engine_action a = {.kind = ENGINE_ACT_MOON,
                                  .seat = (uint8_t)engine_turn(g),
                                  .moon = ENGINE_MOON_SUBTRACT};
        engine_act(g, &a, NULL, NULL);
    }
    return plays;
}

/* Positions in the middle of hands: a game about to play, for the legal
 * generation and decision benchmarks. */
#define POSITIONS 2048

static void make_positions(const struct engine_rules *r,
                           struct engine_game *pos, struct engine_prng *rng)
{
    struct engine_game g;
    engine_game_init(&g, r, 7, 0);
    int k = 0;
    while (k < POSITIONS) {
        if (engine_phase(&g) == ENGINE_PHASE_GAME_OVER)
            engine_game_init(&g, r, engine_prng_next(rng), 0);
        random_hand(&g, rng);
        /* replay a fresh hand up to a random depth */
        struct engine_game h = g;
        if (engine_phase(&h) != ENGINE_PHASE_DEAL)
            continue;
        engine_deal(&h, NULL);
        engine_pass_random(&h, rng, NULL);
        int depth = (int)engine_prng_below(rng, 52);
        for (int i = 0; i < depth && engine_phase(&h) == ENGINE_PHASE_PLAY; i++)
            engine_play(&h, random_card(rng, engine_legal_plays(&h)), NULL,
                        NULL);
        if (engine_phase(&h) == ENGINE_PHASE_PLAY)
            pos[k++] = h;
    }
}

struct figure {
    const char *what;
    double runs[64];
};

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, sim_cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void print_figure(const char *what, const char *unit, double *runs,
                         int n)
{
    double copy[64];
    memcpy(copy, runs, sizeof(double) * (size_t)n);
    printf("%-34s %12.0f %s/s  (median of %d; runs:", what, median(copy, n),
           unit, n);
    for (int i = 0; i < n; i++)
        printf(" %.0f", runs[i]);
    printf(")\n");
}

/*
 * The searching levels' playouts: `count` play decisions of `level` at
 * `budget` playouts, at every turn with a choice in hands that easy plays
 * (so the positions do not depend on the search), from fixed seeds. The
 * playouts are counted as the search spends them (budget / legal cards
 * deals of every legal card), so that callgrind's instructions of
 * ai_decide_flags divided by them give the instructions per playout. The
 * checksum of the chosen cards and of the generator after them shows
 * whether a change of the engine changed any decision. `flags` are the
 * level's variant bits: --random plays the search's playouts with the
 * engine's random playout (AI_PLAYOUT_RANDOM) instead of the policy.
 * `first`: only the decisions of the hand's first trick, whose playouts
 * play out nearly the whole hand (about 50 cards of 52, where the
 * decisions over whole hands average about 31).
 */
static int search_bench(int level, long budget, long count, int flags,
                        bool first)
{
    struct engine_rules r;
    if (engine_rules_parse(&r, "standard", 4, NULL))
        return 1;
    if (budget <= 0)
        budget = ai_default_budget(level);
    struct engine_prng rng, easy_rng;
    engine_prng_seed(&rng, 4242);
    engine_prng_seed(&easy_rng, 99);
    long k = 0;
    double playouts = 0, seconds = 0, cards = 0;
    unsigned long sink = 0;
    for (uint64_t deal = 1; k < count; deal++) {
        struct engine_game g;
        engine_game_init(&g, &r, deal, (int)(deal % 4));
        g.hand_no = (uint16_t)(deal % 4);
        engine_deal(&g, NULL);
        for (int s = 0; s < 4; s++) {
            struct engine_action a;
            if (ai_act_for(AI_EASY, &g, s, &easy_rng, &a) == 0)
                engine_act(&g, &a, NULL, NULL);
        }
        while (k < count && engine_phase(&g) == ENGINE_PHASE_PLAY) {
            struct engine_view v;
            struct engine_action a;
            engine_view_make(&g, engine_turn(&g), &v);
            int nc = __builtin_popcountll(v.legal);
            if (nc > 1 && (!first || g.nplays < 4)) {
                double t0 = sim_seconds();
                ai_decide_flags(level, &v, &rng, (int)budget, flags, &a);
                seconds += sim_seconds() - t0;
                long deals = budget / nc > 0 ? budget / nc : 1;
                playouts += (double)(deals * nc);
                cards += (double)(deals * nc) * (r.hand_size * 4 - g.nplays);
                sink = sink * 31 + a.cards[0];
                k++;
            }
            ai_act_for(AI_EASY, &g, engine_turn(&g), &easy_rng, &a);
            engine_act(&g, &a, NULL, NULL);
        }
    }
    printf("hearts-sim bench --search: %s%s, budget %ld, %ld play decisions "
           "%s, one core\n",
           ai_level_name(level),
           flags & AI_PLAYOUT_RANDOM ? " (random playouts)" : "", budget, k,
           first ? "in the first trick" : "over whole hands");
    printf("playouts %.0f (%.1f cards each on average), %.3f s: %.0f "
           "playouts/s, %.3f ms per decision\n",
           playouts, cards / playouts, seconds, playouts / seconds,
           seconds * 1e3 / (double)k);
    printf("(checksum %lu %016llx)\n", sink,
           (unsigned long long)engine_prng_next(&rng));
    return 0;
}

int sim_bench(int argc, char **argv)
{
    long runs = 7;
    double seconds = 1.0;
    bool search = false;
    int level = AI_HARD;
    long budget = 0, count = 100;
    int flags = 0;
    bool first = false;
    for (int i = 0; i < argc; i++) {
        char *end;
        if (!strcmp(argv[i], "--search")) {
            search = true;
        } else if (!strcmp(argv[i], "--random")) {
            flags |= AI_PLAYOUT_RANDOM;
        } else if (!strcmp(argv[i], "--first-trick")) {
            first = true;
        } else if (!strcmp(argv[i], "--level") && i + 1 < argc) {
            level = ai_level_find(argv[++i]);
            if (level < 0 || ai_default_budget(level) == 0) {
                fprintf(stderr, "hearts-sim bench: --level is a searching "
                                "level (normal, hard)\n");
                return 2;
            }
        } else if (!strcmp(argv[i], "--budget") && i + 1 < argc) {
            if (sim_parse_count(argv[++i], 1, 10000000, &budget)) {
                fprintf(stderr, "hearts-sim bench: --budget is 1 to "
                                "10000000\n");
                return 2;
            }
        } else if (!strcmp(argv[i], "--decisions") && i + 1 < argc) {
            if (sim_parse_count(argv[++i], 1, 1000000, &count)) {
                fprintf(stderr, "hearts-sim bench: --decisions is 1 to "
                                "1000000\n");
                return 2;
            }
        } else if (!strcmp(argv[i], "--runs") && i + 1 < argc) {
            if (sim_parse_count(argv[++i], 1, 64, &runs)) {
                fprintf(stderr, "hearts-sim bench: --runs is 1 to 64\n");
                return 2;
            }
        } else if (!strcmp(argv[i], "--seconds") && i + 1 < argc) {
            errno = 0;
            seconds = strtod(argv[++i], &end);
            if (errno || *end || !(seconds > 0.0) || seconds > 60.0) {
                fprintf(stderr,
                        "hearts-sim bench: --seconds is above 0, at most 60\n");
                return 2;
            }
        } else {
            fprintf(stderr, "usage: hearts-sim bench [--runs N] [--seconds "
                            "S]\n"
                            "       hearts-sim bench --search [--level "
                            "LEVEL] [--budget N] [--decisions N] "
                            "[--random] [--first-trick]\n");
            return 2;
        }
    }
    if (search)
        return search_bench(level, budget, count, flags, first);
    if (flags || first) {
        fprintf(stderr, "hearts-sim bench: --random and --first-trick are "
                        "for --search\n");
        return 2;
    }
    struct engine_rules r;
    struct engine_error e;
    if (engine_rules_parse(&r, "standard", 4, &e)) {
        char err[RULE_WORDS_SIZE];
        fprintf(stderr, "hearts-sim bench: %s\n",
                rule_words_error_text(err, sizeof err, MSG_EN, &e));
        return 1;
    }
    struct engine_prng rng;
    engine_prng_seed(&rng, 12345);
    static struct engine_game pos[POSITIONS];
    make_positions(&r, pos, &rng);

    double playouts[64], checked[64], legal[64], easy[64];
    unsigned long sink = 0;
    printf("hearts-sim bench: standard rules, 4 players, one core, %ld runs "
           "of %.1f s\n",
           runs, seconds);
    for (int run = 0; run < runs; run++) {
        struct engine_game g;
        engine_game_init(&g, &r, (uint64_t)run, 0);
        long hands = 0;
        double t0 = sim_seconds(), t;
        do {
            for (int i = 0; i < 1000; i++)
                sink += (unsigned long)random_hand(&g, &rng);
            hands += 1000;
            t = sim_seconds() - t0;
        } while (t < seconds);
        playouts[run] = (double)hands / t;

        engine_game_init(&g, &r, (uint64_t)run, 0);
        hands = 0;
        t0 = sim_seconds();
        do {
            for (int i = 0; i < 1000; i++)
                sink += (unsigned long)checked_hand(&g, &rng);
            hands += 1000;
            t = sim_seconds() - t0;
        } while (t < seconds);
        checked[run] = (double)hands / t;

        long calls = 0;
        t0 = sim_seconds();
        do {
            for (int rep = 0; rep < 64; rep++)
                for (int i = 0; i < POSITIONS; i++)
                    sink ^= engine_legal_plays(&pos[i]);
            calls += 64L * POSITIONS;
            t = sim_seconds() - t0;
        } while (t < seconds);
        legal[run] = (double)calls / t;

        long decisions = 0;
        t0 = sim_seconds();
        do {
            for (int i = 0; i < POSITIONS; i++) {
                struct engine_action a;
                ai_act_for(AI_EASY, &pos[i], engine_turn(&pos[i]), &rng, &a);
                sink += a.cards[0];
            }
            decisions += POSITIONS;
            t = sim_seconds() - t0;
        } while (t < seconds);
        easy[run] = (double)decisions / t;
    }
    print_figure("random playouts (engine_playout)", "hands", playouts,
                 (int)runs);
    print_figure("random hands, checked per card", "hands", checked, (int)runs);
    print_figure("legal-move generations", "calls", legal, (int)runs);
    print_figure("easy player decisions", "decisions", easy, (int)runs);
    printf("memory: a game is %zu bytes and a rule set %zu, a view %zu; the "
           "engine allocates nothing\n",
           sizeof(struct engine_game), sizeof(struct engine_rules),
           sizeof(struct engine_view));
    printf("(checksum %lu)\n", sink);
    return 0;
}
