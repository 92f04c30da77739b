/*
 * Deals of the cards a seat cannot see, consistent with everything its view
 * knows: each other seat gets exactly as many cards as it holds, never a
 * card of a suit it has shown void in (except in the two-handed stock game,
 * where a draw may refill a void), the cards this seat passed go to where
 * they went unless played since, and the unseen rest (an unseen kitty,
 * widow, stock, or another seat's kitty-exchange discard) gets the others.
 *
 * No rejection loop: the cards are dealt one at a time, the suits with the
 * fewest places first, each to a place chosen with probability by its room
 * among the places that keep the remaining deal possible (Hall's condition
 * over the four suits, checked in constant time), so a sample always
 * completes in at most (cards x places) steps. If the view's knowledge is
 * contradictory (it should never be), the void constraints are dropped and
 * `relaxed` is set.
 *
 * Likely holdings: a seat that overtook a trick already holding points
 * while following suit probably had no card of that suit under the card it
 * beat (a ducking player would have played it): those cards go to it less
 * readily, never forbidden (it may have had reasons).
 */
#ifndef HEARTS_AI_SAMPLE_H
#define HEARTS_AI_SAMPLE_H

#include "engine/engine.h"

#define AI_SLOTS (ENGINE_MAX_PLAYERS + 1)
#define AI_UNLIKELY 4

/* A count per set of suits (see ai_sample.c). */
typedef int8_t ai_sets __attribute__((vector_size(16)));

struct ai_sampler {
    const struct engine_view *v;
    int nslots;
    int8_t slot_seat[AI_SLOTS]; /* a seat, or -1 for the hidden rest */
    int cap[AI_SLOTS];          /* cards each place takes */
    uint8_t allow[AI_SLOTS];    /* suits each place may take */
    int nforced;
    uint8_t forced_card[ENGINE_MAX_CARDS];
    uint8_t forced_slot[ENGINE_MAX_CARDS];
    /* the other unseen cards by suit, suits in dealing order */
    uint8_t suit_order[4];
    int nsuit[4];
    uint8_t suit_cards[4][ENGINE_MAX_CARDS];
    struct engine_cards unseen; /* every unseen card */
    /* cards each seat probably lacks (see ai_sample.c), dealt to it
     * AI_UNLIKELY times less readily */
    uint64_t unlikely[ENGINE_MAX_PLAYERS];
    bool relaxed;
    /* Worked out once for ai_sample: the cards each place probably lacks
     * (its seat's, none for the hidden rest), the cards any place
     * probably lacks, the places that take each suit, and whether any
     * place refuses a suit (else every deal with room is possible). */
    uint64_t slot_unlikely[AI_SLOTS];
    uint64_t any_unlikely;
    unsigned takes[4];
    bool check;
    /* whether a suit's cards are shuffled before they are dealt: only
     * where their order can change the deal's odds (see ai_sample) */
    bool order_counts[4];
    /* no place refuses a suit and no card is weighed less: every deal
     * with the places' room is as likely, dealt from the `nall` cards of
     * `all` (the suits' cards in a row) by a partial shuffle */
    bool plain;
    int nall;
    uint8_t all[ENGINE_MAX_CARDS];
    ai_sets slot_sets[AI_SLOTS]; /* 1 in the lanes of the sets it takes */
};

struct ai_deal {
    struct engine_cards hand[ENGINE_MAX_PLAYERS]; /* the other seats' */
    uint8_t hidden[ENGINE_MAX_CARDS];             /* the unseen rest */
    int nhidden;
};

/*
 * The moon: the seats of the side (a seat, or a team that scores as one)
 * that has taken every moon card taken so far, and at least AI_MOON_ALERT
 * of them, from the cards each seat has taken; 0 if none, or if the rules
 * have no moon. Such a side may be shooting: the searching levels' playouts
 * play it out (ai_search.c) and the samples give it high cards.
 */
#define AI_MOON_ALERT 3
unsigned ai_moon_side(const struct engine_rules *r, int n,
                      const struct engine_cards *taken);

/* ai_moon_side kept up trick by trick: the moon cards taken so far, by
 * whom (a unit: a seat, or a team that scores as one; -1: nobody yet, -2:
 * more than one) and how many. */
struct ai_moon_tally {
    int unit;
    int got;
};

/* Counts moon cards among `cards`, taken by seat. */
static inline void ai_moon_take(const struct engine_rules *r,
                                struct ai_moon_tally *t, int seat,
                                uint64_t cards)
{
    uint64_t m = cards & r->moon_cards;
    if (!m || t->unit == -2)
        return;
    int u = r->partners == ENGINE_PARTNERS_TEAM ? seat % 2 : seat;
    if (t->unit >= 0 && t->unit != u) {
        t->unit = -2;
        return;
    }
    t->unit = u;
    t->got += __builtin_popcountll(m);
}

/* The tally of the cards each of n seats has taken. */
void ai_moon_tally(const struct engine_rules *r, int n,
                   const struct engine_cards *taken, struct ai_moon_tally *t);

/* The side of a tally, as ai_moon_side. */
static inline unsigned ai_moon_tally_side(const struct engine_rules *r, int n,
                                          const struct ai_moon_tally *t)
{
    if (r->moon == ENGINE_MOON_OFF || t->unit < 0 || t->got < AI_MOON_ALERT)
        return 0;
    if (r->partners != ENGINE_PARTNERS_TEAM)
        return 1u << t->unit;
    unsigned m = 0;
    for (int s = t->unit; s < n; s += 2)
        m |= 1u << s;
    return m;
}

/* Works out what the view's seat cannot see and the constraints on it.
 * Returns 0, or -1 if the unseen cards do not add up to the cards the
 * other seats and the rest hold (a bug in the view). */
int ai_sampler_init(struct ai_sampler *s, const struct engine_view *v);

/* The same, with moon false: no inference of a side that may shoot (the
 * searching levels' AI_MOON_BLIND variant, as they were before it). */
int ai_sampler_init_moon(struct ai_sampler *s, const struct engine_view *v,
                         bool moon);

/* One deal of the unseen cards. */
void ai_sample(const struct ai_sampler *s, struct engine_prng *rng,
               struct ai_deal *d);

/* One deal as a game to play on from the view's position. */
void ai_sample_world(const struct ai_sampler *s, struct engine_prng *rng,
                     struct engine_game *out);

#endif
