/*
 * Records for the tests of storage/record/ (record_cases.c): a game played
 * to its end with the lowest cards and made into a record, the record's
 * JSON with one field changed, and assertions that a line is refused or
 * accepted by record_check. Every helper fails the running cmocka test on
 * a mismatch.
 */
#ifndef HEARTS_TEST_RECORD_CASES_H
#define HEARTS_TEST_RECORD_CASES_H

#include "storage/record/record.h"

/* Ten players' names, "ann" to "jo". */
extern const char *const rc_names[ENGINE_MAX_PLAYERS];

/* The lowest card of a non-empty set. */
static inline int rc_lowest(uint64_t set)
{
    return __builtin_ctzll(set);
}

/* Plays a whole game under `text` choosing the lowest legal cards (and
 * the lowest cards to pass and discard, odd seats blind when allowed if
 * `blind`), and returns its record, parsed (free it with record_free). */
struct record *rc_game_record(const char *text, int players, bool blind,
                              uint64_t seed);

/* rc_game_record of a standard game of four, seed 42. */
struct record *rc_standard_record(void);

/* One hand of Party with moon=choice in which seat 0 shoots and
 * subtracts: 52 plays and the moon choice, no passes. */
struct record *rc_moon_record(void);

/* Asserts record_check refuses the line with a message containing
 * needle. */
void rc_refused_line(const char *line, size_t len, const char *needle);

/* rc_refused_line of the record's JSON. */
void rc_refused(const struct record *rec, const char *needle);

/* Asserts record_check accepts the line. */
void rc_accepted_line(const char *line);

/* The record's JSON with one field set to the raw JSON text `value` (which
 * may be anything, even invalid), or removed if value is NULL. `hand` >= 0
 * picks a field of that hand, else of the record. The caller frees it. */
char *rc_with_field(const struct record *rec, int hand, const char *key,
                    const char *value);

/* rc_refused_line of rc_with_field's line. */
void rc_refused_field(const struct record *rec, int hand, const char *key,
                      const char *value, const char *needle);

#endif
