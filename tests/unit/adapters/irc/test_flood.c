/*
 * Tests of adapters/irc/flood.c, the lag-driven pacing, with a fake clock:
 * lag that grows slows the pace down at once, low lag brings it down to
 * the floor step by step, it never leaves its bounds, a probe that stays
 * out slows down before its answer, and probes go only while lines flow.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "adapters/irc/flood.h"

/* One probe answered after `rtt` ms, starting at *now. */
static void round_trip(struct ircad_flood *p, int64_t *now, int64_t rtt)
{
    unsigned token = ircad_flood_next_token(p);
    ircad_flood_probe_sent(p, *now);
    *now += rtt;
    assert_true(ircad_flood_pong(p, token, *now));
    *now += IRCAD_FLOOD_PROBE_MS;
}

static void test_ircad_flood_lag_grows_interval_grows(void **state)
{
    (void)state;
    struct ircad_flood p;
    ircad_flood_init(&p, 500, 200, 4000);
    int64_t now = 1000;
    round_trip(&p, &now, 40); /* the base round trip */
    int64_t before = p.interval_ms;
    round_trip(&p, &now, 40 + IRCAD_FLOOD_HIGH_MS + 1);
    assert_int_equal(p.interval_ms, before * 2);
    round_trip(&p, &now, 40 + 2000);
    assert_int_equal(p.interval_ms, before * 4);
    /* lag in between: held */
    round_trip(&p, &now, 40 + (IRCAD_FLOOD_LOW_MS + IRCAD_FLOOD_HIGH_MS) / 2);
    assert_int_equal(p.interval_ms, before * 4);
}

static void test_ircad_flood_low_lag_shrinks_to_floor(void **state)
{
    (void)state;
    struct ircad_flood p;
    ircad_flood_init(&p, 1100, 300, 4400);
    int64_t now = 0;
    int64_t prev = p.interval_ms;
    for (int i = 0; i < 100; i++) {
        round_trip(&p, &now, 80);
        assert_true(p.interval_ms <= prev);
        assert_true(p.interval_ms >= 300);
        prev = p.interval_ms;
    }
    assert_int_equal(p.interval_ms, 300);
    /* the first step is gentle: an eighth */
    struct ircad_flood q;
    ircad_flood_init(&q, 1100, 300, 4400);
    now = 0;
    round_trip(&q, &now, 80);
    assert_int_equal(q.interval_ms, 1100 - 1100 / 8);
}

static void test_ircad_flood_never_beyond_ceiling(void **state)
{
    (void)state;
    struct ircad_flood p;
    ircad_flood_init(&p, 1100, 1100, 3000);
    int64_t now = 0;
    round_trip(&p, &now, 10);
    for (int i = 0; i < 20; i++) {
        round_trip(&p, &now, 10 + 5000);
        assert_true(p.interval_ms <= 3000);
    }
    assert_int_equal(p.interval_ms, 3000);
    /* and back down, never under the floor */
    for (int i = 0; i < 50; i++)
        round_trip(&p, &now, 10);
    assert_int_equal(p.interval_ms, 1100);
    /* bounds given the wrong way round are put right */
    ircad_flood_init(&p, 50, 900, 100);
    assert_int_equal(p.min_ms, 900);
    assert_int_equal(p.max_ms, 900);
    assert_int_equal(p.interval_ms, 900);
    assert_false(ircad_flood_adaptive(&p));
}

/* A probe the server sits on slows the pace down before it answers, once;
 * its late answer does not slow it down a second time. */
static void test_ircad_flood_tick_overdue_probe_slows_down(void **state)
{
    (void)state;
    struct ircad_flood p;
    ircad_flood_init(&p, 400, 100, 6400);
    int64_t now = 0;
    round_trip(&p, &now, 20);
    int64_t before = p.interval_ms;
    unsigned token = ircad_flood_next_token(&p);
    ircad_flood_probe_sent(&p, now);
    ircad_flood_tick(&p, now + 20 + IRCAD_FLOOD_HIGH_MS);
    assert_int_equal(p.interval_ms, before);
    ircad_flood_tick(&p, now + 21 + IRCAD_FLOOD_HIGH_MS);
    assert_int_equal(p.interval_ms, before * 2);
    ircad_flood_tick(&p, now + 3000);
    assert_int_equal(p.interval_ms, before * 2);
    /* a stale or foreign token is not ours */
    assert_false(ircad_flood_pong(&p, token + 1, now + 3000));
    assert_true(ircad_flood_pong(&p, token, now + 3000));
    assert_int_equal(p.interval_ms, before * 2);
    assert_false(ircad_flood_pong(&p, token, now + 3001));
}

/* At the floor a probe can only find the lag growing, and each takes a
 * line's place in the pace: it goes four times more rarely there. */
static void test_ircad_flood_probes_rarely_at_the_floor(void **state)
{
    (void)state;
    struct ircad_flood p;
    ircad_flood_init(&p, 1100, 1100, 4400);
    int64_t now = 100000;
    for (int i = 0; i < IRCAD_FLOOD_PROBE_LINES; i++)
        ircad_flood_line_sent(&p);
    assert_false(ircad_flood_want_probe(&p, now, true));
    for (int i = IRCAD_FLOOD_PROBE_LINES;
         i < IRCAD_FLOOD_PROBE_LINES * IRCAD_FLOOD_FLOOR_RARER; i++)
        ircad_flood_line_sent(&p);
    assert_true(ircad_flood_want_probe(&p, now, true));
    /* above the floor, at the usual cadence again */
    ircad_flood_init(&p, 2200, 1100, 4400);
    for (int i = 0; i < IRCAD_FLOOD_PROBE_LINES; i++)
        ircad_flood_line_sent(&p);
    assert_true(ircad_flood_want_probe(&p, now, true));
}

static void test_ircad_flood_want_probe_only_while_lines_flow(void **state)
{
    (void)state;
    struct ircad_flood p;
    ircad_flood_init(&p, 1000, 500, 4000);
    int64_t now = 100000;
    for (int i = 0; i < IRCAD_FLOOD_PROBE_LINES - 1; i++)
        ircad_flood_line_sent(&p);
    assert_false(ircad_flood_want_probe(&p, now, true));
    ircad_flood_line_sent(&p);
    assert_false(ircad_flood_want_probe(&p, now, false));
    assert_true(ircad_flood_want_probe(&p, now, true));
    unsigned token = ircad_flood_next_token(&p);
    ircad_flood_probe_sent(&p, now);
    for (int i = 0; i < 2 * IRCAD_FLOOD_PROBE_LINES; i++)
        ircad_flood_line_sent(&p);
    /* one probe at a time */
    assert_false(
        ircad_flood_want_probe(&p, now + 2 * IRCAD_FLOOD_PROBE_MS, true));
    assert_true(ircad_flood_pong(&p, token, now + 10));
    assert_false(ircad_flood_want_probe(&p, now + 10, true));
    assert_true(ircad_flood_want_probe(&p, now + IRCAD_FLOOD_PROBE_MS, true));
    /* a fixed pace never probes */
    struct ircad_flood fixed;
    ircad_flood_init(&fixed, 1100, 1100, 1100);
    for (int i = 0; i < 20; i++)
        ircad_flood_line_sent(&fixed);
    assert_false(ircad_flood_want_probe(&fixed, now, true));
}

static void test_ircad_flood_for_server_known_and_unknown(void **state)
{
    (void)state;
    static const struct {
        const char *version;
        int64_t floor;
    } cases[] = {
        {"ngircd-26.1", 400},
        {"ngIRCd-27~rc1 (x86_64/pc/linux-gnu)", 400},
        {"ergo-2.11.1", 550},
        {"oragono-2.5.0", 550},
        {"solanum-1.0-dev", 800},
        {"charybdis-4.1.2", 800},
        {"ircd-ratbox-3.0.10", 800},
        {"ircd-hybrid-8.2.43", 800},
        {"InspIRCd-3", 1100},
        {"UnrealIRCd-6.1.2", 1100},
        {"irc.example.net", 1100},
        {"", 1100},
        {NULL, 1100},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct ircad_flood_server sp;
        ircad_flood_for_server(cases[i].version, 1100, &sp);
        assert_int_equal(sp.floor_ms, cases[i].floor);
        assert_non_null(sp.server);
        assert_non_null(sp.why);
    }
    /* never a slower floor than the configured pace */
    struct ircad_flood_server sp;
    ircad_flood_for_server("ngircd-26.1", 300, &sp);
    assert_int_equal(sp.floor_ms, 300);
    /* a long hostile version is only scanned at its start */
    char junk[4096];
    memset(junk, 'a', sizeof junk - 8);
    memcpy(junk + sizeof junk - 8, "ngircd", 7);
    ircad_flood_for_server(junk, 1100, &sp);
    assert_int_equal(sp.floor_ms, 1100);
}

static void test_ircad_flood_set_floor_clamps(void **state)
{
    (void)state;
    struct ircad_flood p;
    ircad_flood_init(&p, 1100, 1100, 4400);
    ircad_flood_set_floor(&p, 400);
    assert_int_equal(p.min_ms, 400);
    assert_int_equal(p.interval_ms, 1100); /* starts where it was */
    assert_true(ircad_flood_adaptive(&p));
    int64_t now = 0;
    for (int i = 0; i < 100; i++)
        round_trip(&p, &now, 20);
    assert_int_equal(p.interval_ms, 400);
    /* a higher floor pulls the interval up; never above the ceiling */
    ircad_flood_set_floor(&p, 1100);
    assert_int_equal(p.interval_ms, 1100);
    ircad_flood_set_floor(&p, 9000);
    assert_int_equal(p.min_ms, 4400);
    assert_int_equal(p.interval_ms, 4400);
    ircad_flood_set_floor(&p, 0);
    assert_int_equal(p.min_ms, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ircad_flood_lag_grows_interval_grows),
        cmocka_unit_test(test_ircad_flood_low_lag_shrinks_to_floor),
        cmocka_unit_test(test_ircad_flood_never_beyond_ceiling),
        cmocka_unit_test(test_ircad_flood_tick_overdue_probe_slows_down),
        cmocka_unit_test(test_ircad_flood_probes_rarely_at_the_floor),
        cmocka_unit_test(test_ircad_flood_want_probe_only_while_lines_flow),
        cmocka_unit_test(test_ircad_flood_for_server_known_and_unknown),
        cmocka_unit_test(test_ircad_flood_set_floor_clamps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
