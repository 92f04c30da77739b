/*
 * Replaying records (record.h): a parsed record rebuilt through the
 * engine, so that every pass, play, discard and moon choice is checked by
 * the rules code that plays games, and the points, totals and winners are
 * recomputed and compared with the record's.
 */
#include "storage/record/record_internal.h"
#include "bot/common/err.h"
#include "bot/common/msg.h"
#include "bot/common/rule_words.h"
#include "bot/common/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const suit_names[] = {"clubs", "diamonds", "hearts",
                                         "spades"};

/* "2C 5H QS" for a message. */
static const char *card_list(const uint8_t *cards, int n, char *buf,
                             size_t size)
{
    size_t pos = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && pos + 4 < size; i++)
        pos += (size_t)snprintf(buf + pos, size - pos, "%s%s", i ? " " : "",
                                engine_card_name(cards[i]));
    if (n == 0)
        snprintf(buf, size, "nothing");
    return buf;
}

struct replay {
    const struct record *rec;
    struct engine_game g;
    const struct engine_sink *sink;
    record_step_fn step;
    void *ctx;
    char *err;
    size_t errlen;
};

/* Why the engine refused `a`, in words naming the seat and the cards. */
static void refusal_text(const struct engine_game *g,
                         const struct engine_action *a, enum engine_refusal why,
                         const struct engine_refusal_detail *d, char *buf,
                         size_t size)
{
    int s = a->seat;
    const char *card = engine_card_name(d->card);
    const char *verb = a->kind == ENGINE_ACT_DISCARD ? "discards" : "passes";
    char list[64];
    if (a->kind == ENGINE_ACT_PLAY) {
        const char *played = engine_card_name(a->cards[0]);
        const char *leads = g->trick_len == 0 ? "leads" : "plays";
        switch (why) {
        case ENGINE_REFUSE_NOT_IN_HAND:
            snprintf(buf, size, "seat %d plays %s, which it does not hold", s,
                     played);
            return;
        case ENGINE_REFUSE_BAD_CARD:
            snprintf(buf, size,
                     "seat %d plays %s, which is not in this "
                     "game's pack",
                     s, played);
            return;
        case ENGINE_REFUSE_MUST_FOLLOW:
            snprintf(
                buf, size, "seat %d plays %s but must follow %s", s, played,
                d->suit >= 0 && d->suit < 4 ? suit_names[d->suit] : "suit");
            return;
        case ENGINE_REFUSE_HEARTS_NOT_BROKEN:
            snprintf(buf, size, "seat %d leads %s but hearts are not broken", s,
                     played);
            return;
        case ENGINE_REFUSE_FIRST_TRICK_POINTS:
            snprintf(buf, size,
                     "seat %d %s %s but no points may go to the "
                     "first trick",
                     s, leads, played);
            return;
        case ENGINE_REFUSE_MUST_LEAD_CARD:
            snprintf(buf, size, "seat %d leads %s but must lead %s", s, played,
                     card);
            return;
        case ENGINE_REFUSE_MUST_DUMP_QUEEN:
            snprintf(buf, size,
                     "seat %d plays %s but must play the QS "
                     "(dump_queen)",
                     s, played);
            return;
        case ENGINE_REFUSE_MUST_LEAD_QUEEN:
            snprintf(buf, size, "seat %d leads %s but must lead the QS", s,
                     played);
            return;
        default:
            break;
        }
    } else if (a->kind == ENGINE_ACT_PASS || a->kind == ENGINE_ACT_DISCARD) {
        switch (why) {
        case ENGINE_REFUSE_PASS_COUNT:
            snprintf(buf, size, "seat %d %s %d cards (%s), not %d", s, verb,
                     a->ncards,
                     card_list(a->cards, a->ncards, list, sizeof list),
                     d->count);
            return;
        case ENGINE_REFUSE_NOT_IN_HAND:
            snprintf(buf, size, "seat %d %s %s, which it does not hold", s,
                     verb, card);
            return;
        case ENGINE_REFUSE_DUPLICATE_CARD:
            snprintf(buf, size, "seat %d %s %s twice", s, verb, card);
            return;
        case ENGINE_REFUSE_BAD_CARD:
            snprintf(buf, size,
                     "seat %d %s %s, which is not in this game's "
                     "pack",
                     s, verb, card);
            return;
        default:
            break;
        }
    } else if (a->kind == ENGINE_ACT_PASS_BLIND &&
               why == ENGINE_REFUSE_BLIND_NOT_ALLOWED) {
        snprintf(buf, size,
                 "seat %d may not pass blind (pass_blind is off, "
                 "or the pass is scatter)",
                 s);
        return;
    }
    char words[RECORD_MSG];
    snprintf(buf, size, "seat %d: %s", s,
             rule_words_refusal_text(words, sizeof words, MSG_EN, why));
}

/* Takes one action; on refusal, the error names hand and action. */
static int act(struct replay *rp, int hand, int action,
               const struct engine_action *a)
{
    if (rp->step)
        rp->step(rp->ctx, &rp->g, hand, action, a);
    struct engine_refusal_detail d;
    enum engine_refusal why = engine_act(&rp->g, a, rp->sink, &d);
    if (why == ENGINE_OK)
        return 0;
    char msg[RECORD_MSG];
    refusal_text(&rp->g, a, why, &d, msg, sizeof msg);
    err_set(rp->err, rp->errlen, "hand %d, action %d: %s", hand, action, msg);
    return -1;
}

/* Deals hand idx as recorded, after checking it is exactly the pack. */
static int replay_deal(struct replay *rp, int idx)
{
    const struct record *rec = rp->rec;
    const struct engine_rules *r = &rec->rules;
    const struct record_hand *h = &rec->hands[idx];
    int n = rec->n, hn = idx + 1;
    if (idx > 0) {
        int want = (rec->hands[0].dealer + idx) % n;
        if (h->dealer != want) {
            err_set(rp->err, rp->errlen,
                    "hand %d: dealer: seat %d, but the deal passes clockwise "
                    "from seat %d (hand 1) to seat %d",
                    hn, h->dealer, rec->hands[0].dealer, want);
            return -1;
        }
    }
    for (int s = 0; s < n; s++) {
        if (h->ndeal[s] != r->hand_size) {
            err_set(rp->err, rp->errlen,
                    "hand %d: deal: seat %d is dealt %d cards, not %d", hn, s,
                    h->ndeal[s], r->hand_size);
            return -1;
        }
    }
    if (h->nrest != r->rest_len) {
        err_set(rp->err, rp->errlen, "hand %d: rest: %d cards, not %d", hn,
                h->nrest, r->rest_len);
        return -1;
    }
    uint8_t pack[ENGINE_MAX_CARDS];
    int len = 0;
    for (int k = 0; k < n * r->hand_size; k++)
        pack[len++] = h->deal[(h->dealer + 1 + k) % n][k / n];
    for (int i = 0; i < h->nrest; i++)
        pack[len++] = h->rest[i];
    /* the counts are right, so a card too many means one is missing:
     * name both */
    int count[64] = {0};
    int extra = -1, missing = -1;
    for (int i = 0; i < len; i++) {
        int c = pack[i];
        if (extra < 0 &&
            (!(r->in_play & ENGINE_BIT(c)) || count[c] == r->decks))
            extra = c;
        count[c]++;
    }
    for (int c = 0; c < 64 && missing < 0; c++)
        if ((r->in_play & ENGINE_BIT(c)) && count[c] < r->decks)
            missing = c;
    if (extra >= 0 || missing >= 0) {
        char what[64] = "";
        if (extra >= 0 && !(r->in_play & ENGINE_BIT(extra)))
            snprintf(what, sizeof what, "%s is not in this game's pack",
                     engine_card_name(extra));
        else if (extra >= 0)
            snprintf(what, sizeof what, "%s is dealt %s",
                     engine_card_name(extra),
                     r->decks == 1 ? "twice" : "3 times");
        err_set(rp->err, rp->errlen, "hand %d: deal: %s%s%s%s", hn, what,
                extra >= 0 && missing >= 0 ? " and " : "",
                missing >= 0 ? engine_card_name(missing) : "",
                missing >= 0 ? " is missing" : "");
        return -1;
    }
    char msg[RECORD_MSG];
    struct engine_error e;
    if (engine_deal_given(&rp->g, h->dealer, pack, len, rp->sink, &e)) {
        err_set(rp->err, rp->errlen, "hand %d: deal: %s", hn,
                rule_words_error_text(msg, sizeof msg, MSG_EN, &e));
        return -1;
    }
    if (h->pass != RECORD_NONE && h->pass != rp->g.pass_dir) {
        err_set(rp->err, rp->errlen,
                "hand %d: pass: \"%s\", but the rules make it \"%s\"", hn,
                record_dir_names[h->pass],
                record_dir_names[rp->g.pass_dir % RECORD_NDIRS]);
        return -1;
    }
    return 0;
}

/*
 * The passes of hand idx, seat by seat. In the last hand a seat without
 * cards (and not blind) has not chosen yet; *stopped says the record ends
 * there. Returns the last action number used, or -1.
 */
static int replay_passes(struct replay *rp, int idx, bool last, bool *stopped)
{
    const struct record_hand *h = &rp->rec->hands[idx];
    int n = rp->rec->n, hn = idx + 1;
    *stopped = false;
    if (engine_phase(&rp->g) != ENGINE_PHASE_PASS) {
        for (int s = 0; s < n; s++) {
            if (h->npassed[s] || (h->blind >> s & 1)) {
                err_set(rp->err, rp->errlen,
                        "hand %d: passed: seat %d passes in a hand without "
                        "passing",
                        hn, s);
                return -1;
            }
        }
        return 0;
    }
    bool more = h->nplays || h->ndiscard || h->moon != RECORD_NONE ||
                h->has_points || !last;
    int waiting = -1;
    for (int s = 0; s < n; s++) {
        struct engine_action a = {.kind = ENGINE_ACT_PASS, .seat = (uint8_t)s};
        if (h->blind >> s & 1) {
            a.kind = ENGINE_ACT_PASS_BLIND;
        } else if (h->npassed[s] == 0 && !more) {
            if (waiting < 0)
                waiting = s;
            continue;
        } else {
            a.ncards = (uint8_t)h->npassed[s];
            memcpy(a.cards, h->passed[s], (size_t)h->npassed[s]);
        }
        if (act(rp, hn, s + 1, &a))
            return -1;
    }
    if (waiting >= 0) {
        *stopped = true;
        return n;
    }
    /* what a blind seat passed on is decided by the others: check it */
    for (int s = 0; s < n; s++) {
        if (!(h->blind >> s & 1))
            continue;
        uint8_t got[ENGINE_MAX_ACT_CARDS];
        int k = engine_passed_cards(&rp->g, s, got);
        if (k != h->npassed[s] || memcmp(got, h->passed[s], (size_t)k) != 0) {
            char a[64], b[64];
            err_set(rp->err, rp->errlen,
                    "hand %d, action %d: seat %d passed blind, so it passed on "
                    "%s, not %s",
                    hn, s + 1, s, card_list(got, k, a, sizeof a),
                    card_list(h->passed[s], h->npassed[s], b, sizeof b));
            return -1;
        }
    }
    return n;
}

/*
 * The plays of hand idx in order, with the kitty-exchange discard where
 * the game asks for it. *action is the last action number used, and
 * *discarded says whether the discard has been taken.
 */
static int replay_plays(struct replay *rp, int idx, int *action,
                        bool *discarded)
{
    const struct record_hand *h = &rp->rec->hands[idx];
    struct engine_game *g = &rp->g;
    int hn = idx + 1;
    int i = 0;
    for (;;) {
        enum engine_phase ph = engine_phase(g);
        if (ph == ENGINE_PHASE_DISCARD && h->ndiscard && !*discarded) {
            struct engine_action a = {.kind = ENGINE_ACT_DISCARD,
                                      .seat = (uint8_t)engine_turn(g),
                                      .ncards = (uint8_t)h->ndiscard};
            memcpy(a.cards, h->discard, (size_t)h->ndiscard);
            if (act(rp, hn, ++*action, &a))
                return -1;
            *discarded = true;
            continue;
        }
        if (i == h->nplays)
            return 0;
        if (ph == ENGINE_PHASE_DISCARD) {
            err_set(rp->err, rp->errlen,
                    "hand %d, action %d: seat %d took the kitty and must "
                    "discard %d cards, but the record plays on (discard is "
                    "missing)",
                    hn, *action + 1, engine_turn(g), engine_discard_count(g));
            return -1;
        }
        if (ph != ENGINE_PHASE_PLAY) {
            err_set(
                rp->err, rp->errlen,
                "hand %d, action %d: the hand is over, but the record plays "
                "on (%s)",
                hn, *action + 1, engine_card_name(h->plays[i]));
            return -1;
        }
        struct engine_action a = {.kind = ENGINE_ACT_PLAY,
                                  .seat = (uint8_t)engine_turn(g),
                                  .ncards = 1};
        a.cards[0] = h->plays[i++];
        if (act(rp, hn, ++*action, &a))
            return -1;
    }
}

/* After the plays: a discard the game still asks for, or one given that
 * nobody had to make. Returns 0, 1 if the record may stop here, or -1. */
static int replay_discard_owed(struct replay *rp, int idx, bool ends_here,
                               int action, bool discarded)
{
    const struct record_hand *h = &rp->rec->hands[idx];
    struct engine_game *g = &rp->g;
    int hn = idx + 1;
    if (engine_phase(g) == ENGINE_PHASE_DISCARD && !discarded) {
        if (ends_here && h->moon == RECORD_NONE)
            return 1;
        err_set(rp->err, rp->errlen,
                "hand %d, action %d: seat %d must discard %d cards, but the "
                "discard is missing",
                hn, action + 1, engine_turn(g), engine_discard_count(g));
        return -1;
    }
    if (h->ndiscard && !discarded) {
        err_set(rp->err, rp->errlen,
                "hand %d: discard: given, but nobody took a kitty to exchange",
                hn);
        return -1;
    }
    return 0;
}

/* The moon choice: taken if the shooter chooses now, refused if the record
 * gives one nobody makes. Returns 0, 1 if the record may stop here, or
 * -1; *action counts the choice. */
static int replay_moon(struct replay *rp, int idx, bool ends_here, int *action)
{
    const struct record *rec = rp->rec;
    const struct record_hand *h = &rec->hands[idx];
    struct engine_game *g = &rp->g;
    int hn = idx + 1;
    enum engine_phase ph = engine_phase(g);
    if (ph == ENGINE_PHASE_MOON) {
        if (h->moon == RECORD_NONE) {
            if (ends_here)
                return 1;
            err_set(rp->err, rp->errlen,
                    "hand %d, action %d: seat %d shot the %s and chooses, but "
                    "moon is missing",
                    hn, *action + 1, engine_turn(g),
                    g->moon_sun ? "sun" : "moon");
            return -1;
        }
        struct engine_action a = {.kind = ENGINE_ACT_MOON,
                                  .seat = (uint8_t)engine_turn(g),
                                  .moon = (uint8_t)h->moon};
        return act(rp, hn, ++*action, &a);
    }
    if (h->moon == RECORD_NONE)
        return 0;
    if (rec->rules.moon != ENGINE_MOON_CHOICE)
        err_set(rp->err, rp->errlen,
                "hand %d: moon: given, but the rules are not moon=choice", hn);
    else if (ph == ENGINE_PHASE_PLAY || ph == ENGINE_PHASE_DISCARD)
        err_set(rp->err, rp->errlen,
                "hand %d: moon: given, but the hand is not finished", hn);
    else
        err_set(rp->err, rp->errlen,
                "hand %d: moon: given, but nobody shot the moon", hn);
    return -1;
}

/* The hand is over where the record ends it, with the points it gives.
 * Returns 0, 1 if the record may stop here, or -1. */
static int replay_finished(struct replay *rp, int idx, bool last,
                           bool ends_here, int action)
{
    const struct record *rec = rp->rec;
    const struct record_hand *h = &rec->hands[idx];
    struct engine_game *g = &rp->g;
    int hn = idx + 1;
    enum engine_phase ph = engine_phase(g);
    if (ph != ENGINE_PHASE_DEAL && ph != ENGINE_PHASE_GAME_OVER) {
        if (ends_here)
            return 1;
        if (!last)
            err_set(rp->err, rp->errlen,
                    "hand %d, action %d: the hand is not finished, but the "
                    "record goes on",
                    hn, action + 1);
        else if (h->has_points)
            err_set(rp->err, rp->errlen,
                    "hand %d: points: given, but the hand is not finished", hn);
        else
            err_set(rp->err, rp->errlen,
                    "hand %d, action %d: the hand is not finished, but the "
                    "record gives the game's %s",
                    hn, action + 1, rec->has_totals ? "totals" : "winners");
        return -1;
    }
    if (!h->has_points)
        return 0;
    for (int s = 0; s < rec->n; s++) {
        if (h->points[s] != g->points[s]) {
            err_set(rp->err, rp->errlen,
                    "hand %d: points: seat %d scores %d, the record says "
                    "%d",
                    hn, s, (int)g->points[s], (int)h->points[s]);
            return -1;
        }
    }
    return 0;
}

/* Replays hand idx. Returns 0, 1 if the record stops inside it (allowed in
 * the last hand only), or -1. */
static int replay_hand(struct replay *rp, int idx, bool last)
{
    const struct record *rec = rp->rec;
    const struct record_hand *h = &rec->hands[idx];
    int hn = idx + 1;
    if (engine_phase(&rp->g) == ENGINE_PHASE_GAME_OVER) {
        err_set(rp->err, rp->errlen,
                "hand %d: the game was over after hand %d, but the record goes "
                "on",
                hn, idx);
        return -1;
    }
    if (replay_deal(rp, idx))
        return -1;
    bool stopped;
    int action = replay_passes(rp, idx, last, &stopped);
    if (action < 0)
        return -1;
    if (stopped)
        return 1;
    bool discarded = false;
    if (replay_plays(rp, idx, &action, &discarded))
        return -1;

    /* the record has no more plays: is the hand over, or may it stop? */
    bool ends_here =
        last && !h->has_points && !rec->has_totals && !rec->has_winners;
    int rc = replay_discard_owed(rp, idx, ends_here, action, discarded);
    if (rc == 0)
        rc = replay_moon(rp, idx, ends_here, &action);
    if (rc == 0)
        rc = replay_finished(rp, idx, last, ends_here, action);
    return rc;
}

/* Totals and winners, where the record gives them, against the game. */
static int replay_end(struct replay *rp)
{
    const struct record *rec = rp->rec;
    const struct engine_game *g = &rp->g;
    bool over = engine_phase(g) == ENGINE_PHASE_GAME_OVER;
    if ((rec->has_totals || rec->has_winners) && !over) {
        err_set(rp->err, rp->errlen, "%s: given, but the game is not over",
                rec->has_totals ? "totals" : "winners");
        return -1;
    }
    if (rec->has_totals) {
        for (int s = 0; s < rec->n; s++) {
            if (rec->totals[s] != g->totals[s]) {
                err_set(rp->err, rp->errlen,
                        "totals: seat %d has %d, the record says %d", s,
                        (int)g->totals[s], (int)rec->totals[s]);
                return -1;
            }
        }
    }
    if (rec->has_winners) {
        bool same = rec->nwinners == g->nwinners;
        for (int i = 0; same && i < g->nwinners; i++)
            same = rec->winners[i] == g->winners[i];
        if (!same) {
            char a[64] = "", b[64] = "";
            size_t pa = 0, pb = 0;
            for (int i = 0; i < g->nwinners; i++)
                pa += (size_t)snprintf(a + pa, sizeof a - pa, "%s%d",
                                       i ? " " : "", g->winners[i]);
            for (int i = 0; i < rec->nwinners; i++)
                pb += (size_t)snprintf(b + pb, sizeof b - pb, "%s%d",
                                       i ? " " : "", rec->winners[i]);
            err_set(rp->err, rp->errlen,
                    "winners: seats %s win, the record says %s", a, b);
            return -1;
        }
    }
    return 0;
}

int record_replay(const struct record *rec, const struct engine_sink *sink,
                  record_step_fn step, void *ctx, struct engine_game *out,
                  char *err, size_t errlen)
{
    /* the game is large (a few KiB): keep it off small stacks */
    struct replay *rp = xcalloc(1, sizeof *rp);
    rp->rec = rec;
    rp->sink = sink;
    rp->step = step;
    rp->ctx = ctx;
    rp->err = err;
    rp->errlen = errlen;
    engine_game_init(&rp->g, &rec->rules, 0,
                     rec->nhands ? rec->hands[0].dealer : 0);
    int rc = 0;
    /* replay_hand stops early (returns 1) only in the last hand */
    for (int i = 0; i < rec->nhands && rc == 0; i++)
        if (replay_hand(rp, i, i == rec->nhands - 1) < 0)
            rc = -1;
    if (rc == 0)
        rc = replay_end(rp);
    if (rc == 0 && out)
        *out = rp->g;
    free(rp);
    return rc;
}

int record_check(const char *text, size_t len, char *err, size_t errlen)
{
    struct record *rec;
    if (record_parse(text, len, &rec, err, errlen))
        return -1;
    int rc = record_replay(rec, NULL, NULL, NULL, NULL, err, errlen);
    record_free(rec);
    return rc;
}
