/*
 * Helpers for the engine's table-driven tests: rules from option text, a
 * deal written as each seat's hand, and actions that assert their outcome.
 * Every helper fails the running cmocka test on a mismatch, naming what
 * differed.
 */
#ifndef HEARTS_TEST_SCENARIO_H
#define HEARTS_TEST_SCENARIO_H

#include "engine/engine.h"

/* Rules from "[preset] key=value ..." for `players` (0: the preset's
 * default); fails the test if refused. */
void sc_rules(struct engine_rules *r, const char *text, int players);

/* Expects the text to be refused with the error `code`; returns the
 * error for checks of what it names. */
struct engine_error sc_rules_refused(const char *text, int players,
                                     enum engine_error_code code);

/* An engine error and a refusal in English words (rule_words.h), for
 * failure messages: one of four rotating static buffers. */
const char *sc_error(const struct engine_error *e);
const char *sc_refusal(enum engine_refusal why);

/* The cards of a blank-separated list ("2C QS 10h"), in order, into
 * out (at most max); returns how many. A bad card fails the test. */
int sc_card_list(const char *text, uint8_t *out, int max);

/* A set of distinct cards from "2C QS 10h" (blank separated). */
uint64_t sc_set(const char *cards);

/* The set formatted canonically, ascending ("2C 3C QS"), in a static
 * buffer (one of four rotating). */
const char *sc_fmt(uint64_t set);

/*
 * Deals a hand: hands[seat] is that seat's cards ("2C 3C ..."), or NULL to
 * fill it from the cards no one was given (ascending, a hand's worth to
 * each NULL seat in seat order); rest is the rest (kitty, widow, stock top
 * first) or NULL for whatever is left after filling. The game must be in
 * the DEAL phase.
 */
void sc_deal(struct engine_game *g, int dealer, const char *const *hands,
             const char *rest);

/* Starts a game (init) and deals it, as above. */
void sc_start(struct engine_game *g, const struct engine_rules *r, int dealer,
              const char *const *hands, const char *rest);

/* Starts a game under r (which must pass nothing) where seat 0 holds
 * every club, with `totals` (or NULL) before the hand: seat 0 wins every
 * trick, whatever is played, and the hand is played (the lowest legal
 * card each time) up to seat 0's moon choice. */
void sc_shoot_with_clubs(struct engine_game *g, const struct engine_rules *r,
                         const int32_t *totals);

/* Asserts the legal plays are exactly `cards`. */
void sc_legal(const struct engine_game *g, const char *cards);

/* Plays card (the seat whose turn it is); asserts it is taken. */
void sc_play(struct engine_game *g, const char *card);

/* Plays several cards in turn ("2C 5C 9C KC"). */
void sc_plays(struct engine_game *g, const char *cards);

/* Asserts that playing card is refused with `why`, and nothing changed. */
void sc_refuse(struct engine_game *g, const char *card,
               enum engine_refusal why);

/* Seat passes cards ("QS AH KH"); asserts it is taken. */
void sc_pass(struct engine_game *g, int seat, const char *cards);

/* Seat passes blind. */
void sc_pass_blind(struct engine_game *g, int seat);

/* Asserts that passing is refused with `why`, and nothing changed. */
void sc_pass_refused(struct engine_game *g, int seat, const char *cards,
                     enum engine_refusal why);

/* The kitty-exchange discard. */
void sc_discard(struct engine_game *g, const char *cards);

/* Answers a pending moon choice. */
void sc_moon(struct engine_game *g, int mode);

/* Asserts the points of the last scored hand, seat by seat (n values). */
void sc_points(const struct engine_game *g, const int *points);

/* Asserts the totals, seat by seat. */
void sc_totals(const struct engine_game *g, const int *totals);

/* Plays the rest of the hand with the lowest legal card each turn (and
 * the lowest cards for any pass or discard). */
void sc_play_out(struct engine_game *g);

/* A sink that records events, for asserting on them (one sink at a time:
 * the returned pointer is reused by the next call). */
struct sc_events {
    int n;
    struct engine_event ev[1024];
};
const struct engine_sink *sc_sink(struct sc_events *e);
/* How many events of a kind were recorded. */
int sc_count(const struct sc_events *e, enum engine_event_kind kind);

/* The nth (from 0) recorded event of a kind, or NULL. */
const struct engine_event *sc_find(const struct sc_events *e,
                                   enum engine_event_kind kind, int nth);

/* A multiset from "2C 2C QS" (a card named twice is held twice). */
struct engine_cards sc_multi(const char *cards);

/* Asserts a seat's hand is exactly `cards` (a multiset as sc_multi). */
void sc_hand(const struct engine_game *g, int seat, const char *cards);

/* Asserts the cards a seat has taken are exactly `cards` (as sc_multi). */
void sc_taken(const struct engine_game *g, int seat, const char *cards);

/* Plays several cards in turn, events to `sink`. */
void sc_plays_to(struct engine_game *g, const char *cards,
                 const struct engine_sink *sink);

/* Asserts that the action is refused with `why` and that nothing changed;
 * returns the refusal's detail. */
struct engine_refusal_detail sc_act_refused(struct engine_game *g,
                                            const struct engine_action *a,
                                            enum engine_refusal why);

/* As sc_refuse, returning the refusal's detail. */
struct engine_refusal_detail sc_refuse_detail(struct engine_game *g,
                                              const char *card,
                                              enum engine_refusal why);

#endif
