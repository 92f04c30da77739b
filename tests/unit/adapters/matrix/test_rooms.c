/*
 * What the bot knows of rooms (adapters/matrix/rooms.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "adapters/matrix/rooms.h"
#include "adapters/matrix/sync.h"

static void test_rooms_label_name_then_alias_then_id(void **state)
{
    (void)state;
    struct mx_rooms *r = mx_rooms_new();
    char out[64];
    mx_rooms_label(r, "!x:hs", out, sizeof out);
    assert_string_equal(out, "!x:hs");
    mx_rooms_set_alias(r, "!x:hs", "#cards:hs");
    mx_rooms_label(r, "!x:hs", out, sizeof out);
    assert_string_equal(out, "#cards:hs");
    mx_rooms_set_name(r, "!x:hs", "Card Club");
    mx_rooms_label(r, "!x:hs", out, sizeof out);
    assert_string_equal(out, "Card Club");
    /* a name taken away: the alias again; an empty one is none */
    mx_rooms_set_name(r, "!x:hs", "");
    mx_rooms_label(r, "!x:hs", out, sizeof out);
    assert_string_equal(out, "#cards:hs");
    /* cut on a character boundary */
    mx_rooms_set_name(r, "!x:hs", "C\xc3\xa9ile");
    mx_rooms_label(r, "!x:hs", out, 3);
    assert_string_equal(out, "C");
    mx_rooms_forget(r, "!x:hs");
    mx_rooms_label(r, "!x:hs", out, sizeof out);
    assert_string_equal(out, "!x:hs");
    assert_false(mx_rooms_known(r, "!x:hs"));
    mx_rooms_free(r);
}

static void test_rooms_private_to_two(void **state)
{
    (void)state;
    struct mx_rooms *r = mx_rooms_new();
    const char *bot = "@bot:hs", *ann = "@ann:hs";
    mx_rooms_set_creator(r, "!d:hs", bot);
    assert_string_equal(mx_rooms_creator(r, "!d:hs"), bot);
    mx_rooms_set_member(r, "!d:hs", bot, "join");
    mx_rooms_set_member(r, "!d:hs", ann, "invite");
    assert_false(mx_rooms_others(r, "!d:hs", bot, ann));
    size_t n;
    assert_string_equal(mx_rooms_other(r, "!d:hs", bot, &n), ann);
    assert_int_equal(n, 1);
    assert_string_equal(mx_rooms_membership(r, "!d:hs", ann), "invite");
    /* someone else invited: not private; gone again: private */
    mx_rooms_set_member(r, "!d:hs", "@eve:hs", "invite");
    assert_true(mx_rooms_others(r, "!d:hs", bot, ann));
    mx_rooms_set_member(r, "!d:hs", "@eve:hs", "leave");
    assert_false(mx_rooms_others(r, "!d:hs", bot, ann));
    assert_false(mx_rooms_encrypted(r, "!d:hs"));
    mx_rooms_set_encrypted(r, "!d:hs");
    assert_true(mx_rooms_encrypted(r, "!d:hs"));
    mx_rooms_free(r);
}

static bool skip_x(void *ctx, const char *room)
{
    (void)ctx;
    return strcmp(room, "!x:hs") == 0;
}

static void test_rooms_made_for_two(void **state)
{
    (void)state;
    struct mx_rooms *r = mx_rooms_new();
    const char *bot = "@bot:hs", *ann = "@ann:hs";
    /* ann's room with only her and the bot (joined) in it */
    mx_rooms_set_creator(r, "!a:hs", ann);
    mx_rooms_set_member(r, "!a:hs", ann, "join");
    mx_rooms_set_member(r, "!a:hs", bot, "invite");
    assert_null(mx_rooms_made_for_two(r, ann, bot, NULL, NULL));
    mx_rooms_set_member(r, "!a:hs", bot, "join");
    assert_string_equal(mx_rooms_made_for_two(r, ann, bot, NULL, NULL),
                        "!a:hs");
    /* not someone else's, not with a third person, not encrypted, not
     * one the caller refuses */
    assert_null(mx_rooms_made_for_two(r, "@eve:hs", bot, NULL, NULL));
    mx_rooms_set_member(r, "!a:hs", "@eve:hs", "invite");
    assert_null(mx_rooms_made_for_two(r, ann, bot, NULL, NULL));
    mx_rooms_set_member(r, "!a:hs", "@eve:hs", "leave");
    assert_non_null(mx_rooms_made_for_two(r, ann, bot, NULL, NULL));
    mx_rooms_set_creator(r, "!x:hs", ann);
    mx_rooms_set_member(r, "!x:hs", ann, "join");
    mx_rooms_set_member(r, "!x:hs", bot, "join");
    mx_rooms_set_encrypted(r, "!a:hs");
    assert_null(mx_rooms_made_for_two(r, ann, bot, skip_x, NULL));
    assert_string_equal(mx_rooms_made_for_two(r, ann, bot, NULL, NULL),
                        "!x:hs");
    mx_rooms_free(r);
}

static void test_rooms_crowded_is_never_private(void **state)
{
    (void)state;
    struct mx_rooms *r = mx_rooms_new();
    char user[32];
    for (int i = 0; i < MX_ROOMS_PEOPLE_MAX + 3; i++) {
        snprintf(user, sizeof user, "@u%d:hs", i);
        mx_rooms_set_member(r, "!big:hs", user, "join");
    }
    /* more people than kept: whoever they are, not private */
    assert_true(mx_rooms_others(r, "!big:hs", "@u0:hs", "@u1:hs"));
    size_t n;
    mx_rooms_other(r, "!big:hs", "@u0:hs", &n);
    assert_true(n > 1);
    mx_rooms_free(r);
}

static void test_rooms_bounded(void **state)
{
    (void)state;
    struct mx_rooms *r = mx_rooms_new();
    char room[32];
    for (int i = 0; i < MX_ROOMS_MAX + 10; i++) {
        snprintf(room, sizeof room, "!r%d:hs", i);
        mx_rooms_set_name(r, room, "x");
    }
    assert_int_equal(mx_rooms_count(r), MX_ROOMS_MAX);
    /* the ones touched longest ago went */
    assert_false(mx_rooms_known(r, "!r0:hs"));
    snprintf(room, sizeof room, "!r%d:hs", MX_ROOMS_MAX + 9);
    assert_true(mx_rooms_known(r, room));
    mx_rooms_free(r);
}

static void test_rooms_fed_state_items_only(void **state)
{
    (void)state;
    struct mx_rooms *r = mx_rooms_new();
    struct mx_item it = {
        .kind = MX_ITEM_CREATE, .room = "!r:hs", .sender = "@ann:hs"};
    mx_rooms_feed(r, &it);
    assert_string_equal(mx_rooms_creator(r, "!r:hs"), "@ann:hs");
    it = (struct mx_item){.kind = MX_ITEM_MEMBER,
                          .room = "!r:hs",
                          .sender = "@ann:hs",
                          .user = "@bob:hs",
                          .membership = "invite"};
    mx_rooms_feed(r, &it);
    assert_string_equal(mx_rooms_membership(r, "!r:hs", "@bob:hs"), "invite");
    it = (struct mx_item){.kind = MX_ITEM_NAME, .room = "!r:hs", .name = "Den"};
    mx_rooms_feed(r, &it);
    char label[32];
    mx_rooms_label(r, "!r:hs", label, sizeof label);
    assert_string_equal(label, "Den");
    /* an encrypted message is no state: only the room's state turns it on */
    it = (struct mx_item){
        .kind = MX_ITEM_ENCRYPTED, .room = "!r:hs", .event_id = "$e"};
    mx_rooms_feed(r, &it);
    assert_false(mx_rooms_encrypted(r, "!r:hs"));
    it.event_id = NULL;
    mx_rooms_feed(r, &it);
    assert_true(mx_rooms_encrypted(r, "!r:hs"));
    /* a message changes nothing */
    it = (struct mx_item){.kind = MX_ITEM_MESSAGE, .room = "!m:hs"};
    mx_rooms_feed(r, &it);
    assert_false(mx_rooms_known(r, "!m:hs"));
    mx_rooms_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rooms_label_name_then_alias_then_id),
        cmocka_unit_test(test_rooms_private_to_two),
        cmocka_unit_test(test_rooms_made_for_two),
        cmocka_unit_test(test_rooms_crowded_is_never_private),
        cmocka_unit_test(test_rooms_bounded),
        cmocka_unit_test(test_rooms_fed_state_items_only),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
