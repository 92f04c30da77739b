/*
 * Property test over random option combinations, not only the presets and
 * test_properties.c's fixed mixes: random rule texts (a random preset, a
 * random player count from 2 to 10, and a random set of options with
 * values from each option's whole domain, its limits and just beyond
 * them) go through engine_rules_parse. A refusal must carry an error
 * whose words name an option, a preset or a range. Each accepted configuration
 * is played as a whole game by a random mix of `random` and `easy`
 * computer players, with the record writer attached, and:
 *
 * - every step keeps the invariants of invariants.h (cards, legal plays
 *   and refusals, scoring against the independent oracle, the end);
 * - the game ends, within 1,000 hands;
 * - the record, read back strictly and replayed through record_replay,
 *   gives the same rules, the same events, totals and winners, and writes
 *   back as the same line; a journal taken mid-game replays too.
 *
 * HEARTS_RANDOM_RULES=N sets how many rule texts are tried (default
 * DEFAULT_CONFIGS); HEARTS_RANDOM_SEED=S the first text's seed (text k
 * uses S + k). A failure names its seed and rule text; rerun it alone with
 * HEARTS_RANDOM_SEED=<that seed> HEARTS_RANDOM_RULES=1;
 * HEARTS_RANDOM_VERBOSE=1 prints every text and what became of it. A long
 * run is
 * documented in docs/engine.md.
 */
#include "engine/ai/ai.h"
#include "tests/support/invariants.h"
#include "tests/support/scenario.h"
#include "storage/record/record.h"

#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_CONFIGS 600
#define DEFAULT_SEED 20261124u
#define MAX_HANDS 1000

/* ---- Random rule texts ------------------------------------------------- */

enum gen_kind { G_INT, G_WORDS, G_BOOL, G_CYCLE, G_CARDS };

static const char *const odd_words[] = {
    "remove", "kitty", "kitty_first_point", "kitty_exchange", "faceup_leftover",
    "widow",  NULL};
static const char *const remove_words[] = {"momentpoint", "bigd", "modern",
                                           NULL};
static const char *const dir_words[] = {"left",    "right", "across", "hold",
                                        "scatter", "left2", "right2", NULL};
static const char *const lead_words[] = {"two_clubs", "left_of_dealer", NULL};
static const char *const fallback_words[] = {"holder_of_lowest",
                                             "first_left_with_clubs", NULL};
static const char *const hlead_words[] = {"broken", "any", NULL};
static const char *const first_words[] = {"allowed", "forbidden", NULL};
static const char *const hpoints_words[] = {"one", "spot", NULL};
static const char *const bonus_words[] = {"none", "TD", "JD", NULL};
static const char *const moon_words[] = {
    "subtract", "add_others", "choice", "add_unless_loses", "off", NULL};
static const char *const reset_words[] = {"off", "half", "zero", NULL};
static const char *const tie_words[] = {"share", "play_on", NULL};
static const char *const partners_words[] = {"off", "team_score",
                                             "individual_score", NULL};
static const char *const stock_words[] = {"off", "domino", "two_handed", NULL};

/*
 * Every option of variants.md with its domain: [min, max] for integers
 * (`typ` a typical value, `spread` how far typical draws go from it).
 * The test fails if the engine has an option this table lacks.
 */
struct gen {
    const char *key;
    enum gen_kind kind;
    const char *const *words;
    int min, max, typ, spread;
};

static const struct gen gens[] = {
    {"players", G_INT, NULL, 2, 10, 4, 3},
    {"decks", G_INT, NULL, 1, 2, 1, 1},
    {"odd_cards", G_WORDS, odd_words, 0, 0, 0, 0},
    {"remove_table", G_WORDS, remove_words, 0, 0, 0, 0},
    {"joker", G_BOOL, NULL, 0, 0, 0, 0},
    {"pass_count", G_INT, NULL, 0, 4, 3, 2},
    {"pass_cycle", G_CYCLE, dir_words, 0, 0, 0, 0},
    {"pass_blind", G_BOOL, NULL, 0, 0, 0, 0},
    {"first_lead", G_WORDS, lead_words, 0, 0, 0, 0},
    {"lowest_club_fallback", G_WORDS, fallback_words, 0, 0, 0, 0},
    {"hearts_lead", G_WORDS, hlead_words, 0, 0, 0, 0},
    {"queen_breaks_hearts", G_BOOL, NULL, 0, 0, 0, 0},
    {"lead_hearts_over_queen", G_BOOL, NULL, 0, 0, 0, 0},
    {"first_trick_points", G_WORDS, first_words, 0, 0, 0, 0},
    {"dump_queen", G_BOOL, NULL, 0, 0, 0, 0},
    {"heart_points", G_WORDS, hpoints_words, 0, 0, 0, 0},
    {"ace_spot_value", G_INT, NULL, 1, 14, 14, 0},
    {"qs_points", G_INT, NULL, -1000, 1000, 13, 15},
    {"card_points", G_CARDS, NULL, -1000, 1000, 5, 15},
    {"bonus_card", G_WORDS, bonus_words, 0, 0, 0, 0},
    {"bonus_points", G_INT, NULL, -1000, 1000, -10, 15},
    {"moon", G_WORDS, moon_words, 0, 0, 0, 0},
    {"moon_points", G_INT, NULL, 0, 1000, 26, 30},
    {"moon_keeps_bonus", G_BOOL, NULL, 0, 0, 0, 0},
    {"sun", G_BOOL, NULL, 0, 0, 0, 0},
    {"exact_target_reset", G_WORDS, reset_words, 0, 0, 0, 0},
    {"match_pairs", G_BOOL, NULL, 0, 0, 0, 0},
    {"target", G_INT, NULL, 1, 1000, 50, 50},
    {"hands", G_INT, NULL, 0, 1000, 3, 5},
    {"tie", G_WORDS, tie_words, 0, 0, 0, 0},
    {"partners", G_WORDS, partners_words, 0, 0, 0, 0},
    {"stock", G_WORDS, stock_words, 0, 0, 0, 0},
};

#define NGENS ((int)(sizeof gens / sizeof gens[0]))

struct text {
    char buf[2048];
    size_t len;
};

static void put(struct text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(t->buf + t->len, sizeof t->buf - t->len, fmt, ap);
    va_end(ap);
    assert_true(w >= 0 && (size_t)w < sizeof t->buf - t->len);
    t->len += (size_t)w;
}

static int below(struct engine_prng *p, int n)
{
    return (int)engine_prng_below(p, (uint32_t)n);
}

/*
 * An integer of the option's domain: its limits, rarely one beyond them
 * (to be refused), values near the typical one, or any value of the
 * domain. Limits that make games long (target, hands) come more rarely
 * than the rest, which keeps the bounded run fast.
 */
static int random_int(struct engine_prng *p, const struct gen *g)
{
    int k = below(p, 64);
    if (k == 0)
        return g->min - 1 - below(p, 3);
    if (k == 1)
        return g->max + 1 + below(p, 3);
    if (k < 4)
        return g->min;
    if (k < 6)
        return g->max;
    if (k < 12 || !strcmp(g->key, "target") || !strcmp(g->key, "hands")) {
        if (k >= 12 && below(p, 8) == 0)
            return g->min + below(p, g->max - g->min + 1);
        int v = g->typ - g->spread + below(p, 2 * g->spread + 1);
        return v < g->min ? g->min : v > g->max ? g->max : v;
    }
    if (k < 40)
        return g->typ - g->spread + below(p, 2 * g->spread + 1);
    return g->min + below(p, g->max - g->min + 1);
}

static const char *random_word(struct engine_prng *p, const char *const *w)
{
    int n = 0;
    while (w[n])
        n++;
    return w[below(p, n)];
}

/* A card of the 52 or the joker, canonical or in another accepted form. */
static void random_card(struct engine_prng *p, struct text *t)
{
    int k = below(p, 53);
    if (k == 52) {
        put(t, "JK");
        return;
    }
    int card = ENGINE_CARD(k / 13, k % 13);
    const char *name = engine_card_name(card);
    if (k % 13 == 8 && below(p, 4) == 0)
        put(t, "10%c", name[1]);
    else if (below(p, 4) == 0)
        put(t, "%c%c", name[0] | 0x20, name[1] | 0x20);
    else
        put(t, "%s", name);
}

static void random_value(struct engine_prng *p, const struct gen *g,
                         struct text *t)
{
    switch (g->kind) {
    case G_INT:
        if (!strcmp(g->key, "ace_spot_value") && below(p, 8))
            put(t, "%d", below(p, 2) ? 1 : 14);
        else
            put(t, "%d", random_int(p, g));
        break;
    case G_WORDS:
        put(t, "%s", random_word(p, g->words));
        break;
    case G_BOOL:
        put(t, "%s", below(p, 2) ? "on" : "off");
        break;
    case G_CYCLE: {
        /* 1..16 entries, rarely 17 (one too many) */
        int n = below(p, 4) ? 1 + below(p, 4) : 1 + below(p, 16);
        if (below(p, 64) == 0)
            n = ENGINE_MAX_CYCLE + 1;
        for (int i = 0; i < n; i++)
            put(t, "%s%s", i ? "," : "", random_word(p, g->words));
        break;
    }
    case G_CARDS: {
        if (below(p, 6) == 0) {
            put(t, "none");
            break;
        }
        int n = 1 + below(p, below(p, 8) ? 4 : 20);
        for (int i = 0; i < n; i++) {
            if (i)
                put(t, ",");
            random_card(p, t);
            put(t, ":%d", random_int(p, g));
        }
        break;
    }
    }
}

struct config {
    struct text text;
    int players; /* given to engine_rules_parse (0: the text's) */
    int noptions;
};

/* A random rule text: a preset (rarely none), then options. */
static void random_config(struct engine_prng *p, struct config *c)
{
    memset(c, 0, sizeof *c);
    int preset = below(p, engine_preset_count());
    if (below(p, 16))
        put(&c->text, "%s", engine_preset_name(preset));
    int min, max;
    engine_preset_players(preset, &min, &max);
    c->players = below(p, 5) ? min + below(p, max - min + 1) : 2 + below(p, 9);
    /* mostly a few options, sometimes many */
    int k = below(p, 3) ? below(p, 5) : below(p, NGENS);
    c->noptions = k;
    for (int i = 0; i < k; i++) {
        const struct gen *g = &gens[below(p, NGENS)];
        put(&c->text, "%s%s=", c->text.len ? " " : "", g->key);
        random_value(p, g, &c->text);
    }
}

/* A refusal names what is wrong: the option key (with the range, for a
 * value out of it) or the preset. */
static bool names_something(const char *err)
{
    for (int i = 0; i < engine_preset_count(); i++)
        if (strstr(err, engine_preset_name(i)))
            return true;
    for (int i = 0; i < engine_option_count(); i++)
        if (strstr(err, engine_option_name(i)))
            return !strstr(err, "whole number") || strstr(err, " to ");
    return false;
}

/* ---- Playing and replaying ------------------------------------------- */

struct stats {
    long tried, accepted, refused, unusual, games, hands, moons, capped,
        replays, blind;
};

struct fan {
    const struct engine_sink *writer;
    struct prop_trace *trace;
};

/* Hashes every event but a seat's having chosen its pass: seats pass in
 * a random order here, in seat order in a replay. */
static void trace_emit(void *ctx, const struct engine_game *g,
                       const struct engine_event *ev)
{
    if (ev->kind != ENGINE_EV_PASS_CHOSEN)
        prop_trace_event(ctx, g, ev);
}

static void fan_emit(void *ctx, const struct engine_game *g,
                     const struct engine_event *ev)
{
    struct fan *f = ctx;
    f->writer->emit(f->writer->ctx, g, ev);
    trace_emit(f->trace, g, ev);
}

/* The record of the game so far, read back and replayed. */
static void check_journal(const struct record_writer *w, const char *what)
{
    char *json = record_writer_json(w);
    if (!json)
        fail_msg("%s: no journal", what);
    char err[256] = "";
    if (record_check(json, strlen(json), err, sizeof err))
        fail_msg("%s: the journal does not replay: %s", what, err);
    free(json);
}

/* The finished game's record: parsed strictly, the same rules, replayed
 * to the same events, totals and winners, and written back the same. */
static void check_record(const struct engine_game *g,
                         const struct record_writer *w,
                         const struct prop_trace *tr, const char *what)
{
    const struct engine_rules *r = g->rules;
    char *json = record_writer_json(w);
    if (!json)
        fail_msg("%s: no record after %d hands", what, g->hand_no);
    struct record *rec = NULL;
    char err[256] = "";
    if (record_parse(json, strlen(json), &rec, err, sizeof err))
        fail_msg("%s: the record is refused: %s", what, err);
    for (int i = 0; i < engine_option_count(); i++) {
        char a[ENGINE_OPTION_TEXT_MAX], b[ENGINE_OPTION_TEXT_MAX];
        engine_rules_get(r, i, a, sizeof a);
        engine_rules_get(&rec->rules, i, b, sizeof b);
        if (strcmp(a, b))
            fail_msg("%s: the record's %s is %s, the game's %s", what,
                     engine_option_name(i), b, a);
    }
    if (memcmp(r->points, rec->rules.points, sizeof r->points) ||
        rec->rules.in_play != r->in_play || rec->rules.deck_len != r->deck_len)
        fail_msg("%s: the record's rules score or deal otherwise", what);
    struct prop_trace tr2 = {0, 0, 0};
    struct engine_sink sink = {trace_emit, &tr2};
    struct engine_game out;
    if (record_replay(rec, &sink, NULL, NULL, &out, err, sizeof err))
        fail_msg("%s: the record does not replay: %s", what, err);
    if (tr2.hash != tr->hash || tr2.hands_scored != tr->hands_scored)
        fail_msg("%s: the replay's events differ (%d hands, %d replayed)", what,
                 tr->hands_scored, tr2.hands_scored);
    if (out.phase != ENGINE_PHASE_GAME_OVER || out.hand_no != g->hand_no ||
        memcmp(out.totals, g->totals, sizeof g->totals) ||
        out.nwinners != g->nwinners ||
        memcmp(out.winners, g->winners, g->nwinners))
        fail_msg("%s: the replay ends otherwise", what);
    if (!rec->has_totals || !rec->has_winners || rec->nhands != g->hand_no)
        fail_msg("%s: the record lacks totals, winners or hands", what);
    char *again = record_to_json(rec);
    if (strcmp(again, json))
        fail_msg("%s: the record writes back otherwise", what);
    free(again);
    record_free(rec);
    free(json);
}

/* One seat's action by its computer player, taken. The players never
 * pass blind; a seat that may does so here a quarter of the time, so
 * records hold blind passes too. */
static void ai_step(struct engine_game *g, int seat, const int *levels,
                    struct engine_prng *p, const struct engine_sink *sink,
                    const struct prop_run *ru, struct stats *st)
{
    struct engine_action a;
    bool blind = false;
    if (engine_phase(g) == ENGINE_PHASE_PASS)
        engine_pass_count(g, seat, &blind);
    if (blind && below(p, 4) == 0) {
        a = (struct engine_action){.kind = ENGINE_ACT_PASS_BLIND,
                                   .seat = (uint8_t)seat};
        st->blind++;
    } else if (ai_act_for(levels[seat], g, seat, p, &a))
        fail_msg("%s hand %d: %s seat %d has nothing to do in phase %d",
                 ru->what, ru->hand, ai_level_name(levels[seat]), seat,
                 g->phase);
    enum engine_refusal why = engine_act(g, &a, sink, NULL);
    if (why != ENGINE_OK)
        fail_msg("%s hand %d: %s seat %d refused: %s", ru->what, ru->hand,
                 ai_level_name(levels[seat]), seat, sc_refusal(why));
}

static void play_game(const struct engine_rules *r, uint64_t seed,
                      struct prop_run *ru, struct stats *st)
{
    struct engine_prng p;
    engine_prng_seed(&p, seed ^ 0x5DEECE66Dull);
    int levels[ENGINE_MAX_PLAYERS];
    char seats[ENGINE_MAX_PLAYERS + 1] = "";
    for (int s = 0; s < r->players; s++) {
        levels[s] = below(&p, 2) ? AI_EASY : AI_RANDOM;
        seats[s] = levels[s] == AI_EASY ? 'e' : 'r';
    }
    size_t at = strlen(ru->what);
    snprintf(ru->what + at, sizeof ru->what - at, " seats %s", seats);

    static const char *const names[ENGINE_MAX_PLAYERS] = {
        "ann", "bob", "cy", "dee", "eve", "fay", "gus", "hal", "ida", "jo"};
    struct record_writer *w = record_writer_new(r, names, r->players);
    assert_non_null(w);
    struct prop_trace tr = {0, 0, 0};
    struct fan fan = {record_writer_sink(w), &tr};
    struct engine_sink sink = {fan_emit, &fan};
    struct engine_game g;
    engine_game_init(&g, r, seed, below(&p, r->players));
    int32_t before[ENGINE_MAX_PLAYERS];
    /* the step at which a journal is taken and replayed */
    int journal_at = below(&p, 200);
    ru->hand = 0;
    for (long step = 0; engine_phase(&g) != ENGINE_PHASE_GAME_OVER; step++) {
        if (g.hand_no > MAX_HANDS)
            fail_msg("%s: %d hands", ru->what, g.hand_no);
        if (step == journal_at)
            check_journal(w, ru->what);
        int scored = tr.hands_scored;
        switch (engine_phase(&g)) {
        case ENGINE_PHASE_DEAL:
            prop_deal(&g, before, &sink, ru);
            break;
        case ENGINE_PHASE_PASS: {
            int first = below(&p, g.n);
            for (int i = 0; i < g.n; i++) {
                int s = (first + i) % g.n;
                if (engine_phase(&g) == ENGINE_PHASE_PASS &&
                    engine_may_act(&g, s))
                    ai_step(&g, s, levels, &p, &sink, ru, st);
                prop_check_cards(&g, ru, "passing");
            }
            if (engine_phase(&g) == ENGINE_PHASE_PLAY)
                prop_check_after_pass(&g, ru);
            break;
        }
        case ENGINE_PHASE_PLAY:
            /* every refusal is tried in the first hands, then at random
             * plays, which keeps games to the 1,000-hand cap fast */
            if (g.hand_no <= 20 || below(&p, 16) == 0)
                prop_check_play(&g, &p, ru);
            ai_step(&g, engine_turn(&g), levels, &p, &sink, ru, st);
            break;
        case ENGINE_PHASE_DISCARD:
        case ENGINE_PHASE_MOON:
            ai_step(&g, engine_turn(&g), levels, &p, &sink, ru, st);
            break;
        default:
            fail_msg("%s: phase %d", ru->what, g.phase);
        }
        prop_check_cards(&g, ru, "after an action");
        if (tr.hands_scored != scored) {
            st->hands++;
            prop_check_scored(&g, before, ru);
        }
    }
    if (g.hand_no < 1 || g.hand_no > MAX_HANDS || g.hand_no != tr.hands_scored)
        fail_msg("%s: %d hands dealt, %d scored", ru->what, g.hand_no,
                 tr.hands_scored);
    st->capped += g.hand_no == MAX_HANDS;
    st->moons += tr.moons;
    st->games++;
    check_record(&g, w, &tr, ru->what);
    st->replays++;
    record_writer_free(w);
}

/* The figures of the run so far, printed at its end or at a failure (a
 * long run's figures up to the failing seed). */
static struct stats *stats;
static uint64_t first_seed;

static void print_stats(void)
{
    struct stats st = *stats;
    uint64_t base = first_seed;
    print_message("random rules from seed %" PRIu64 ": %ld tried, %ld "
                  "accepted (%ld not a preset as it is), %ld refused; %ld "
                  "games, %ld hands, %ld moons, %ld games to the 1,000-hand "
                  "cap, %ld blind passes, %ld records replayed\n",
                  base, st.tried, st.accepted, st.unusual, st.refused, st.games,
                  st.hands, st.moons, st.capped, st.blind, st.replays);
}

static int teardown(void **state)
{
    (void)state;
    if (stats)
        print_stats();
    stats = NULL;
    return 0;
}

static long env_long(const char *name, long def)
{
    const char *e = getenv(name);
    if (e && *e) {
        char *end;
        long long v = strtoll(e, &end, 0);
        if (!*end && v >= 0)
            return (long)v;
    }
    return def;
}

static void test_random_rules(void **state)
{
    (void)state;
    /* every option of the engine has a generator */
    for (int i = 0; i < engine_option_count(); i++) {
        bool found = false;
        for (int k = 0; k < NGENS; k++)
            found |= !strcmp(gens[k].key, engine_option_name(i));
        if (!found)
            fail_msg("option %s has no generator", engine_option_name(i));
    }
    long count = env_long("HEARTS_RANDOM_RULES", DEFAULT_CONFIGS);
    uint64_t base = (uint64_t)env_long("HEARTS_RANDOM_SEED", DEFAULT_SEED);
    bool verbose = env_long("HEARTS_RANDOM_VERBOSE", 0) > 0;
    struct stats st = {0};
    stats = &st;
    first_seed = base;
    for (long i = 0; i < count; i++) {
        uint64_t seed = base + (uint64_t)i;
        struct engine_prng p;
        engine_prng_seed(&p, seed);
        struct config c;
        random_config(&p, &c);
        struct engine_rules r;
        struct engine_error e = {0};
        st.tried++;
        if (engine_rules_parse(&r, c.text.buf, c.players, &e)) {
            const char *err = sc_error(&e);
            if (e.code == ENGINE_ERR_NONE || !names_something(err))
                fail_msg("seed %" PRIu64 ": '%s' for %d refused without "
                         "naming the problem: '%s'",
                         seed, c.text.buf, c.players, err);
            st.refused++;
            if (verbose)
                print_message("%" PRIu64 " refused '%s' for %d: %s\n", seed,
                              c.text.buf, c.players, err);
            continue;
        }
        st.accepted++;
        bool unusual = false;
        for (int o = 0; o < engine_option_count(); o++)
            unusual |= engine_rules_differs(&r, o) &&
                       strcmp(engine_option_name(o), "players");
        st.unusual += unusual;
        struct prop_run ru = {c.text.buf, seed, 0, ""};
        snprintf(ru.what, sizeof ru.what,
                 "HEARTS_RANDOM_SEED=%" PRIu64 " '%s' for %d", seed, c.text.buf,
                 r.players);
        long hands = st.hands;
        play_game(&r, engine_prng_next(&p), &ru, &st);
        if (verbose)
            print_message("%" PRIu64 " played '%s' for %d: %ld hands\n", seed,
                          c.text.buf, r.players, st.hands - hands);
    }
    print_stats();
    stats = NULL;
    if (count >= 100) {
        /* the generator reaches both sides, and mostly unusual rules */
        assert_true(st.accepted >= count / 4);
        assert_true(st.refused >= count / 20);
        assert_true(st.unusual * 2 >= st.accepted);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_random_rules, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
