/*
 * The out-queue (adapters/matrix/send.c): where a line waits, and what
 * goes next.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "adapters/matrix/direct.h"
#include "adapters/matrix/joins.h"
#include "adapters/matrix/outbox.h"
#include "adapters/matrix/send.h"
#include "adapters/matrix/strset.h"
#include "mx_fixture.h"

static const char *const ROOMS[] = {"#cards:hs", "!id:hs", NULL};

static void test_rank_puts_people_before_rooms_and_low_last(void **state)
{
    (void)state;
    assert_int_equal(mx_rank(CHAT_HIGH, true), 0);
    assert_int_equal(mx_rank(CHAT_NORMAL, true), 0);
    assert_true(mx_rank(CHAT_HIGH, false) < mx_rank(CHAT_NORMAL, false));
    assert_true(mx_rank(CHAT_NORMAL, false) < mx_rank(CHAT_LOW, true));
    assert_true(mx_rank(CHAT_LOW, true) < mx_rank(CHAT_LOW, false));
    /* the priority of a send: rank / 2 */
    assert_int_equal(mx_rank(CHAT_LOW, false) / 2, CHAT_LOW);
    assert_int_equal(mx_rank(CHAT_NORMAL, false) / 2, CHAT_NORMAL);
}

static void test_destination_of_configured_rooms(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, ROOMS);
    struct mx_adapter *a = f.a;
    /* an alias not resolved yet: held under its name */
    assert_string_equal(mx_destination(a, "#cards:hs"), "#cards:hs");
    assert_string_equal(mx_destination(a, "!id:hs"), "!id:hs");
    mx_cfg_by_name(a, "#cards:hs")->id = xstrdup("!c:hs");
    assert_string_equal(mx_destination(a, "#cards:hs"), "!c:hs");
    assert_string_equal(mx_destination(a, "!c:hs"), "!c:hs");
    mx_cfg_by_name(a, "#cards:hs")->lost = true;
    assert_null(mx_destination(a, "#cards:hs"));
    assert_null(mx_destination(a, "!c:hs"));
    /* any other room ID is itself */
    assert_string_equal(mx_destination(a, "!other:hs"), "!other:hs");
    assert_null(mx_destination(a, "#other:hs"));
    fx_free(&f);
}

static void test_destination_of_people(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, NULL);
    struct mx_adapter *a = f.a;
    assert_null(mx_destination(a, "@bot:hs")); /* the bot itself */
    assert_null(mx_destination(a, "alice"));
    /* no direct room yet, or one not checked: the person */
    assert_string_equal(mx_destination(a, "@alice:hs"), "@alice:hs");
    mx_dm_set(a, "@alice:hs", "!dm:hs", MX_DM_UNCHECKED);
    assert_string_equal(mx_destination(a, "@alice:hs"), "@alice:hs");
    mx_dm_set(a, "@alice:hs", "!dm:hs", MX_DM_READY);
    assert_string_equal(mx_destination(a, "@alice:hs"), "!dm:hs");
    fx_free(&f);
}

static void test_say_and_tell_take_rooms_and_people_only(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, ROOMS);
    struct mx_adapter *a = f.a;
    mx_say(&a->base, "@alice:hs", "no", CHAT_NORMAL);
    mx_tell(&a->base, "#cards:hs", "no", CHAT_NORMAL);
    assert_false(mx_outbox_waiting(a->out, NULL));
    mx_say(&a->base, "#cards:hs", "hello", CHAT_NORMAL);
    mx_tell(&a->base, "@alice:hs", "your cards", CHAT_NORMAL);
    assert_true(mx_outbox_waiting(a->out, "#cards:hs"));
    assert_true(mx_outbox_waiting(a->out, "@alice:hs"));
    /* stopped: nothing more is taken */
    a->stopped = true;
    mx_tell(&a->base, "@bob:hs", "late", CHAT_NORMAL);
    assert_false(mx_outbox_waiting(a->out, "@bob:hs"));
    fx_free(&f);
}

static void test_pick_serves_a_person_before_a_room(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, NULL);
    struct mx_adapter *a = f.a;
    mx_dm_set(a, "@alice:hs", "!dm:hs", MX_DM_READY);
    mx_outbox_add_prio(a->out, "!room:hs", "table", 0, CHAT_HIGH, 0);
    mx_outbox_add_prio(a->out, "!dm:hs", "cards", 0, CHAT_NORMAL, 1000);
    struct mx_next n;
    mx_pick(a, 2000, &n);
    assert_int_equal(n.kind, MX_NEXT_ROOM);
    assert_string_equal(n.dest, "!dm:hs");
    assert_int_equal(n.rank, 0);
    assert_int_equal(n.cost, 1);
    /* a room's lines wait a minute at most */
    mx_pick(a, 60000, &n);
    assert_int_equal(n.kind, MX_NEXT_ROOM);
    assert_string_equal(n.dest, "!room:hs");
    fx_free(&f);
}

static void test_pick_holds_back_behind_a_room_in_flight(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, NULL);
    struct mx_adapter *a = f.a;
    mx_outbox_add_prio(a->out, "!busy:hs", "urgent", 0, CHAT_HIGH, 0);
    mx_outbox_add_prio(a->out, "!idle:hs", "later", 0, CHAT_LOW, 0);
    mx_set_add(&a->sending, &a->nsending, "!busy:hs");
    struct mx_next n;
    mx_pick(a, 0, &n);
    assert_int_equal(n.kind, MX_NEXT_NONE);
    mx_set_del(a->sending, &a->nsending, "!busy:hs");
    mx_pick(a, 0, &n);
    assert_int_equal(n.kind, MX_NEXT_ROOM);
    assert_string_equal(n.dest, "!busy:hs");
    fx_free(&f);
}

static void test_pick_makes_a_direct_room_once_the_map_is_known(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, NULL);
    struct mx_adapter *a = f.a;
    mx_outbox_add_prio(a->out, "@alice:hs", "cards", 0, CHAT_NORMAL, 0);
    struct mx_next n;
    /* m.direct not read: a restart must not make rooms anew */
    mx_pick(a, 0, &n);
    assert_int_equal(n.kind, MX_NEXT_NONE);
    a->direct_known = true;
    mx_pick(a, 0, &n);
    assert_int_equal(n.kind, MX_NEXT_CREATE);
    assert_string_equal(n.dest, "@alice:hs");
    assert_int_equal(n.cost, 2);
    /* one creation at a time */
    mx_set_add(&a->creating, &a->ncreating, "@bob:hs");
    mx_pick(a, 0, &n);
    assert_int_equal(n.kind, MX_NEXT_NONE);
    fx_free(&f);
}

static void test_prepare_wants_a_direct_room_for_who_sits_down(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, NULL);
    struct mx_adapter *a = f.a;
    a->direct_known = true;
    mx_prepare(&a->base, "@bot:hs");
    mx_prepare(&a->base, "nick");
    assert_int_equal(a->nwants, 0);
    mx_prepare(&a->base, "@bob:hs");
    mx_prepare(&a->base, "@bob:hs");
    assert_int_equal(a->nwants, 1);
    struct mx_next n;
    mx_pick(a, 0, &n);
    assert_int_equal(n.kind, MX_NEXT_CREATE);
    assert_string_equal(n.dest, "@bob:hs");
    fx_free(&f);
}

static void test_limited_is_the_pacers_word(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, NULL);
    assert_false(mx_limited(&f.a->base));
    f.a->pace.limited = true;
    assert_true(mx_limited(&f.a->base));
    fx_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rank_puts_people_before_rooms_and_low_last),
        cmocka_unit_test(test_destination_of_configured_rooms),
        cmocka_unit_test(test_destination_of_people),
        cmocka_unit_test(test_say_and_tell_take_rooms_and_people_only),
        cmocka_unit_test(test_pick_serves_a_person_before_a_room),
        cmocka_unit_test(test_pick_holds_back_behind_a_room_in_flight),
        cmocka_unit_test(test_pick_makes_a_direct_room_once_the_map_is_known),
        cmocka_unit_test(test_prepare_wants_a_direct_room_for_who_sits_down),
        cmocka_unit_test(test_limited_is_the_pacers_word),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
