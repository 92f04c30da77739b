/*
 * What the adapter tells the bot (adapters/matrix/report.c): events, and
 * the answers given from a timer.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "adapters/matrix/outbox.h"
#include "adapters/matrix/report.h"
#include "adapters/matrix/strset.h"
#include "mx_fixture.h"

static void stop_loop(struct loop *l, void *ctx)
{
    (void)ctx;
    loop_stop(l);
}

/* Runs the loop until what is due now has run. */
static void run(struct fx *f)
{
    loop_timer(f->loop, 5, stop_loop, NULL);
    loop_run(f->loop);
}

static void
test_events_carry_the_user_id_and_stop_with_the_adapter(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, NULL);
    mx_emit_person(f.a, CHAT_MESSAGE, "!r:hs", "@alice:hs", "Alice", "hi",
                   NULL);
    assert_int_equal(f.nev, 1);
    assert_string_equal(f.ev[0].nick, "@alice:hs");
    assert_string_equal(f.ev[0].id, "@alice:hs");
    assert_string_equal(f.ev[0].display, "Alice");
    f.a->stopped = true;
    mx_emit(f.a, CHAT_PART, "!r:hs", "@alice:hs", "", NULL);
    assert_int_equal(f.nev, 1);
    fx_free(&f);
}

static void test_sent_texts_are_reported_from_the_loop(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, NULL);
    uint64_t cookies[] = {3, 4};
    mx_report(f.a, cookies, 2);
    mx_report(f.a, NULL, 0);
    assert_int_equal(f.nev, 0); /* never from inside an op */
    run(&f);
    assert_int_equal(f.nev, 2);
    assert_int_equal(f.ev[0].kind, CHAT_SENT);
    assert_int_equal(f.ev[0].cookie, 3);
    assert_int_equal(f.ev[1].cookie, 4);
    fx_free(&f);
}

static void test_a_user_id_is_who_holds_it_unless_they_left(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, NULL);
    mx_set_add(&f.a->left, &f.a->nleft, "@bob:hs");
    mx_verify(&f.a->base, "@alice:hs");
    mx_verify(&f.a->base, "@bob:hs");
    mx_verify(&f.a->base, "carol");
    assert_int_equal(f.nev, 0);
    run(&f);
    assert_int_equal(f.nev, 3);
    for (int i = 0; i < 3; i++)
        assert_int_equal(f.ev[i].kind, CHAT_IDENTITY);
    assert_string_equal(f.ev[0].nick, "@alice:hs");
    assert_string_equal(f.ev[0].id, "@alice:hs");
    assert_string_equal(f.ev[1].nick, "@bob:hs");
    assert_null(f.ev[1].id);
    assert_null(f.ev[2].id);
    fx_free(&f);
}

static void test_dropped_lines_count_as_sent(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, NULL);
    mx_outbox_add_tracked(f.a->out, "!r:hs", "gone", 9);
    mx_drop(f.a, "!r:hs");
    assert_false(mx_outbox_waiting(f.a->out, "!r:hs"));
    run(&f);
    assert_int_equal(f.nev, 1);
    assert_int_equal(f.ev[0].kind, CHAT_SENT);
    assert_int_equal(f.ev[0].cookie, 9);
    fx_free(&f);
}

static void test_a_notice_is_said_once_in_a_room(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, NULL);
    mx_say_once(f.a, "!r:hs", "no cards here");
    assert_true(mx_outbox_waiting(f.a->out, "!r:hs"));
    mx_outbox_drop(f.a->out, "!r:hs");
    mx_say_once(f.a, "!r:hs", "no cards here");
    assert_false(mx_outbox_waiting(f.a->out, "!r:hs"));
    mx_say_once(f.a, "!s:hs", "no cards here");
    assert_true(mx_outbox_waiting(f.a->out, "!s:hs"));
    fx_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(
            test_events_carry_the_user_id_and_stop_with_the_adapter),
        cmocka_unit_test(test_sent_texts_are_reported_from_the_loop),
        cmocka_unit_test(test_a_user_id_is_who_holds_it_unless_they_left),
        cmocka_unit_test(test_dropped_lines_count_as_sent),
        cmocka_unit_test(test_a_notice_is_said_once_in_a_room),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
