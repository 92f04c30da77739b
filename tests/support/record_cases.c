/*
 * Records for the tests of storage/record/: whole games made into records,
 * one field of a record changed, and assertions that a line is refused
 * (with a message containing a needle) or accepted. Every helper fails the
 * running cmocka test on a mismatch.
 */
#include "tests/support/record_cases.h"
#include "tests/support/scenario.h"

#include <json-c/json.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

const char *const rc_names[ENGINE_MAX_PLAYERS] = {
    "ann", "bob", "cy", "dee", "eve", "fay", "gus", "hal", "ivy", "jo"};

/* ---- Making records --------------------------------------------------- */

/* Plays a whole game choosing the lowest legal cards (and the lowest cards
 * to pass and discard, blind when allowed if `blind`), and returns its
 * record, parsed. */
struct record *rc_game_record(const char *text, int players, bool blind,
                              uint64_t seed)
{
    struct engine_rules r;
    sc_rules(&r, text, players);
    struct record_writer *w = record_writer_new(&r, rc_names, r.players);
    const struct engine_sink *sink = record_writer_sink(w);
    struct engine_game g;
    engine_game_init(&g, &r, seed, 0);
    for (long i = 0; engine_phase(&g) != ENGINE_PHASE_GAME_OVER; i++) {
        assert_true(i < 1000000);
        if (engine_phase(&g) == ENGINE_PHASE_DEAL) {
            assert_int_equal(engine_deal(&g, sink), 0);
            continue;
        }
        struct engine_action a = {.kind = ENGINE_ACT_PLAY};
        if (engine_phase(&g) == ENGINE_PHASE_PASS) {
            int s = 0;
            while (!engine_may_act(&g, s))
                s++;
            bool blind_ok;
            a.seat = (uint8_t)s;
            a.ncards = (uint8_t)engine_pass_count(&g, s, &blind_ok);
            /* odd seats pass blind: chains of both kinds */
            if (blind && blind_ok && s % 2) {
                a.kind = ENGINE_ACT_PASS_BLIND;
            } else {
                a.kind = ENGINE_ACT_PASS;
                uint64_t h = engine_hand(&g, s).one;
                for (int i2 = 0; i2 < a.ncards; i2++, h &= h - 1)
                    a.cards[i2] = (uint8_t)rc_lowest(h);
            }
        } else if (engine_phase(&g) == ENGINE_PHASE_DISCARD) {
            a.kind = ENGINE_ACT_DISCARD;
            a.seat = (uint8_t)engine_turn(&g);
            a.ncards = (uint8_t)engine_discard_count(&g);
            uint64_t h = engine_hand(&g, a.seat).one;
            for (int i2 = 0; i2 < a.ncards; i2++, h &= h - 1)
                a.cards[i2] = (uint8_t)rc_lowest(h);
        } else if (engine_phase(&g) == ENGINE_PHASE_MOON) {
            a.kind = ENGINE_ACT_MOON;
            a.seat = (uint8_t)engine_turn(&g);
            a.moon = ENGINE_MOON_SUBTRACT;
        } else {
            a.seat = (uint8_t)engine_turn(&g);
            a.cards[0] = (uint8_t)rc_lowest(engine_legal_plays(&g));
        }
        assert_int_equal(engine_act(&g, &a, sink, NULL), ENGINE_OK);
    }
    char *json = record_writer_json(w);
    struct record *rec = NULL;
    char err[256];
    if (record_parse(json, strlen(json), &rec, err, sizeof err))
        fail_msg("%s", err);
    free(json);
    record_writer_free(w);
    return rec;
}

struct record *rc_standard_record(void)
{
    return rc_game_record("standard", 4, false, 42);
}

/* Asserts the line is refused with a message containing needle. */
void rc_refused_line(const char *line, size_t len, const char *needle)
{
    char err[512] = "";
    if (record_check(line, len, err, sizeof err) == 0)
        fail_msg("accepted, expected '%s': %.300s", needle, line);
    if (!strstr(err, needle))
        fail_msg("message '%s' lacks '%s'", err, needle);
}

void rc_refused(const struct record *rec, const char *needle)
{
    char *json = record_to_json(rec);
    rc_refused_line(json, strlen(json), needle);
    free(json);
}

void rc_accepted_line(const char *line)
{
    char err[512] = "";
    if (record_check(line, strlen(line), err, sizeof err))
        fail_msg("refused: %s\n%.300s", err, line);
}

/* The record's JSON with one field set to the raw JSON text `value` (which
 * may be anything, even invalid), or removed if value is NULL. `hand` >= 0
 * picks a field of that hand, else of the record. */
char *rc_with_field(const struct record *rec, int hand, const char *key,
                    const char *value)
{
    static const char mark[] = "\"@@value@@\"";
    char *json = record_to_json(rec);
    struct json_object *root = json_tokener_parse(json);
    free(json);
    assert_non_null(root);
    struct json_object *obj = root;
    if (hand >= 0) {
        struct json_object *hands;
        assert_true(json_object_object_get_ex(root, "hands", &hands));
        obj = json_object_array_get_idx(hands, (size_t)hand);
    }
    if (value)
        json_object_object_add(obj, key, json_object_new_string("@@value@@"));
    else
        json_object_object_del(obj, key);
    const char *text = json_object_to_json_string_ext(
        root, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
    const char *at = strstr(text, mark);
    size_t vlen = value ? strlen(value) : 0;
    char *out = malloc(strlen(text) + vlen + 1);
    assert_non_null(out);
    if (at) {
        size_t head = (size_t)(at - text);
        memcpy(out, text, head);
        memcpy(out + head, value, vlen);
        strcpy(out + head + vlen, at + sizeof mark - 1);
    } else {
        strcpy(out, text);
    }
    json_object_put(root);
    return out;
}

void rc_refused_field(const struct record *rec, int hand, const char *key,
                      const char *value, const char *needle)
{
    char *json = rc_with_field(rec, hand, key, value);
    rc_refused_line(json, strlen(json), needle);
    free(json);
}

/* A hand of Party with moon=choice: seat 0 holds every heart and leads
 * each one, shoots, and subtracts (from the lowest cards). */
struct record *rc_moon_record(void)
{
    struct engine_rules r;
    sc_rules(&r, "party moon=choice pass_count=0", 4);
    struct record_writer *w = record_writer_new(&r, rc_names, 4);
    struct engine_game g;
    engine_game_init(&g, &r, 1, 3);
    uint8_t pack[52];
    int k = 0;
    for (int rank = 0; rank < 13; rank++)
        for (int suit = 0; suit < 4; suit++) /* seat 0 is dealt first */
            pack[k++] = (uint8_t)ENGINE_CARD((ENGINE_HEARTS + suit) % 4, rank);
    assert_int_equal(
        engine_deal_given(&g, 3, pack, 52, record_writer_sink(w), NULL), 0);
    while (engine_phase(&g) == ENGINE_PHASE_PLAY)
        assert_int_equal(engine_play(&g, rc_lowest(engine_legal_plays(&g)),
                                     record_writer_sink(w), NULL),
                         ENGINE_OK);
    assert_int_equal(engine_phase(&g), ENGINE_PHASE_MOON);
    struct engine_action a = {.kind = ENGINE_ACT_MOON,
                              .moon = ENGINE_MOON_SUBTRACT};
    assert_int_equal(engine_act(&g, &a, record_writer_sink(w), NULL),
                     ENGINE_OK);
    char *json = record_writer_json(w);
    struct record *rec;
    char err[256];
    assert_int_equal(record_parse(json, strlen(json), &rec, err, sizeof err),
                     0);
    free(json);
    record_writer_free(w);
    return rec;
}
