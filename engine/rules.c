/*
 * Rule options and presets (docs/spec/variants.md; docs/rules.md is how we
 * play them): parsing `key=value` text with errors that name the nearest
 * valid word, the presets as option text applied over their base, the
 * checks of combinations that make no sense, and the tables derived for a
 * player count (the pack, the hand size, the point of every card).
 */
#include "engine/engine.h"
#include "engine/internal.h"

#include <ctype.h>
#include <stdarg.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum opt_kind { OPT_INT, OPT_BOOL, OPT_ENUM, OPT_CYCLE, OPT_CARDS };

enum opt_id {
    O_PLAYERS,
    O_DECKS,
    O_ODD_CARDS,
    O_REMOVE_TABLE,
    O_JOKER,
    O_PASS_COUNT,
    O_PASS_CYCLE,
    O_PASS_BLIND,
    O_FIRST_LEAD,
    O_LOWEST_CLUB_FALLBACK,
    O_HEARTS_LEAD,
    O_QUEEN_BREAKS_HEARTS,
    O_LEAD_HEARTS_OVER_QUEEN,
    O_FIRST_TRICK_POINTS,
    O_DUMP_QUEEN,
    O_HEART_POINTS,
    O_ACE_SPOT_VALUE,
    O_QS_POINTS,
    O_CARD_POINTS,
    O_BONUS_CARD,
    O_BONUS_POINTS,
    O_MOON,
    O_MOON_POINTS,
    O_MOON_KEEPS_BONUS,
    O_SUN,
    O_EXACT_TARGET_RESET,
    O_MATCH_PAIRS,
    O_TARGET,
    O_HANDS,
    O_TIE,
    O_PARTNERS,
    O_STOCK,
    O_COUNT
};

static const char *const odd_names[] = {
    "remove", "kitty", "kitty_first_point", "kitty_exchange", "faceup_leftover",
    "widow",  NULL};
static const char *const remove_names[] = {"momentpoint", "bigd", "modern",
                                           NULL};
static const char *const dir_names[] = {"left",    "right", "across", "hold",
                                        "scatter", "left2", "right2", NULL};
static const char *const lead_names[] = {"two_clubs", "left_of_dealer", NULL};
static const char *const fallback_names[] = {"holder_of_lowest",
                                             "first_left_with_clubs", NULL};
static const char *const hlead_names[] = {"broken", "any", NULL};
static const char *const first_names[] = {"allowed", "forbidden", NULL};
static const char *const hpoints_names[] = {"one", "spot", NULL};
static const char *const bonus_names[] = {"none", "TD", "JD", NULL};
static const char *const moon_names[] = {
    "subtract", "add_others", "choice", "add_unless_loses", "off", NULL};
static const char *const reset_names[] = {"off", "half", "zero", NULL};
static const char *const tie_names[] = {"share", "play_on", NULL};
static const char *const partners_names[] = {"off", "team_score",
                                             "individual_score", NULL};
static const char *const stock_names[] = {"off", "domino", "two_handed", NULL};

struct opt_desc {
    const char *name;
    enum opt_kind kind;
    const char *const *values; /* OPT_ENUM */
    int min, max;              /* OPT_INT */
};

static const struct opt_desc opts[O_COUNT] = {
    [O_PLAYERS] = {"players", OPT_INT, NULL, 2, 10},
    [O_DECKS] = {"decks", OPT_INT, NULL, 1, 2},
    [O_ODD_CARDS] = {"odd_cards", OPT_ENUM, odd_names, 0, 0},
    [O_REMOVE_TABLE] = {"remove_table", OPT_ENUM, remove_names, 0, 0},
    [O_JOKER] = {"joker", OPT_BOOL, NULL, 0, 0},
    [O_PASS_COUNT] = {"pass_count", OPT_INT, NULL, 0, ENGINE_MAX_PASS},
    [O_PASS_CYCLE] = {"pass_cycle", OPT_CYCLE, dir_names, 0, 0},
    [O_PASS_BLIND] = {"pass_blind", OPT_BOOL, NULL, 0, 0},
    [O_FIRST_LEAD] = {"first_lead", OPT_ENUM, lead_names, 0, 0},
    [O_LOWEST_CLUB_FALLBACK] = {"lowest_club_fallback", OPT_ENUM,
                                fallback_names, 0, 0},
    [O_HEARTS_LEAD] = {"hearts_lead", OPT_ENUM, hlead_names, 0, 0},
    [O_QUEEN_BREAKS_HEARTS] = {"queen_breaks_hearts", OPT_BOOL, NULL, 0, 0},
    [O_LEAD_HEARTS_OVER_QUEEN] = {"lead_hearts_over_queen", OPT_BOOL, NULL, 0,
                                  0},
    [O_FIRST_TRICK_POINTS] = {"first_trick_points", OPT_ENUM, first_names, 0,
                              0},
    [O_DUMP_QUEEN] = {"dump_queen", OPT_BOOL, NULL, 0, 0},
    [O_HEART_POINTS] = {"heart_points", OPT_ENUM, hpoints_names, 0, 0},
    [O_ACE_SPOT_VALUE] = {"ace_spot_value", OPT_INT, NULL, 1, 14},
    [O_QS_POINTS] = {"qs_points", OPT_INT, NULL, -1000, 1000},
    [O_CARD_POINTS] = {"card_points", OPT_CARDS, NULL, -1000, 1000},
    [O_BONUS_CARD] = {"bonus_card", OPT_ENUM, bonus_names, 0, 0},
    [O_BONUS_POINTS] = {"bonus_points", OPT_INT, NULL, -1000, 1000},
    [O_MOON] = {"moon", OPT_ENUM, moon_names, 0, 0},
    [O_MOON_POINTS] = {"moon_points", OPT_INT, NULL, 0, 1000},
    [O_MOON_KEEPS_BONUS] = {"moon_keeps_bonus", OPT_BOOL, NULL, 0, 0},
    [O_SUN] = {"sun", OPT_BOOL, NULL, 0, 0},
    [O_EXACT_TARGET_RESET] = {"exact_target_reset", OPT_ENUM, reset_names, 0,
                              0},
    [O_MATCH_PAIRS] = {"match_pairs", OPT_BOOL, NULL, 0, 0},
    [O_TARGET] = {"target", OPT_INT, NULL, 1, 1000},
    [O_HANDS] = {"hands", OPT_INT, NULL, 0, 1000},
    [O_TIE] = {"tie", OPT_ENUM, tie_names, 0, 0},
    [O_PARTNERS] = {"partners", OPT_ENUM, partners_names, 0, 0},
    [O_STOCK] = {"stock", OPT_ENUM, stock_names, 0, 0},
};

struct preset_desc {
    const char *name;
    int base; /* index of the preset it builds on, or -1 */
    const char *set;
    int min, max;
};

enum {
    P_STANDARD,
    P_MODERN,
    P_TENS,
    P_PARTY,
    P_BASIC,
    P_BLACK_LADY,
    P_PASSING,
    P_SPOT,
    P_GREEK,
    P_BLACK_MARIA,
    P_OMNIBUS,
    P_JOKER,
    P_HEARTSETTE,
    P_CANCELLATION,
    P_DOMINO,
    P_TWO_HANDED,
    P_PARTNERS,
    P_COUNT
};

static const struct preset_desc presets[P_COUNT] = {
    [P_STANDARD] = {"standard", -1, "", 3, 7},
    [P_MODERN] = {"modern", P_STANDARD,
                  "bonus_card=JD remove_table=modern "
                  "first_trick_points=forbidden queen_breaks_hearts=on "
                  "moon=subtract",
                  3, 6},
    [P_TENS] = {"tens", P_STANDARD,
                "bonus_card=TD moon=subtract pass_cycle=right,left,hold "
                "odd_cards=faceup_leftover "
                "lowest_club_fallback=first_left_with_clubs",
                3, 7},
    [P_PARTY] = {"party", P_STANDARD,
                 "first_lead=left_of_dealer hearts_lead=any moon=subtract", 3,
                 7},
    [P_BASIC] = {"basic", P_STANDARD,
                 "qs_points=0 moon=off pass_count=0 "
                 "first_lead=left_of_dealer target=50",
                 3, 7},
    [P_BLACK_LADY] = {"black-lady", P_STANDARD,
                      "pass_count=0 first_lead=left_of_dealer", 3, 7},
    [P_PASSING] = {"passing", P_STANDARD, "first_lead=left_of_dealer", 4, 4},
    [P_SPOT] = {"spot", P_BASIC, "heart_points=spot", 3, 7},
    [P_GREEK] = {"greek", P_BLACK_LADY,
                 "pass_count=3 pass_cycle=right heart_points=spot "
                 "card_points=QH:50 moon=add_others moon_points=150",
                 3, 7},
    [P_BLACK_MARIA] = {"black-maria", P_BASIC,
                       "qs_points=13 card_points=KS:10,AS:7 pass_count=3 "
                       "pass_cycle=right",
                       3, 7},
    [P_OMNIBUS] = {"omnibus", P_STANDARD, "bonus_card=TD", 3, 7},
    [P_JOKER] = {"joker", P_BASIC, "joker=on", 3, 7},
    [P_HEARTSETTE] = {"heartsette", P_BASIC, "odd_cards=widow", 3, 6},
    [P_CANCELLATION] = {"cancellation", P_BLACK_LADY,
                        "decks=2 odd_cards=kitty moon_points=52", 6, 10},
    [P_DOMINO] = {"domino", P_BASIC, "stock=domino target=31", 3, 7},
    [P_TWO_HANDED] = {"two-handed", P_BASIC, "stock=two_handed", 2, 2},
    [P_PARTNERS] = {"partners", P_STANDARD, "partners=team_score", 4, 4},
};

/* ---- Small text helpers ---------------------------------------------- */

static int lower(int c)
{
    return tolower((unsigned char)c);
}

/* Whether the first n bytes of a are b's, ignoring ASCII case. */
static bool same_word_n(const char *a, const char *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!a[i] || lower(a[i]) != lower(b[i]))
            return false;
    return true;
}

static bool same_word(const char *a, const char *b)
{
    while (*a && *b) {
        if (lower(*a) != lower(*b))
            return false;
        a++;
        b++;
    }
    return *a == *b;
}

static bool same_char(char x, char y, bool fold_case)
{
    return fold_case ? lower(x) == lower(y) : x == y;
}

/* Levenshtein's distance, with two neighbours swapped ("hlep") counted as
 * one edit as Damerau's is (the optimal string alignment form: no
 * substring is edited twice). */
int engine_word_distance(const char *a, size_t la, const char *b,
                         bool fold_case)
{
    size_t lb = strlen(b);
    if (la > 40 || lb > 40)
        return 99;
    int d[41][41];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = (int)i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        for (size_t j = 1; j <= lb; j++) {
            int best =
                d[i - 1][j - 1] + !same_char(a[i - 1], b[j - 1], fold_case);
            if (d[i - 1][j] + 1 < best)
                best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && same_char(a[i - 1], b[j - 2], fold_case) &&
                same_char(a[i - 2], b[j - 1], fold_case) &&
                d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    }
    return d[la][lb];
}

static int distance(const char *a, const char *b)
{
    return engine_word_distance(a, strlen(a), b, true);
}

/* How far `name` is from what was typed, `word` (wl bytes). */
static int nearness(const char *word, size_t wl, const char *name)
{
    int d = distance(word, name);
    /* a typed beginning ("team" for team_score) is as near as one typo:
     * counting the missing tail would suggest a short word */
    if (wl >= 3 && d > 1 && strncasecmp(word, name, wl) == 0)
        d = 1;
    return d;
}

const char *engine_nearest(const char *word, const char *const *names,
                           int count)
{
    const char *best = NULL;
    int bestd = 1 << 30;
    size_t wl = strlen(word);
    for (int i = 0; i < count && names[i]; i++) {
        int d = nearness(word, wl, names[i]);
        if (d < bestd) {
            bestd = d;
            best = names[i];
        }
    }
    return best;
}

/* engine_nearest over the names name(0) to name(count - 1): the option
 * and preset tables, whose names sit in rows of their own. */
static const char *nearest_by(const char *word, const char *(*name)(int),
                              int count)
{
    const char *best = NULL;
    int bestd = 1 << 30;
    size_t wl = strlen(word);
    for (int i = 0; i < count; i++) {
        int d = nearness(word, wl, name(i));
        if (d < bestd) {
            bestd = d;
            best = name(i);
        }
    }
    return best;
}

static int parse_int(const char *s, long *out)
{
    if (!*s)
        return -1;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || end == s || isspace((unsigned char)*s))
        return -1;
    *out = v;
    return 0;
}

static int enum_index(const char *const *names, const char *value)
{
    for (int i = 0; names[i]; i++)
        if (same_word(names[i], value))
            return i;
    return -1;
}

static int parse_bool(const char *value, bool *out)
{
    static const char *const yes[] = {"on", "true", "yes", "1", NULL};
    static const char *const no[] = {"off", "false", "no", "0", NULL};
    if (enum_index(yes, value) >= 0) {
        *out = true;
        return 0;
    }
    if (enum_index(no, value) >= 0) {
        *out = false;
        return 0;
    }
    return -1;
}

/* Copies a word into out (len bytes), cut at a UTF-8 character. */
static void copy_word(char *out, size_t len, const char *word)
{
    size_t n = word ? strlen(word) : 0;
    if (n >= len) {
        n = len - 1;
        while (n > 0 && ((unsigned char)word[n] & 0xC0) == 0x80)
            n--;
    }
    if (n)
        memcpy(out, word, n);
    out[n] = '\0';
}

void engine_fail(struct engine_error *err, struct engine_fail f)
{
    if (!err)
        return;
    memset(err, 0, sizeof *err);
    err->code = f.code;
    err->option = f.option;
    err->preset = f.preset;
    err->card = f.card;
    err->n1 = f.n1;
    err->n2 = f.n2;
    err->n3 = f.n3;
    copy_word(err->word, sizeof err->word, f.word);
    copy_word(err->near, sizeof err->near, f.near);
}

/* ---- Presets and keys ------------------------------------------------ */

int engine_preset_count(void)
{
    return P_COUNT;
}

const char *engine_preset_name(int preset)
{
    return preset >= 0 && preset < P_COUNT ? presets[preset].name : NULL;
}

void engine_preset_players(int preset, int *min, int *max)
{
    if (preset < 0 || preset >= P_COUNT)
        preset = P_STANDARD;
    *min = presets[preset].min;
    *max = presets[preset].max;
}

int engine_preset_find(const char *name)
{
    for (int i = 0; i < P_COUNT; i++)
        if (same_word(presets[i].name, name))
            return i;
    return -1;
}

int engine_option_count(void)
{
    return O_COUNT;
}

const char *engine_option_name(int option)
{
    return option >= 0 && option < O_COUNT ? opts[option].name : NULL;
}

int engine_option_find(const char *key)
{
    for (int i = 0; i < O_COUNT; i++)
        if (same_word(opts[i].name, key))
            return i;
    return -1;
}

const char *engine_option_value(int option, int i)
{
    if (option < 0 || option >= O_COUNT || !opts[option].values || i < 0)
        return NULL;
    const char *const *v = opts[option].values;
    for (int k = 0; k < i; k++)
        if (!v[k])
            return NULL;
    return v[i];
}

/* ---- Setting options ------------------------------------------------- */

static void defaults(struct engine_rules *r)
{
    memset(r, 0, sizeof *r);
    r->preset = P_STANDARD;
    r->players = 4;
    r->decks = 1;
    r->odd_cards = ENGINE_ODD_REMOVE;
    r->remove_table = ENGINE_REMOVE_MOMENTPOINT;
    r->pass_count = 3;
    r->pass_cycle_len = 4;
    r->pass_cycle[0] = ENGINE_PASS_LEFT;
    r->pass_cycle[1] = ENGINE_PASS_RIGHT;
    r->pass_cycle[2] = ENGINE_PASS_ACROSS;
    r->pass_cycle[3] = ENGINE_PASS_HOLD;
    r->first_lead = ENGINE_LEAD_TWO_CLUBS;
    r->lowest_club_fallback = ENGINE_FALLBACK_HOLDER_OF_LOWEST;
    r->hearts_lead = ENGINE_HEARTS_BROKEN;
    r->lead_hearts_over_queen = true;
    r->first_trick_points = ENGINE_FIRST_ALLOWED;
    r->heart_points = ENGINE_HEARTS_ONE;
    r->ace_spot_value = 14;
    r->qs_points = 13;
    r->bonus_card = ENGINE_BONUS_NONE;
    r->bonus_points = -10;
    r->moon = ENGINE_MOON_CHOICE;
    r->moon_points = 26;
    r->moon_keeps_bonus = true;
    r->exact_target_reset = ENGINE_RESET_OFF;
    r->target = 100;
    r->hands = 0;
    r->tie = ENGINE_TIE_PLAY_ON;
    r->partners = ENGINE_PARTNERS_OFF;
    r->stock = ENGINE_STOCK_OFF;
    r->bonus = ENGINE_NO_CARD;
}

static int set_cycle(struct engine_rules *r, const char *value,
                     struct engine_error *err)
{
    uint8_t cycle[ENGINE_MAX_CYCLE] = {0};
    int len = 0;
    const char *p = value;
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t n = comma ? (size_t)(comma - p) : strlen(p);
        char word[32];
        if (n == 0 || n >= sizeof word) {
            FAIL(err, .code = ENGINE_ERR_BAD_CYCLE, .option = O_PASS_CYCLE,
                 .word = value);
            return -1;
        }
        memcpy(word, p, n);
        word[n] = '\0';
        int d = enum_index(dir_names, word);
        if (d < 0) {
            FAIL(err, .code = ENGINE_ERR_BAD_DIRECTION, .option = O_PASS_CYCLE,
                 .word = word, .near = engine_nearest(word, dir_names, 99));
            return -1;
        }
        if (len == ENGINE_MAX_CYCLE) {
            FAIL(err, .code = ENGINE_ERR_CYCLE_TOO_LONG, .option = O_PASS_CYCLE,
                 .n1 = ENGINE_MAX_CYCLE);
            return -1;
        }
        cycle[len++] = (uint8_t)d;
        if (!comma)
            break;
        p = comma + 1;
    }
    memcpy(r->pass_cycle, cycle, sizeof cycle);
    r->pass_cycle_len = len;
    return 0;
}

static int set_card_points(struct engine_rules *r, const char *value, bool user,
                           struct engine_error *err)
{
    struct engine_rules t;
    memcpy(&t, r, sizeof t); /* padding too: rules compare bytewise */
    const char *p = value;
    uint64_t seen = 0;
    if (same_word(value, "none")) {
        r->card_points_set = 0;
        return 0;
    }
    /* "none,KS:5": the list replaces the preset's instead of adding to it
     * (how a record writes card_points=none followed by a list) */
    if (strlen(value) > 5 && same_word_n(value, "none,", 5)) {
        t.card_points_set = 0;
        p = value + 5;
    }
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t n = comma ? (size_t)(comma - p) : strlen(p);
        const char *colon = memchr(p, ':', n);
        int card;
        long v;
        char num[16];
        if (!colon || engine_card_parse(p, (size_t)(colon - p), &card) ||
            (size_t)(p + n - colon - 1) >= sizeof num) {
            FAIL(err, .code = ENGINE_ERR_BAD_CARD_POINTS,
                 .option = O_CARD_POINTS, .word = value);
            return -1;
        }
        memcpy(num, colon + 1, (size_t)(p + n - colon - 1));
        num[p + n - colon - 1] = '\0';
        if (parse_int(num, &v) || v < opts[O_CARD_POINTS].min ||
            v > opts[O_CARD_POINTS].max) {
            FAIL(err, .code = ENGINE_ERR_BAD_CARD_VALUE,
                 .option = O_CARD_POINTS, .card = card, .word = num,
                 .n1 = opts[O_CARD_POINTS].min, .n2 = opts[O_CARD_POINTS].max);
            return -1;
        }
        if (seen & ENGINE_BIT(card)) {
            FAIL(err, .code = ENGINE_ERR_CARD_TWICE, .option = O_CARD_POINTS,
                 .card = card);
            return -1;
        }
        seen |= ENGINE_BIT(card);
        if (t.card_points_set & ENGINE_BIT(card) && user &&
            t.card_points[card] != v &&
            (t.explicit_keys >> O_CARD_POINTS & 1)) {
            FAIL(err, .code = ENGINE_ERR_CARD_TWICE, .option = O_CARD_POINTS,
                 .card = card);
            return -1;
        }
        if (card == ENGINE_QS) {
            if (user && (t.explicit_keys >> O_QS_POINTS & 1) &&
                t.qs_points != v) {
                FAIL(err, .code = ENGINE_ERR_CARD_POINTS_QS,
                     .option = O_CARD_POINTS, .card = ENGINE_QS, .n1 = (int)v,
                     .n2 = t.qs_points);
                return -1;
            }
            t.qs_points = (int)v;
        }
        t.card_points_set |= ENGINE_BIT(card);
        t.card_points[card] = (int16_t)v;
        if (!comma)
            break;
        p = comma + 1;
    }
    memcpy(r, &t, sizeof t);
    return 0;
}

/* An option's value as read by its kind. */
struct opt_value {
    long iv; /* OPT_INT */
    bool bv; /* OPT_BOOL */
    int ev;  /* OPT_ENUM: the index of the name */
};

/* Reads `value` as option o's kind into *v. pass_cycle and card_points,
 * which are more than one value, are set on r here. */
static int read_value(struct engine_rules *r, int o, const char *value,
                      bool user, struct opt_value *v, struct engine_error *err)
{
    const struct opt_desc *d = &opts[o];
    switch (d->kind) {
    case OPT_INT:
        if (parse_int(value, &v->iv) || v->iv < d->min || v->iv > d->max) {
            FAIL(err, .code = ENGINE_ERR_BAD_NUMBER, .option = o, .word = value,
                 .n1 = d->min, .n2 = d->max);
            return -1;
        }
        return 0;
    case OPT_BOOL:
        if (parse_bool(value, &v->bv)) {
            FAIL(err, .code = ENGINE_ERR_BAD_SWITCH, .option = o,
                 .word = value);
            return -1;
        }
        return 0;
    case OPT_ENUM:
        v->ev = enum_index(d->values, value);
        if (v->ev < 0) {
            FAIL(err, .code = ENGINE_ERR_BAD_VALUE, .option = o, .word = value,
                 .near = engine_nearest(value, d->values, 99));
            return -1;
        }
        return 0;
    case OPT_CYCLE:
        return set_cycle(r, value, err);
    case OPT_CARDS:
        return set_card_points(r, value, user, err);
    }
    return 0;
}

/* qs_points, which must agree with a QS the user named in card_points. */
static int set_qs_points(struct engine_rules *r, long iv, bool user,
                         struct engine_error *err)
{
    if (user && (r->explicit_keys >> O_CARD_POINTS & 1) &&
        (r->card_points_set & ENGINE_BIT(ENGINE_QS)) &&
        r->card_points[ENGINE_QS] != iv) {
        FAIL(err, .code = ENGINE_ERR_QS_POINTS_CARD, .option = O_QS_POINTS,
             .card = ENGINE_QS, .n1 = (int)iv, .n2 = r->card_points[ENGINE_QS]);
        return -1;
    }
    r->qs_points = (int)iv;
    if (r->card_points_set & ENGINE_BIT(ENGINE_QS))
        r->card_points[ENGINE_QS] = (int16_t)iv;
    return 0;
}

/* Stores a value read by read_value in option o's field, with the checks
 * a kind alone cannot make. */
static int store_value(struct engine_rules *r, int o, const char *value,
                       bool user, const struct opt_value *v,
                       struct engine_error *err)
{
    long iv = v->iv;
    bool bv = v->bv;
    int ev = v->ev;
    switch ((enum opt_id)o) {
    case O_PLAYERS:
        r->players = (int)iv;
        break;
    case O_DECKS:
        r->decks = (int)iv;
        break;
    case O_ODD_CARDS:
        r->odd_cards = (enum engine_odd_cards)ev;
        break;
    case O_REMOVE_TABLE:
        r->remove_table = (enum engine_remove_table)ev;
        break;
    case O_JOKER:
        r->joker = bv;
        break;
    case O_PASS_COUNT:
        r->pass_count = (int)iv;
        break;
    case O_PASS_BLIND:
        r->pass_blind = bv;
        break;
    case O_FIRST_LEAD:
        r->first_lead = (enum engine_first_lead)ev;
        break;
    case O_LOWEST_CLUB_FALLBACK:
        r->lowest_club_fallback = (enum engine_club_fallback)ev;
        break;
    case O_HEARTS_LEAD:
        r->hearts_lead = (enum engine_hearts_lead)ev;
        break;
    case O_QUEEN_BREAKS_HEARTS:
        r->queen_breaks_hearts = bv;
        break;
    case O_LEAD_HEARTS_OVER_QUEEN:
        r->lead_hearts_over_queen = bv;
        break;
    case O_FIRST_TRICK_POINTS:
        r->first_trick_points = (enum engine_first_trick)ev;
        break;
    case O_DUMP_QUEEN:
        r->dump_queen = bv;
        break;
    case O_HEART_POINTS:
        r->heart_points = (enum engine_heart_points)ev;
        break;
    case O_ACE_SPOT_VALUE:
        if (iv != 1 && iv != 14) {
            FAIL(err, .code = ENGINE_ERR_BAD_ACE_VALUE,
                 .option = O_ACE_SPOT_VALUE, .word = value);
            return -1;
        }
        r->ace_spot_value = (int)iv;
        break;
    case O_QS_POINTS:
        return set_qs_points(r, iv, user, err);
    case O_BONUS_CARD:
        r->bonus_card = (enum engine_bonus)ev;
        break;
    case O_BONUS_POINTS:
        r->bonus_points = (int)iv;
        break;
    case O_MOON:
        r->moon = (enum engine_moon)ev;
        break;
    case O_MOON_POINTS:
        r->moon_points = (int)iv;
        break;
    case O_MOON_KEEPS_BONUS:
        r->moon_keeps_bonus = bv;
        break;
    case O_SUN:
        r->sun = bv;
        break;
    case O_EXACT_TARGET_RESET:
        r->exact_target_reset = (enum engine_reset)ev;
        break;
    case O_MATCH_PAIRS:
        r->match_pairs = bv;
        break;
    case O_TARGET:
        r->target = (int)iv;
        break;
    case O_HANDS:
        r->hands = (int)iv;
        break;
    case O_TIE:
        r->tie = (enum engine_tie)ev;
        break;
    case O_PARTNERS:
        r->partners = (enum engine_partners)ev;
        break;
    case O_STOCK:
        r->stock = (enum engine_stock)ev;
        break;
    case O_PASS_CYCLE:  /* set by read_value */
    case O_CARD_POINTS: /* set by read_value */
    case O_COUNT:
        break;
    }
    return 0;
}

/* Sets one option; `user` marks it as set explicitly (not by a preset). */
static int set_option(struct engine_rules *r, const char *key,
                      const char *value, bool user, struct engine_error *err)
{
    int o = engine_option_find(key);
    if (o < 0) {
        FAIL(err, .code = ENGINE_ERR_UNKNOWN_OPTION, .word = key,
             .near = nearest_by(key, engine_option_name, O_COUNT));
        return -1;
    }
    struct opt_value v = {0};
    if (read_value(r, o, value, user, &v, err) ||
        store_value(r, o, value, user, &v, err))
        return -1;
    if (user)
        r->explicit_keys |= UINT64_C(1) << o;
    r->finished = false;
    return 0;
}

/* Applies a preset's option text (and its base's, first). */
static void apply_preset(struct engine_rules *r, int p)
{
    if (presets[p].base >= 0)
        apply_preset(r, presets[p].base);
    char buf[256];
    snprintf(buf, sizeof buf, "%s", presets[p].set);
    char *save = NULL;
    for (char *tok = strtok_r(buf, " ", &save); tok;
         tok = strtok_r(NULL, " ", &save)) {
        char *eq = strchr(tok, '=');
        *eq = '\0';
        int rc = set_option(r, tok, eq + 1, false, NULL);
        (void)rc; /* preset texts are checked by the unit tests */
    }
}

static void preset_rules(struct engine_rules *r, int p)
{
    defaults(r);
    apply_preset(r, p);
    r->preset = p;
    int min, max;
    engine_preset_players(p, &min, &max);
    r->players = (min <= 4 && max >= 4) ? 4 : min;
}

int engine_rules_init(struct engine_rules *r, const char *preset,
                      struct engine_error *err)
{
    int p = preset ? engine_preset_find(preset) : P_STANDARD;
    if (p < 0) {
        FAIL(err, .code = ENGINE_ERR_UNKNOWN_PRESET, .word = preset,
             .near = nearest_by(preset, engine_preset_name, P_COUNT));
        return -1;
    }
    preset_rules(r, p);
    return 0;
}

int engine_rules_set(struct engine_rules *r, const char *key, const char *value,
                     struct engine_error *err)
{
    struct engine_rules t;
    memcpy(&t, r, sizeof t); /* padding too: rules compare bytewise */
    if (set_option(&t, key, value, true, err))
        return -1;
    memcpy(r, &t, sizeof t);
    return 0;
}

int engine_rules_parse(struct engine_rules *r, const char *text, int players,
                       struct engine_error *err)
{
    struct engine_rules t;
    char buf[1024];
    if (strlen(text) >= sizeof buf) {
        FAIL(err, .code = ENGINE_ERR_TOO_LONG);
        return -1;
    }
    snprintf(buf, sizeof buf, "%s", text);
    char *save = NULL;
    char *tok = strtok_r(buf, " \t", &save);
    const char *preset = NULL;
    if (tok && !strchr(tok, '=')) {
        preset = tok;
        tok = strtok_r(NULL, " \t", &save);
    }
    if (engine_rules_init(&t, preset, err))
        return -1;
    if (players > 0)
        t.players = players;
    uint64_t given = 0; /* options named so far: each may be named once */
    for (; tok; tok = strtok_r(NULL, " \t", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq) {
            FAIL(err, .code = ENGINE_ERR_NOT_KEY_VALUE, .word = tok);
            return -1;
        }
        *eq = '\0';
        if (!*tok) {
            FAIL(err, .code = ENGINE_ERR_NO_KEY);
            return -1;
        }
        int o = engine_option_find(tok);
        if (o >= 0 && (given >> o & 1)) {
            FAIL(err, .code = ENGINE_ERR_OPTION_TWICE, .option = o,
                 .word = tok);
            return -1;
        }
        if (o >= 0)
            given |= UINT64_C(1) << o;
        if (set_option(&t, tok, eq + 1, true, err))
            return -1;
    }
    if (engine_rules_finish(&t, err))
        return -1;
    memcpy(r, &t, sizeof t);
    return 0;
}

/* ---- Reading options back -------------------------------------------- */

/* Appends to buf (len bytes) at pos, truncating safely; returns the
 * position the whole text would reach, as snprintf counts. */
static size_t append(char *buf, size_t len, size_t pos, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static size_t append(char *buf, size_t len, size_t pos, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int w = pos < len ? vsnprintf(buf + pos, len - pos, fmt, ap)
                      : vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    return pos + (w > 0 ? (size_t)w : 0);
}

static int print_cycle(const struct engine_rules *r, char *buf, size_t len)
{
    size_t pos = 0;
    buf[0] = '\0';
    for (int i = 0; i < r->pass_cycle_len; i++)
        pos = append(buf, len, pos, "%s%s", i ? "," : "",
                     dir_names[r->pass_cycle[i]]);
    return (int)pos;
}

/* Whether two words of a rules text set the same option: their keys (up
 * to '=') name one option, or are the same unknown text. */
static bool same_key(const char *a, const char *b)
{
    const char *ea = strchr(a, '='), *eb = strchr(b, '=');
    if (!ea || !eb)
        return false;
    char ka[64], kb[64];
    snprintf(ka, sizeof ka, "%.*s", (int)(ea - a), a);
    snprintf(kb, sizeof kb, "%.*s", (int)(eb - b), b);
    int oa = engine_option_find(ka);
    return oa >= 0 ? oa == engine_option_find(kb) : strcmp(ka, kb) == 0;
}

int engine_rules_over(const char *base, const char *over, char *out,
                      size_t outlen)
{
    char b[1024], o[1024];
    if (strlen(base) >= sizeof b || strlen(over) >= sizeof o)
        return -1;
    snprintf(b, sizeof b, "%s", base);
    snprintf(o, sizeof o, "%s", over);
    const char *bw[512], *ow[512];
    int nb = 0, no = 0;
    char *save = NULL;
    for (char *w = strtok_r(b, " \t", &save); w && nb < 512;
         w = strtok_r(NULL, " \t", &save))
        bw[nb++] = w;
    for (char *w = strtok_r(o, " \t", &save); w && no < 512;
         w = strtok_r(NULL, " \t", &save))
        ow[no++] = w;
    size_t pos = 0;
    out[0] = '\0';
    for (int i = 0; i < nb; i++) {
        bool later = false;
        for (int k = i + 1; k < nb && !later; k++)
            later = same_key(bw[i], bw[k]);
        for (int k = 0; k < no && !later; k++)
            later = same_key(bw[i], ow[k]);
        if (!later)
            pos = append(out, outlen, pos, "%s%s", pos ? " " : "", bw[i]);
    }
    for (int k = 0; k < no; k++)
        pos = append(out, outlen, pos, "%s%s", pos ? " " : "", ow[k]);
    return pos < outlen ? 0 : -1;
}

static void preset_rules(struct engine_rules *r, int p);

static int print_card_points(const struct engine_rules *r, char *buf,
                             size_t len)
{
    size_t pos = 0;
    buf[0] = '\0';
    if (!r->card_points_set)
        return snprintf(buf, len, "none");
    /* a preset entry that was cleared (card_points=none, then a list):
     * say so, or the list would be read on top of the preset's again */
    struct engine_rules base;
    preset_rules(&base, r->preset);
    if (base.card_points_set & ~r->card_points_set)
        pos = append(buf, len, pos, "none,");
    /* Cards in the canonical order of the record: by suit, then rank. */
    for (int c = 0; c < 64; c++)
        if (r->card_points_set & ENGINE_BIT(c))
            pos = append(buf, len, pos, "%s%s:%d",
                         pos && buf[pos - 1] != ',' ? "," : "",
                         engine_card_name(c), r->card_points[c]);
    return (int)pos;
}

int engine_rules_get(const struct engine_rules *r, int option, char *buf,
                     size_t len)
{
    if (option < 0 || option >= O_COUNT || len == 0)
        return -1;
    long iv = 0;
    int ev = -1;
    int bv = -1;
    switch ((enum opt_id)option) {
    case O_PLAYERS:
        iv = r->players;
        break;
    case O_DECKS:
        iv = r->decks;
        break;
    case O_ODD_CARDS:
        ev = (int)r->odd_cards;
        break;
    case O_REMOVE_TABLE:
        ev = (int)r->remove_table;
        break;
    case O_JOKER:
        bv = r->joker;
        break;
    case O_PASS_COUNT:
        iv = r->pass_count;
        break;
    case O_PASS_CYCLE:
        return print_cycle(r, buf, len);
    case O_PASS_BLIND:
        bv = r->pass_blind;
        break;
    case O_FIRST_LEAD:
        ev = (int)r->first_lead;
        break;
    case O_LOWEST_CLUB_FALLBACK:
        ev = (int)r->lowest_club_fallback;
        break;
    case O_HEARTS_LEAD:
        ev = (int)r->hearts_lead;
        break;
    case O_QUEEN_BREAKS_HEARTS:
        bv = r->queen_breaks_hearts;
        break;
    case O_LEAD_HEARTS_OVER_QUEEN:
        bv = r->lead_hearts_over_queen;
        break;
    case O_FIRST_TRICK_POINTS:
        ev = (int)r->first_trick_points;
        break;
    case O_DUMP_QUEEN:
        bv = r->dump_queen;
        break;
    case O_HEART_POINTS:
        ev = (int)r->heart_points;
        break;
    case O_ACE_SPOT_VALUE:
        iv = r->ace_spot_value;
        break;
    case O_QS_POINTS:
        iv = r->qs_points;
        break;
    case O_CARD_POINTS:
        return print_card_points(r, buf, len);
    case O_BONUS_CARD:
        ev = (int)r->bonus_card;
        break;
    case O_BONUS_POINTS:
        iv = r->bonus_points;
        break;
    case O_MOON:
        ev = (int)r->moon;
        break;
    case O_MOON_POINTS:
        iv = r->moon_points;
        break;
    case O_MOON_KEEPS_BONUS:
        bv = r->moon_keeps_bonus;
        break;
    case O_SUN:
        bv = r->sun;
        break;
    case O_EXACT_TARGET_RESET:
        ev = (int)r->exact_target_reset;
        break;
    case O_MATCH_PAIRS:
        bv = r->match_pairs;
        break;
    case O_TARGET:
        iv = r->target;
        break;
    case O_HANDS:
        iv = r->hands;
        break;
    case O_TIE:
        ev = (int)r->tie;
        break;
    case O_PARTNERS:
        ev = (int)r->partners;
        break;
    case O_STOCK:
        ev = (int)r->stock;
        break;
    case O_COUNT:
        return -1;
    }
    if (ev >= 0)
        return snprintf(buf, len, "%s", opts[option].values[ev]);
    if (bv >= 0)
        return snprintf(buf, len, "%s", bv ? "on" : "off");
    return snprintf(buf, len, "%ld", iv);
}

bool engine_rules_differs(const struct engine_rules *r, int option)
{
    struct engine_rules base;
    preset_rules(&base, r->preset);
    base.players = r->players;
    char a[ENGINE_OPTION_TEXT_MAX], b[ENGINE_OPTION_TEXT_MAX];
    engine_rules_get(r, option, a, sizeof a);
    engine_rules_get(&base, option, b, sizeof b);
    return strcmp(a, b) != 0;
}

int engine_rules_changes(const struct engine_rules *r, char *buf, size_t len)
{
    size_t at = 0;
    bool whole = true; /* every option so far fitted */
    if (len)
        buf[0] = '\0';
    for (int o = 0; o < O_COUNT; o++) {
        if (!engine_rules_differs(r, o))
            continue;
        char v[ENGINE_OPTION_TEXT_MAX];
        engine_rules_get(r, o, v, sizeof v);
        char one[ENGINE_OPTION_TEXT_MAX + 64];
        int n = snprintf(one, sizeof one, "%s%s=%s", at ? " " : "",
                         opts[o].name, v);
        if (whole && at + (size_t)n < len)
            memcpy(buf + at, one, (size_t)n + 1);
        else
            whole = false;
        at += (size_t)n;
    }
    return (int)at;
}

/* ---- Checking and deriving ------------------------------------------- */

/* Cards each remove table takes out for 3, 5, 6 and 7 players. */
static uint64_t removed_cards(const struct engine_rules *r)
{
    const uint64_t c2 = ENGINE_BIT(ENGINE_CARD(ENGINE_CLUBS, 0));
    const uint64_t c3 = ENGINE_BIT(ENGINE_CARD(ENGINE_CLUBS, 1));
    const uint64_t d2 = ENGINE_BIT(ENGINE_CARD(ENGINE_DIAMONDS, 0));
    const uint64_t d3 = ENGINE_BIT(ENGINE_CARD(ENGINE_DIAMONDS, 1));
    const uint64_t s2 = ENGINE_BIT(ENGINE_2S);
    switch (r->players) {
    case 3:
        return r->remove_table == ENGINE_REMOVE_MODERN ? c2 : d2;
    case 5:
        switch (r->remove_table) {
        case ENGINE_REMOVE_MOMENTPOINT:
            return d2 | c2;
        case ENGINE_REMOVE_BIGD:
            return d2 | s2;
        case ENGINE_REMOVE_MODERN:
            return c2 | d2;
        }
        return 0;
    case 6:
        return r->remove_table == ENGINE_REMOVE_MODERN ? c2 | c3 | d2 | d3
                                                       : c2 | d2 | s2 | d3;
    case 7:
        return c2 | d2 | s2;
    default:
        return 0;
    }
}

static int check(struct engine_rules *r, struct engine_error *err)
{
    int n = r->players;
    const struct preset_desc *p = &presets[r->preset];
    if (n < p->min || n > p->max) {
        FAIL(err, .code = ENGINE_ERR_PRESET_PLAYERS, .option = O_PLAYERS,
             .preset = r->preset, .n1 = p->min, .n2 = p->max, .n3 = n);
        return -1;
    }
    if (r->decks == 1 && n > 7) {
        FAIL(err, .code = ENGINE_ERR_ONE_DECK_PLAYERS, .option = O_PLAYERS);
        return -1;
    }
    if (r->decks == 2 && n < 6) {
        FAIL(err, .code = ENGINE_ERR_TWO_DECKS_PLAYERS, .option = O_DECKS);
        return -1;
    }
    if ((n == 2) != (r->stock == ENGINE_STOCK_TWO_HANDED)) {
        if (n == 2)
            FAIL(err, .code = ENGINE_ERR_TWO_PLAYERS_STOCK,
                 .option = O_PLAYERS);
        else
            FAIL(err, .code = ENGINE_ERR_TWO_HANDED_PLAYERS, .option = O_STOCK);
        return -1;
    }
    if (r->decks == 2 && r->joker) {
        FAIL(err, .code = ENGINE_ERR_JOKER_TWO_DECKS, .option = O_JOKER);
        return -1;
    }
    if (r->stock != ENGINE_STOCK_OFF) {
        if (r->decks == 2) {
            FAIL(err, .code = ENGINE_ERR_STOCK_TWO_DECKS, .option = O_STOCK);
            return -1;
        }
        if (r->odd_cards != ENGINE_ODD_REMOVE) {
            FAIL(err, .code = ENGINE_ERR_STOCK_KITTY, .option = O_ODD_CARDS);
            return -1;
        }
        if (r->partners != ENGINE_PARTNERS_OFF) {
            FAIL(err, .code = ENGINE_ERR_PARTNERS_STOCK, .option = O_PARTNERS);
            return -1;
        }
    }
    if (r->odd_cards == ENGINE_ODD_WIDOW && (n < 3 || n > 6 || r->decks == 2)) {
        FAIL(err, .code = ENGINE_ERR_WIDOW_PLAYERS, .option = O_ODD_CARDS);
        return -1;
    }
    if (r->decks == 1 && r->odd_cards == ENGINE_ODD_REMOVE &&
        r->stock == ENGINE_STOCK_OFF && n == 7 &&
        r->remove_table == ENGINE_REMOVE_MODERN) {
        FAIL(err, .code = ENGINE_ERR_MODERN_SEVEN, .option = O_REMOVE_TABLE);
        return -1;
    }
    if (r->decks == 2 && r->odd_cards == ENGINE_ODD_REMOVE && 104 % n) {
        FAIL(err, .code = ENGINE_ERR_TWO_DECKS_DIVIDE, .option = O_ODD_CARDS,
             .n1 = n);
        return -1;
    }
    if (r->partners != ENGINE_PARTNERS_OFF && n != 4) {
        FAIL(err, .code = ENGINE_ERR_PARTNERS_FOUR, .option = O_PARTNERS);
        return -1;
    }
    if (r->pass_cycle_len < 1) {
        FAIL(err, .code = ENGINE_ERR_CYCLE_EMPTY, .option = O_PASS_CYCLE);
        return -1;
    }
    if (r->pass_count > 0) {
        for (int i = 0; i < r->pass_cycle_len; i++) {
            if (r->pass_cycle[i] == ENGINE_PASS_SCATTER &&
                r->pass_count % (n - 1)) {
                FAIL(err, .code = ENGINE_ERR_SCATTER_COUNT,
                     .option = O_PASS_COUNT, .n1 = n - 1, .n2 = n);
                return -1;
            }
        }
    }
    if (r->sun && r->moon == ENGINE_MOON_OFF) {
        FAIL(err, .code = ENGINE_ERR_SUN_NO_MOON, .option = O_SUN);
        return -1;
    }
    return 0;
}

static void derive(struct engine_rules *r)
{
    int n = r->players;
    uint64_t pack = ENGINE_ALL_CARDS & ~ENGINE_BIT(ENGINE_JOKER);
    if (r->joker)
        pack = (pack & ~ENGINE_BIT(ENGINE_2H)) | ENGINE_BIT(ENGINE_JOKER);
    r->removed = 0;
    if (r->odd_cards == ENGINE_ODD_WIDOW) {
        if (n <= 4)
            r->removed = ENGINE_BIT(ENGINE_2S);
    } else if (r->odd_cards == ENGINE_ODD_REMOVE && r->decks == 1 &&
               r->stock == ENGINE_STOCK_OFF) {
        r->removed = removed_cards(r);
    }
    pack &= ~r->removed;
    r->in_play = pack;
    r->deck_len = 0;
    for (int copy = 0; copy < r->decks; copy++)
        for (int c = 0; c < 64; c++)
            if (pack & ENGINE_BIT(c))
                r->deck[r->deck_len++] = (uint8_t)c;
    switch (r->stock) {
    case ENGINE_STOCK_DOMINO:
        r->hand_size = 6;
        break;
    case ENGINE_STOCK_TWO_HANDED:
        r->hand_size = 13;
        break;
    case ENGINE_STOCK_OFF:
        r->hand_size = r->deck_len / n;
        break;
    }
    if (r->odd_cards == ENGINE_ODD_WIDOW) {
        static const int widow[7] = {0, 0, 0, 3, 3, 2, 4};
        r->hand_size = (r->deck_len - widow[n]) / n;
    }
    r->rest_len = r->deck_len - r->hand_size * n;

    memset(r->points, 0, sizeof r->points);
    for (int rank = 0; rank < 13; rank++) {
        int v = 1;
        if (r->heart_points == ENGINE_HEARTS_SPOT)
            v = rank == 12 ? r->ace_spot_value : rank + 2;
        r->points[ENGINE_CARD(ENGINE_HEARTS, rank)] = (int16_t)v;
    }
    r->points[ENGINE_JOKER] = 5;
    r->points[ENGINE_QS] = (int16_t)r->qs_points;
    r->bonus = ENGINE_NO_CARD;
    if (r->bonus_card != ENGINE_BONUS_NONE) {
        r->bonus = r->bonus_card == ENGINE_BONUS_TD ? ENGINE_TD : ENGINE_JD;
        r->points[r->bonus] = (int16_t)r->bonus_points;
    }
    for (int c = 0; c < 64; c++)
        if (r->card_points_set & ENGINE_BIT(c))
            r->points[c] = r->card_points[c];
    r->penalty = 0;
    r->scoring = 0;
    for (int c = 0; c < 64; c++) {
        if (!(pack & ENGINE_BIT(c)))
            r->points[c] = 0;
        if (r->points[c] > 0)
            r->penalty |= ENGINE_BIT(c);
        if (r->points[c] != 0)
            r->scoring |= ENGINE_BIT(c);
    }
    if (r->bonus != ENGINE_NO_CARD && !(pack & ENGINE_BIT(r->bonus)))
        r->bonus = ENGINE_NO_CARD;
    /* the bonus card is never a moon card, whatever its sign */
    r->moon_cards = r->penalty;
    if (r->bonus != ENGINE_NO_CARD)
        r->moon_cards &= ~ENGINE_BIT(r->bonus);
    /* cards grouped by value: a set's points are a few popcounts */
    r->nclasses = 0;
    for (int c = 0; c < 64; c++) {
        if (!r->points[c])
            continue;
        int k = 0;
        while (k < r->nclasses && r->class_value[k] != r->points[c])
            k++;
        if (k == r->nclasses) {
            r->class_value[k] = r->points[c];
            r->class_mask[k] = 0;
            r->nclasses++;
        }
        r->class_mask[k] |= ENGINE_BIT(c);
    }
    r->breaks = ENGINE_SUIT_MASK(ENGINE_HEARTS);
    if (r->queen_breaks_hearts)
        r->breaks |= ENGINE_BIT(ENGINE_QS);

    r->special = 0;
    if (r->first_trick_points == ENGINE_FIRST_FORBIDDEN)
        r->special |= ENGINE_SPECIAL_FIRST_TRICK;
    if (r->dump_queen)
        r->special |= ENGINE_SPECIAL_DUMP_QUEEN;
    if (r->joker)
        r->special |= ENGINE_SPECIAL_JOKER;
    if (r->decks == 2)
        r->special |= ENGINE_SPECIAL_CANCEL;
    if (r->stock == ENGINE_STOCK_DOMINO)
        r->special |= ENGINE_SPECIAL_DOMINO;
    if (r->stock == ENGINE_STOCK_TWO_HANDED)
        r->special |= ENGINE_SPECIAL_TWO_HANDED;
    if (r->rest_len > 0 && r->stock == ENGINE_STOCK_OFF &&
        r->odd_cards != ENGINE_ODD_REMOVE)
        r->special |= ENGINE_SPECIAL_KITTY;
}

int engine_rules_finish(struct engine_rules *r, struct engine_error *err)
{
    struct engine_rules t;
    memcpy(&t, r, sizeof t); /* padding too: rules compare bytewise */
    if (check(&t, err))
        return -1;
    derive(&t);
    if (t.pass_count > t.hand_size) {
        FAIL(err, .code = ENGINE_ERR_PASS_OVER_HAND, .option = O_PASS_COUNT,
             .n1 = t.pass_count, .n2 = t.hand_size);
        return -1;
    }
    uint64_t named_out = t.card_points_set & ~t.in_play;
    if (named_out) {
        int c = __builtin_ctzll(named_out);
        FAIL(err, .code = ENGINE_ERR_CARD_NOT_IN_PACK, .option = O_CARD_POINTS,
             .card = c, .n1 = t.players);
        return -1;
    }
    if (t.bonus_card != ENGINE_BONUS_NONE) {
        int b = t.bonus_card == ENGINE_BONUS_TD ? ENGINE_TD : ENGINE_JD;
        if (t.card_points_set & ENGINE_BIT(b)) {
            FAIL(err, .code = ENGINE_ERR_CARD_IS_BONUS, .option = O_CARD_POINTS,
                 .card = b);
            return -1;
        }
    }
    t.finished = true;
    memcpy(r, &t, sizeof t);
    return 0;
}
