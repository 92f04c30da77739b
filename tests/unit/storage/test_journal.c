/*
 * Tests of journal lines (storage/journal.c): every kind written and read
 * back, the game part turned into a record that replays, and hostile
 * lines refused with a reason.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "storage/journal.h"

static struct journal_line line;

/* Parses text (a line with its '\n') into `line`; 0 or -1. */
static int parse(const char *text, char *err, size_t errlen)
{
    size_t len = strlen(text);
    if (len && text[len - 1] == '\n')
        len--;
    memset(&line, 0, sizeof line);
    return journal_parse(text, len, &line, err, errlen);
}

static void test_header_and_seats_round_trip(void **state)
{
    (void)state;
    char err[200];
    char *h = journal_header("0123456789abcdef", "net \"x\"", "#h\\ö",
                             "standard target=50", 1700000000, 0, false);
    assert_non_null(strchr(h, '\n'));
    assert_int_equal(strchr(h, '\n')[1], '\0');
    assert_int_equal(parse(h, err, sizeof err), 0);
    assert_int_equal(line.kind, JOURNAL_HEADER);
    assert_string_equal(line.game, "0123456789abcdef");
    assert_string_equal(line.network, "net \"x\"");
    assert_string_equal(line.room, "#h\\ö");
    assert_string_equal(line.rules, "standard target=50");
    assert_int_equal(line.opened, 1700000000);
    free(h);

    struct journal_seat seats[4];
    memset(seats, 0, sizeof seats);
    seats[0] = (struct journal_seat){
        .used = true, .human = true, .away = true, .autoplay = 2};
    snprintf(seats[0].nick, sizeof seats[0].nick, "alice");
    snprintf(seats[0].id, sizeof seats[0].id, "a@h");
    snprintf(seats[0].key, sizeof seats[0].key, "n:alice");
    seats[2] = (struct journal_seat){.used = true, .level = 1};
    snprintf(seats[2].nick, sizeof seats[2].nick, "bot1");
    char *s = journal_seats(seats, 4, 0);
    assert_int_equal(parse(s, err, sizeof err), 0);
    assert_int_equal(line.kind, JOURNAL_SEATS);
    assert_int_equal(line.nseats, 4);
    assert_int_equal(line.opener, 0);
    assert_true(line.seats[0].human && line.seats[0].away);
    assert_int_equal(line.seats[0].autoplay, 2);
    assert_string_equal(line.seats[0].key, "n:alice");
    assert_false(line.seats[1].used);
    assert_false(line.seats[2].human);
    assert_int_equal(line.seats[2].level, 1);
    assert_string_equal(line.seats[2].nick, "bot1");
    free(s);
    char *st = journal_start();
    assert_int_equal(parse(st, err, sizeof err), 0);
    assert_int_equal(line.kind, JOURNAL_START);
    free(st);
}

/* Journals a game through its events and checks the lines make the same
 * record as the record writer's. */
struct both {
    struct record_writer *w;
    struct record *rec;
    long bytes, lines;
};

static void emit(void *ctx, const struct engine_game *g,
                 const struct engine_event *ev)
{
    struct both *b = ctx;
    const struct engine_sink *ws = record_writer_sink(b->w);
    ws->emit(ws->ctx, g, ev);
    char *text = journal_event(g, ev);
    if (!text)
        return;
    b->bytes += (long)strlen(text);
    b->lines++;
    char err[200];
    if (parse(text, err, sizeof err))
        fail_msg("%s: %s", text, err);
    if (journal_record_add(b->rec, &line, err, sizeof err))
        fail_msg("%s: %s", text, err);
    free(text);
}

static void play_game(const char *rules_text, uint64_t seed, bool blind)
{
    struct engine_rules r;
    char err[300];
    assert_int_equal(engine_rules_parse(&r, rules_text, 0, NULL), 0);
    const char *names[4] = {"a", "b", "c", "d"};
    struct both b = {.w = record_writer_new(&r, names, 4)};
    b.rec = calloc(1, sizeof *b.rec);
    b.rec->rules = r;
    b.rec->n = 4;
    for (int s = 0; s < 4; s++)
        b.rec->names[s] = strdup(names[s]);
    struct engine_sink sink = {.emit = emit, .ctx = &b};
    struct engine_game g;
    engine_game_init(&g, &r, seed, 0);
    struct engine_prng rng;
    engine_prng_seed(&rng, seed);
    int hands = 0;
    for (int guard = 0; guard < 100000; guard++) {
        enum engine_phase ph = engine_phase(&g);
        if (ph == ENGINE_PHASE_GAME_OVER)
            break;
        if (ph == ENGINE_PHASE_DEAL) {
            engine_deal(&g, &sink);
            hands++;
            continue;
        }
        struct engine_action a = {0};
        if (ph == ENGINE_PHASE_PASS) {
            int s = 0;
            while (!engine_may_act(&g, s))
                s++;
            a.seat = (uint8_t)s;
            bool may_blind;
            int k = engine_pass_count(&g, s, &may_blind);
            if (blind && may_blind && s == 1) {
                a.kind = ENGINE_ACT_PASS_BLIND;
            } else {
                struct engine_cards h = engine_hand(&g, s);
                a.kind = ENGINE_ACT_PASS;
                for (int c = 0; c < 64 && a.ncards < k; c++)
                    if (h.one >> c & 1)
                        a.cards[a.ncards++] = (uint8_t)c;
            }
        } else if (ph == ENGINE_PHASE_PLAY) {
            a.kind = ENGINE_ACT_PLAY;
            a.seat = (uint8_t)engine_turn(&g);
            a.ncards = 1;
            a.cards[0] = (uint8_t)__builtin_ctzll(engine_legal_plays(&g));
        } else if (ph == ENGINE_PHASE_MOON) {
            a.kind = ENGINE_ACT_MOON;
            a.seat = (uint8_t)engine_turn(&g);
            a.moon = ENGINE_MOON_ADD_OTHERS;
        } else {
            fail_msg("phase %d", (int)ph);
        }
        assert_int_equal(engine_act(&g, &a, &sink, NULL), ENGINE_OK);
    }
    /* the journal's record replays to the same record as the writer's */
    struct record_writer *w2 = record_writer_new(&r, names, 4);
    if (record_replay(b.rec, record_writer_sink(w2), NULL, NULL, NULL, err,
                      sizeof err))
        fail_msg("replay: %s", err);
    char *x = record_writer_json(b.w), *y = record_writer_json(w2);
    assert_string_equal(x, y);
    printf("%s: %d hands, %.0f bytes and %.1f lines (fsyncs) a hand\n",
           rules_text, hands, (double)b.bytes / hands, (double)b.lines / hands);
    free(x);
    free(y);
    record_writer_free(b.w);
    record_writer_free(w2);
    record_free(b.rec);
}

static void test_game_lines_make_the_writers_record(void **state)
{
    (void)state;
    play_game("standard", 1, false);
    play_game("standard moon=choice pass_blind=on", 7, true);
}

/* A table with its own turn length writes version 2, with the length and
 * its turns' deadlines; every other table still writes version 1, which a
 * build before version 2 resumes. */
static void test_turn_length_and_deadlines_round_trip(void **state)
{
    (void)state;
    char err[200];
    char *h =
        journal_header("0123456789abcdef", "n", "#h", "standard", 1, 0, false);
    assert_non_null(strstr(h, "\"heartsbot-journal/1\""));
    assert_null(strstr(h, "turn_timeout"));
    free(h);
    h = journal_header("0123456789abcdef", "n", "#h", "standard", 1, 86400,
                       false);
    assert_non_null(strstr(h, "\"heartsbot-journal/2\""));
    assert_int_equal(parse(h, err, sizeof err), 0);
    assert_int_equal(line.kind, JOURNAL_HEADER);
    assert_int_equal(line.turn_timeout, 86400);
    assert_string_equal(line.rules, "standard");
    free(h);
    /* a version 1 header says nothing of it, whatever it holds */
    assert_int_equal(
        parse("{\"format\":\"heartsbot-journal/1\",\"game\":\"x\","
              "\"network\":\"n\",\"room\":\"#h\",\"rules\":\"standard\","
              "\"opened\":1,\"turn_timeout\":86400}",
              err, sizeof err),
        0);
    assert_int_equal(line.turn_timeout, 0);

    char *t = journal_turn(0xfffffff3u, 1764700000, 1, 1764690000);
    assert_int_equal(parse(t, err, sizeof err), 0);
    assert_int_equal(line.kind, JOURNAL_TURN);
    assert_true(line.turn == 0xfffffff3u);
    assert_true(line.deadline == 1764700000);
    assert_int_equal(line.reminded, 1);
    assert_true(line.channel == 1764690000);
    free(t);
    t = journal_turn(5, 9, 0, 0);
    assert_string_equal(t, "{\"turn\":5,\"deadline\":9}\n");
    assert_int_equal(parse(t, err, sizeof err), 0);
    assert_int_equal(line.reminded, 0);
    assert_true(line.channel == 0);
    free(t);
}

/* A later version is told from a format that is none: a newer bot's
 * journal is kept for it, not moved aside. */
static void test_a_newer_version_is_refused_as_newer(void **state)
{
    (void)state;
    char err[200];
    assert_int_equal(
        parse("{\"format\":\"heartsbot-journal/4\",\"game\":\"x\"}", err,
              sizeof err),
        -1);
    assert_true(line.newer);
    assert_string_equal(err, "format \"heartsbot-journal/4\" is of a newer "
                             "heartsbot (this one reads heartsbot-journal/3)");
    static const char *const other[] = {"heartsbot-journal/0", "journal/2",
                                        "heartsbot-journal/x"};
    for (size_t i = 0; i < sizeof other / sizeof *other; i++) {
        char text[200];
        snprintf(text, sizeof text, "{\"format\":\"%s\",\"game\":\"x\"}",
                 other[i]);
        assert_int_equal(parse(text, err, sizeof err), -1);
        assert_false(line.newer);
        assert_non_null(strstr(err, "is not one this bot reads"));
    }
}

static void test_hostile_lines_refused(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "",
        "[]",
        "{}",
        "{\"x\":1}",
        "{\"play\":\"ZZ\"}",
        "{\"play\":7}",
        "{\"play\":\"2C\"} trailing",
        "{\"format\":\"heartsbot-journal/4\",\"game\":\"x\",\"network\":\"n\","
        "\"room\":\"#h\",\"rules\":\"standard\",\"opened\":1}",
        "{\"format\":\"heartsbot-journal/2\",\"game\":\"x\",\"network\":\"n\","
        "\"room\":\"#h\",\"rules\":\"standard\",\"opened\":1,"
        "\"turn_timeout\":29}",
        "{\"format\":\"heartsbot-journal/2\",\"game\":\"x\",\"network\":\"n\","
        "\"room\":\"#h\",\"rules\":\"standard\",\"opened\":1,"
        "\"turn_timeout\":604801}",
        "{\"format\":\"heartsbot-journal/2\",\"game\":\"x\",\"network\":\"n\","
        "\"room\":\"#h\",\"rules\":\"standard\",\"opened\":1,"
        "\"turn_timeout\":\"1d\"}",
        "{\"turn\":1,\"deadline\":0}",
        "{\"turn\":-1,\"deadline\":5}",
        "{\"turn\":4294967296,\"deadline\":5}",
        "{\"deadline\":5}",
        "{\"turn\":1,\"deadline\":\"tomorrow\"}",
        "{\"turn\":1,\"deadline\":5,\"reminded\":4}",
        "{\"turn\":1,\"deadline\":5,\"channel\":-1}",
        "{\"format\":\"heartsbot-journal/1\",\"game\":\"x\",\"network\":\"n\","
        "\"room\":\"\",\"rules\":\"standard\",\"opened\":1}",
        "{\"format\":\"heartsbot-journal/1\",\"game\":1}",
        "{\"seats\":[]}",
        "{\"seats\":[1]}",
        "{\"seats\":[{\"nick\":\"\"}]}",
        "{\"seats\":[null],\"opener\":3}",
        "{\"pass\":10,\"cards\":[]}",
        "{\"pass\":0,\"cards\":[\"2C\",\"3C\",\"4C\",\"5C\",\"6C\",\"7C\","
        "\"8C\",\"9C\",\"TC\"]}",
        "{\"dealer\":0,\"deal\":\"2C\",\"rest\":[]}",
        "{\"dealer\":-1,\"deal\":[[]],\"rest\":[]}",
        "{\"moon\":\"sideways\"}",
        "{\"discard\":[1]}",
    };
    char err[200];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        if (parse(bad[i], err, sizeof err) == 0)
            fail_msg("accepted: %s", bad[i]);
        assert_true(err[0] != '\0');
    }
    /* a name too long for a seat */
    char longer[400];
    snprintf(longer, sizeof longer, "{\"seats\":[{\"nick\":\"%0100d\"}]}", 0);
    assert_int_equal(parse(longer, err, sizeof err), -1);
    /* actions out of place in a record */
    struct record rec = {.n = 4};
    assert_int_equal(parse("{\"play\":\"2C\"}", err, sizeof err), 0);
    assert_int_equal(journal_record_add(&rec, &line, err, sizeof err), -1);
    assert_non_null(strstr(err, "before the first deal"));
    assert_int_equal(parse("{\"dealer\":0,\"deal\":[[\"2C\"]],\"rest\":[]}",
                           err, sizeof err),
                     0);
    assert_int_equal(journal_record_add(&rec, &line, err, sizeof err), -1);
    free(rec.hands);
}

/* A table that allows hints writes version 3 with "hints", which a build
 * that knows no hints refuses as newer; only version 3 carries it, and it
 * must be true or false. */
static void test_hints_round_trip(void **state)
{
    (void)state;
    char err[200];
    char *h = journal_header("0123456789abcdef", "n", "#h", "standard", 1,
                             86400, true);
    assert_non_null(strstr(h, "\"heartsbot-journal/3\""));
    assert_int_equal(parse(h, err, sizeof err), 0);
    assert_true(line.hints);
    assert_int_equal(line.turn_timeout, 86400);
    free(h);
    h = journal_header("0123456789abcdef", "n", "#h", "standard", 1, 0, false);
    assert_int_equal(parse(h, err, sizeof err), 0);
    assert_false(line.hints);
    free(h);
    assert_int_equal(
        parse("{\"format\":\"heartsbot-journal/2\",\"game\":\"x\","
              "\"network\":\"n\",\"room\":\"#h\",\"rules\":\"standard\","
              "\"opened\":1,\"hints\":true}",
              err, sizeof err),
        0);
    assert_false(line.hints);
    assert_int_equal(
        parse("{\"format\":\"heartsbot-journal/3\",\"game\":\"x\","
              "\"network\":\"n\",\"room\":\"#h\",\"rules\":\"standard\","
              "\"opened\":1,\"hints\":\"yes\"}",
              err, sizeof err),
        -1);
    assert_non_null(strstr(err, "hints"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_header_and_seats_round_trip),
        cmocka_unit_test(test_game_lines_make_the_writers_record),
        cmocka_unit_test(test_turn_length_and_deadlines_round_trip),
        cmocka_unit_test(test_hints_round_trip),
        cmocka_unit_test(test_a_newer_version_is_refused_as_newer),
        cmocka_unit_test(test_hostile_lines_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
