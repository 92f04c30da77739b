/*
 * Tests of bot/manager/played.c: the keys people played under this
 * session, following their nicks, forgotten as they quit or the network
 * goes, and bounded.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "bot/manager/played.h"
#include "tests/support/fake_chat.h"

/* A network that folds nicks as rfc1459. */
static struct fake_chat net;

static void test_played_follows_nicks_and_forgets(void **state)
{
    (void)state;
    struct fake_chat otherf;
    fake_chat_init(&otherf, FAKE_CHAT_RFC1459, "other", NULL, NULL);
    struct chat_adapter *other = &otherf.base;
    struct played *pl = played_new();
    const char *keys[PLAYED_KEYS];
    played_add(pl, &net.base, "bob", "u@h1", "n:bob@h1");
    played_nick(pl, &net.base, "BOB", "u@h1", "bobby");
    assert_int_equal(played_keys(pl, &net.base, "bob", "u@h1", keys, 4), 0);
    assert_int_equal(played_keys(pl, &net.base, "Bobby", "u@h1", keys, 4), 1);
    assert_string_equal(keys[0], "n:bob@h1");
    /* someone else's nick change does not move bob's entry */
    played_nick(pl, &net.base, "bobby", "mal@h9", "x");
    assert_int_equal(played_keys(pl, &net.base, "bobby", NULL, keys, 4), 1);
    /* the latest key first, at most PLAYED_KEYS */
    for (int i = 0; i < PLAYED_KEYS + 2; i++) {
        char key[32];
        snprintf(key, sizeof key, "k%d", i);
        played_add(pl, &net.base, "bobby", "u@h1", key);
    }
    played_add(pl, &net.base, "bobby", "u@h1", "k3");
    assert_int_equal(played_keys(pl, &net.base, "bobby", "u@h1", keys, 4),
                     PLAYED_KEYS);
    assert_string_equal(keys[0], "k3");
    assert_string_equal(keys[1], "k5");
    assert_string_equal(keys[2], "k4");
    assert_string_equal(keys[3], "k2");
    /* networks apart */
    assert_int_equal(played_keys(pl, other, "bobby", "u@h1", keys, 4), 0);
    played_add(pl, other, "bobby", "u@h1", "n:o");
    played_quit(pl, &net.base, "bobby", "u@h1");
    assert_int_equal(played_keys(pl, &net.base, "bobby", "u@h1", keys, 4), 0);
    assert_int_equal(played_keys(pl, other, "bobby", "u@h1", keys, 4), 1);
    played_forget(pl, other);
    assert_int_equal(played_keys(pl, other, "bobby", "u@h1", keys, 4), 0);
    played_free(pl);
    played_free(NULL);
}

/* Churn cannot grow it: PLAYED_PEOPLE per network, the least recently
 * seen going first. */
static void test_played_is_bounded(void **state)
{
    (void)state;
    struct played *pl = played_new();
    const char *keys[PLAYED_KEYS];
    played_add(pl, &net.base, "first", "u@h", "n:first@h");
    for (int i = 0; i < PLAYED_PEOPLE * 3; i++) {
        char nick[32];
        snprintf(nick, sizeof nick, "p%d", i);
        played_add(pl, &net.base, nick, "u@h", "k");
        if (i == PLAYED_PEOPLE / 2) /* seen again: kept longer */
            played_nick(pl, &net.base, "first", "u@h", "first");
    }
    assert_int_equal(played_keys(pl, &net.base, "first", "u@h", keys, 4), 0);
    assert_int_equal(played_keys(pl, &net.base, "p0", "u@h", keys, 4), 0);
    char last[32];
    snprintf(last, sizeof last, "p%d", PLAYED_PEOPLE * 3 - 1);
    assert_int_equal(played_keys(pl, &net.base, last, "u@h", keys, 4), 1);
    int kept = 0;
    for (int i = 0; i < PLAYED_PEOPLE * 3; i++) {
        char nick[32];
        snprintf(nick, sizeof nick, "p%d", i);
        kept += played_keys(pl, &net.base, nick, "u@h", keys, 4);
    }
    assert_int_equal(kept, PLAYED_PEOPLE);
    played_free(pl);
}

int main(void)
{
    fake_chat_init(&net, FAKE_CHAT_RFC1459, "test", NULL, NULL);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_played_follows_nicks_and_forgets),
        cmocka_unit_test(test_played_is_bounded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
