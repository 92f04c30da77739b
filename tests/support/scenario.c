/*
 * The scenario helpers of scenario.h: each turns a line of a test table
 * into engine calls and fails the test, naming the difference, when the
 * engine disagrees.
 */
#include "tests/support/scenario.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "bot/common/msg.h"
#include "bot/common/rule_words.h"

static char *next_buffer(void)
{
    static char bufs[4][RULE_WORDS_SIZE];
    static int next;
    next = (next + 1) % 4;
    return bufs[next];
}

const char *sc_error(const struct engine_error *e)
{
    return rule_words_error_text(next_buffer(), RULE_WORDS_SIZE, MSG_EN, e);
}

const char *sc_refusal(enum engine_refusal why)
{
    return rule_words_refusal_text(next_buffer(), RULE_WORDS_SIZE, MSG_EN, why);
}

void sc_rules(struct engine_rules *r, const char *text, int players)
{
    struct engine_error e;
    if (engine_rules_parse(r, text, players, &e))
        fail_msg("rules '%s' for %d refused: %s", text, players, sc_error(&e));
}

struct engine_error sc_rules_refused(const char *text, int players,
                                     enum engine_error_code code)
{
    struct engine_error e = {0};
    struct engine_rules r;
    if (!engine_rules_parse(&r, text, players, &e))
        fail_msg("rules '%s' for %d accepted", text, players);
    if (e.code != code)
        fail_msg("rules '%s': error %d (%s), not %d", text, (int)e.code,
                 sc_error(&e), (int)code);
    return e;
}

/* Calls fn for each blank-separated card of text. */
static int each_card(const char *text, int *cards, int max)
{
    int n = 0;
    const char *p = text;
    while (*p) {
        while (*p == ' ')
            p++;
        if (!*p)
            break;
        const char *e = p;
        while (*e && *e != ' ')
            e++;
        int c;
        if (engine_card_parse(p, (size_t)(e - p), &c))
            fail_msg("test bug: '%.*s' is no card", (int)(e - p), p);
        if (n == max)
            fail_msg("test bug: too many cards in '%s'", text);
        cards[n++] = c;
        p = e;
    }
    return n;
}

int sc_card_list(const char *text, uint8_t *out, int max)
{
    int cards[ENGINE_MAX_CARDS];
    int n =
        each_card(text, cards, max < ENGINE_MAX_CARDS ? max : ENGINE_MAX_CARDS);
    for (int i = 0; i < n; i++)
        out[i] = (uint8_t)cards[i];
    return n;
}

uint64_t sc_set(const char *text)
{
    int cards[ENGINE_MAX_CARDS];
    int n = each_card(text, cards, ENGINE_MAX_CARDS);
    uint64_t m = 0;
    for (int i = 0; i < n; i++)
        m |= ENGINE_BIT(cards[i]);
    return m;
}

const char *sc_fmt(uint64_t set)
{
    static char bufs[4][200];
    static int next;
    char *b = bufs[next++ & 3];
    size_t pos = 0;
    b[0] = '\0';
    for (int c = 0; c < 64; c++)
        if (set & ENGINE_BIT(c))
            pos += (size_t)snprintf(b + pos, sizeof bufs[0] - pos, "%s%s",
                                    pos ? " " : "", engine_card_name(c));
    return b;
}

void sc_deal(struct engine_game *g, int dealer, const char *const *hands,
             const char *rest)
{
    const struct engine_rules *r = g->rules;
    int n = r->players, hs = r->hand_size;
    int seat_cards[ENGINE_MAX_PLAYERS][ENGINE_MAX_CARDS];
    int count[64] = {0};
    bool given[ENGINE_MAX_PLAYERS] = {false};
    for (int s = 0; s < n; s++) {
        if (!hands || !hands[s])
            continue;
        given[s] = true;
        int k = each_card(hands[s], seat_cards[s], ENGINE_MAX_CARDS);
        if (k != hs)
            fail_msg("test bug: seat %d given %d cards, hands hold %d", s, k,
                     hs);
        for (int i = 0; i < k; i++)
            count[seat_cards[s][i]]++;
    }
    int rest_cards[ENGINE_MAX_CARDS];
    int nrest = 0;
    if (rest) {
        nrest = each_card(rest, rest_cards, ENGINE_MAX_CARDS);
        for (int i = 0; i < nrest; i++)
            count[rest_cards[i]]++;
    }
    /* the cards nobody was given, ascending */
    int free_cards[ENGINE_MAX_CARDS];
    int nfree = 0;
    for (int c = 0; c < 64; c++) {
        if (!(r->in_play & ENGINE_BIT(c)))
            continue;
        if (count[c] > r->decks)
            fail_msg("test bug: %s given %d times", engine_card_name(c),
                     count[c]);
        for (int k = count[c]; k < r->decks; k++)
            free_cards[nfree++] = c;
    }
    int pos = 0;
    for (int s = 0; s < n; s++) {
        if (given[s])
            continue;
        if (nfree - pos < hs)
            fail_msg("test bug: not enough cards left to fill seat %d", s);
        for (int i = 0; i < hs; i++)
            seat_cards[s][i] = free_cards[pos++];
    }
    if (!rest) {
        while (pos < nfree)
            rest_cards[nrest++] = free_cards[pos++];
    } else if (pos != nfree) {
        fail_msg("test bug: %d cards given to nobody", nfree - pos);
    }
    uint8_t order[ENGINE_MAX_CARDS];
    int len = 0;
    for (int i = 0; i < hs; i++)
        for (int j = 0; j < n; j++)
            order[len++] = (uint8_t)seat_cards[(dealer + 1 + j) % n][i];
    for (int i = 0; i < nrest; i++)
        order[len++] = (uint8_t)rest_cards[i];
    struct engine_error e;
    if (engine_deal_given(g, dealer, order, len, NULL, &e))
        fail_msg("deal refused: %s", sc_error(&e));
}

void sc_start(struct engine_game *g, const struct engine_rules *r, int dealer,
              const char *const *hands, const char *rest)
{
    engine_game_init(g, r, 1, dealer);
    sc_deal(g, dealer, hands, rest);
}

void sc_shoot_with_clubs(struct engine_game *g, const struct engine_rules *r,
                         const int32_t *totals)
{
    const char *hands[4] = {"2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC", NULL,
                            NULL, NULL};
    sc_start(g, r, 3, hands, NULL);
    if (totals)
        memcpy(g->totals, totals, sizeof g->totals[0] * 4);
    sc_play_out(g);
    if (engine_phase(g) != ENGINE_PHASE_MOON)
        fail_msg("shoot_with_clubs: no moon choice");
}

void sc_legal(const struct engine_game *g, const char *cards)
{
    uint64_t want = sc_set(cards);
    uint64_t got = engine_legal_plays(g);
    if (want != got)
        fail_msg("seat %d legal: want [%s] got [%s]", engine_turn(g),
                 sc_fmt(want), sc_fmt(got));
}

static int one_card(const char *text)
{
    int c;
    if (engine_card_parse(text, strlen(text), &c))
        fail_msg("test bug: '%s' is no card", text);
    return c;
}

void sc_play(struct engine_game *g, const char *card)
{
    int c = one_card(card);
    int seat = engine_turn(g);
    enum engine_refusal why = engine_play(g, c, NULL, NULL);
    if (why)
        fail_msg("seat %d playing %s refused: %s", seat, card, sc_refusal(why));
}

void sc_plays(struct engine_game *g, const char *cards)
{
    int list[ENGINE_MAX_CARDS];
    int n = each_card(cards, list, ENGINE_MAX_CARDS);
    for (int i = 0; i < n; i++)
        sc_play(g, engine_card_name(list[i]));
}

void sc_refuse(struct engine_game *g, const char *card, enum engine_refusal why)
{
    struct engine_game before = *g;
    int c = one_card(card);
    enum engine_refusal got = engine_play(g, c, NULL, NULL);
    if (got != why)
        fail_msg("playing %s: want '%s' got '%s'", card, sc_refusal(why),
                 sc_refusal(got));
    if (memcmp(&before, g, sizeof before))
        fail_msg("refused play of %s changed the game", card);
}

static void fill_action(struct engine_action *a, const char *cards)
{
    int list[ENGINE_MAX_CARDS];
    int n = each_card(cards, list, ENGINE_MAX_ACT_CARDS);
    a->ncards = (uint8_t)n;
    for (int i = 0; i < n; i++)
        a->cards[i] = (uint8_t)list[i];
}

void sc_pass(struct engine_game *g, int seat, const char *cards)
{
    struct engine_action a = {.kind = ENGINE_ACT_PASS, .seat = (uint8_t)seat};
    fill_action(&a, cards);
    enum engine_refusal why = engine_act(g, &a, NULL, NULL);
    if (why)
        fail_msg("seat %d passing %s refused: %s", seat, cards,
                 sc_refusal(why));
}

void sc_pass_blind(struct engine_game *g, int seat)
{
    struct engine_action a = {.kind = ENGINE_ACT_PASS_BLIND,
                              .seat = (uint8_t)seat};
    enum engine_refusal why = engine_act(g, &a, NULL, NULL);
    if (why)
        fail_msg("seat %d passing blind refused: %s", seat, sc_refusal(why));
}

void sc_pass_refused(struct engine_game *g, int seat, const char *cards,
                     enum engine_refusal why)
{
    struct engine_game before = *g;
    struct engine_action a = {.kind = ENGINE_ACT_PASS, .seat = (uint8_t)seat};
    fill_action(&a, cards);
    enum engine_refusal got = engine_act(g, &a, NULL, NULL);
    if (got != why)
        fail_msg("seat %d passing %s: want '%s' got '%s'", seat, cards,
                 sc_refusal(why), sc_refusal(got));
    if (memcmp(&before, g, sizeof before))
        fail_msg("refused pass changed the game");
}

void sc_discard(struct engine_game *g, const char *cards)
{
    struct engine_action a = {.kind = ENGINE_ACT_DISCARD,
                              .seat = (uint8_t)engine_turn(g)};
    fill_action(&a, cards);
    enum engine_refusal why = engine_act(g, &a, NULL, NULL);
    if (why)
        fail_msg("discarding %s refused: %s", cards, sc_refusal(why));
}

void sc_moon(struct engine_game *g, int mode)
{
    struct engine_action a = {.kind = ENGINE_ACT_MOON,
                              .seat = (uint8_t)engine_turn(g),
                              .moon = (uint8_t)mode};
    enum engine_refusal why = engine_act(g, &a, NULL, NULL);
    if (why)
        fail_msg("moon choice refused: %s", sc_refusal(why));
}

static void compare(const char *what, const int32_t *got, const int *want,
                    int n)
{
    for (int s = 0; s < n; s++) {
        if (got[s] != want[s]) {
            char a[200], b[200];
            size_t pa = 0, pb = 0;
            for (int i = 0; i < n; i++) {
                pa += (size_t)snprintf(a + pa, sizeof a - pa, " %d", want[i]);
                pb +=
                    (size_t)snprintf(b + pb, sizeof b - pb, " %d", (int)got[i]);
            }
            fail_msg("%s: want%s got%s", what, a, b);
        }
    }
}

void sc_points(const struct engine_game *g, const int *points)
{
    compare("hand points", g->points, points, g->n);
}

void sc_totals(const struct engine_game *g, const int *totals)
{
    compare("totals", g->totals, totals, g->n);
}

/* The lowest `k` cards of a multiset, as an action's list. */
static void lowest(struct engine_cards h, int k, struct engine_action *a)
{
    a->ncards = (uint8_t)k;
    for (int i = 0; i < k; i++) {
        uint64_t m = h.one;
        int c = __builtin_ctzll(m);
        a->cards[i] = (uint8_t)c;
        if (h.two & ENGINE_BIT(c))
            h.two &= ~ENGINE_BIT(c);
        else
            h.one &= ~ENGINE_BIT(c);
    }
}

void sc_play_out(struct engine_game *g)
{
    for (int guard = 0; guard < 1000; guard++) {
        switch (engine_phase(g)) {
        case ENGINE_PHASE_PASS:
            for (int s = 0; s < g->n; s++) {
                if (!engine_may_act(g, s))
                    continue;
                struct engine_action a = {.kind = ENGINE_ACT_PASS,
                                          .seat = (uint8_t)s};
                lowest(g->hand[s], engine_pass_count(g, s, NULL), &a);
                if (engine_act(g, &a, NULL, NULL))
                    fail_msg("play_out: pass refused");
            }
            break;
        case ENGINE_PHASE_PLAY: {
            uint64_t l = engine_legal_plays(g);
            if (engine_play(g, __builtin_ctzll(l), NULL, NULL))
                fail_msg("play_out: play refused");
            break;
        }
        case ENGINE_PHASE_DISCARD: {
            struct engine_action a = {.kind = ENGINE_ACT_DISCARD,
                                      .seat = (uint8_t)engine_turn(g)};
            lowest(g->hand[engine_turn(g)], engine_discard_count(g), &a);
            if (engine_act(g, &a, NULL, NULL))
                fail_msg("play_out: discard refused");
            break;
        }
        default:
            return;
        }
    }
    fail_msg("play_out: the hand did not end");
}

static void record_event(void *ctx, const struct engine_game *g,
                         const struct engine_event *ev)
{
    (void)g;
    struct sc_events *e = ctx;
    if (e->n < (int)(sizeof e->ev / sizeof e->ev[0]))
        e->ev[e->n++] = *ev;
}

const struct engine_sink *sc_sink(struct sc_events *e)
{
    static struct engine_sink sink;
    e->n = 0;
    sink.emit = record_event;
    sink.ctx = e;
    return &sink;
}

int sc_count(const struct sc_events *e, enum engine_event_kind kind)
{
    int k = 0;
    for (int i = 0; i < e->n; i++)
        k += e->ev[i].kind == kind;
    return k;
}

const struct engine_event *sc_find(const struct sc_events *e,
                                   enum engine_event_kind kind, int nth)
{
    for (int i = 0; i < e->n; i++)
        if (e->ev[i].kind == kind && nth-- == 0)
            return &e->ev[i];
    return NULL;
}

struct engine_cards sc_multi(const char *text)
{
    int cards[ENGINE_MAX_CARDS];
    int n = each_card(text, cards, ENGINE_MAX_CARDS);
    struct engine_cards m = {0, 0};
    for (int i = 0; i < n; i++) {
        uint64_t b = ENGINE_BIT(cards[i]);
        if (m.two & b)
            fail_msg("test bug: %s three times in '%s'",
                     engine_card_name(cards[i]), text);
        m.two |= m.one & b;
        m.one |= b;
    }
    return m;
}

static void same_cards(const char *what, int seat, struct engine_cards got,
                       const char *cards)
{
    struct engine_cards want = sc_multi(cards);
    if (want.one != got.one || want.two != got.two)
        fail_msg("seat %d %s: want [%s | twice %s] got [%s | twice %s]", seat,
                 what, sc_fmt(want.one), sc_fmt(want.two), sc_fmt(got.one),
                 sc_fmt(got.two));
}

void sc_hand(const struct engine_game *g, int seat, const char *cards)
{
    same_cards("hand", seat, engine_hand(g, seat), cards);
}

void sc_taken(const struct engine_game *g, int seat, const char *cards)
{
    same_cards("taken", seat, g->taken[seat], cards);
}

void sc_plays_to(struct engine_game *g, const char *cards,
                 const struct engine_sink *sink)
{
    int list[ENGINE_MAX_CARDS];
    int n = each_card(cards, list, ENGINE_MAX_CARDS);
    for (int i = 0; i < n; i++) {
        int seat = engine_turn(g);
        enum engine_refusal why = engine_play(g, list[i], sink, NULL);
        if (why)
            fail_msg("seat %d playing %s refused: %s", seat,
                     engine_card_name(list[i]), sc_refusal(why));
    }
}

struct engine_refusal_detail sc_act_refused(struct engine_game *g,
                                            const struct engine_action *a,
                                            enum engine_refusal why)
{
    struct engine_game before = *g;
    struct engine_refusal_detail d;
    enum engine_refusal got = engine_act(g, a, NULL, &d);
    if (got != why)
        fail_msg("action %d by seat %d: want '%s' got '%s'", a->kind, a->seat,
                 sc_refusal(why), sc_refusal(got));
    if (memcmp(&before, g, sizeof before))
        fail_msg("refused action %d changed the game", a->kind);
    return d;
}

struct engine_refusal_detail sc_refuse_detail(struct engine_game *g,
                                              const char *card,
                                              enum engine_refusal why)
{
    struct engine_action a = {.kind = ENGINE_ACT_PLAY,
                              .seat = (uint8_t)engine_turn(g),
                              .ncards = 1,
                              .cards = {(uint8_t)one_card(card)}};
    return sc_act_refused(g, &a, why);
}
