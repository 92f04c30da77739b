/*
 * Tests of a seated player's commands (bot/manager/cmd_play.c),
 * through the fake adapter of the manager's test world (world.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "bot/manager/lang.h"
#include "bot/manager/text.h"
#include "tests/unit/bot/manager/world.h"

/* The legal plays of the seat after `card` is played by the one to play. */
static uint64_t legal_after(const struct table *t, int card)
{
    struct engine_game copy = t->game;
    assert_int_equal(engine_play(&copy, card, NULL, NULL), ENGINE_OK);
    return engine_turn(&copy) >= 0 ? engine_legal_plays(&copy) : 0;
}

static void test_refusals_change_nothing(void **state)
{
    (void)state;
    four_people("standard pass_count=0");
    struct table *t = the_table();
    const struct engine_game *g = &t->game;
    int turn = engine_turn(g);
    int other = (turn + 1) % 4;
    const char *me = t->seats[turn].nick, *them = t->seats[other].nick;
    char cmd[100];
    /* a card the player to move does not hold */
    struct engine_cards oh = engine_hand(g, other);
    snprintf(cmd, sizeof cmd, "play %s",
             engine_card_name(__builtin_ctzll(oh.one)));
    refused(me, NULL, cmd, "You don't hold");
    /* not your turn (privately, the card would wait for the turn) */
    snprintf(cmd, sizeof cmd, "!play %s",
             engine_card_name(__builtin_ctzll(oh.one)));
    refused(them, "#h", cmd, "Not your turn");
    /* the 2C must lead */
    struct engine_cards mine = engine_hand(g, turn);
    int not2c = __builtin_ctzll(mine.one & ~ENGINE_BIT(ENGINE_2C));
    snprintf(cmd, sizeof cmd, "play %s", engine_card_name(not2c));
    refused(me, NULL, cmd, "You must lead 2");
    refused(me, NULL, "play ZZ", "'ZZ' is not a card");
    refused(me, NULL, "play", "Play which card");
    refused(me, NULL, "pass 2C 3C 4C", "playing tricks now");
    refused(me, "#h", "!pass 2C 3C 4C", "Passed cards are secret");
    refused(me, NULL, "moon add", "playing tricks now");
    refused("stranger", "#h", "!play 2C", "not playing at this table");
    /* the 2C leads; the next player must follow clubs if able */
    said(me, NULL, "2C");
    turn = engine_turn(g);
    me = t->seats[turn].nick;
    struct engine_cards h = engine_hand(g, turn);
    uint64_t clubs = h.one & ENGINE_SUIT_MASK(ENGINE_CLUBS);
    if (clubs && (h.one & ~clubs)) {
        snprintf(cmd, sizeof cmd, "play %s",
                 engine_card_name(__builtin_ctzll(h.one & ~clubs)));
        refused(me, NULL, cmd, "follow suit: clubs");
    }
}

/* A card or a second pass after one's pass says what the table waits for:
 * the others' passes, named; before one's pass, what to do. */
static void test_after_passing_the_reply_names_who_is_left(void **state)
{
    (void)state;
    w->cfg.reply_interval = 0;
    four_people("standard");
    struct table *t = the_table();
    refused("bob", NULL, "2c",
            "Cards are being passed: \"pass\" and 3 "
            "cards.");
    char cmd[100];
    first_three(t, 1, cmd, sizeof cmd);
    said("bob", NULL, cmd);
    refused("bob", NULL, "2c",
            "You passed already; waiting for alice, carol and dave to pass.");
    first_three(t, 0, cmd, sizeof cmd);
    said("alice", NULL, cmd);
    refused("bob", NULL, cmd,
            "You passed already; waiting for carol and dave to pass.");
    first_three(t, 2, cmd, sizeof cmd);
    said("carol", NULL, cmd);
    refused("bob", NULL, "play 3h",
            "You passed already; waiting for dave to pass.");
    refused("alice", NULL, "hand", "waiting for dave");
}

static void test_a_play_before_ones_turn_waits_for_it(void **state)
{
    (void)state;
    four_people("standard pass_count=0");
    struct table *t = the_table();
    const struct engine_game *g = &t->game;
    int lead = engine_turn(g);
    int next = (lead + 1) % 4;
    const char *me = t->seats[next].nick;
    uint64_t legal = legal_after(t, ENGINE_2C);
    uint64_t held = engine_hand(g, next).one;
    int good = __builtin_ctzll(legal);
    char cmd[32];
    /* a card that will not be legal is dropped, with a word */
    if (held & ~legal) {
        snprintf(cmd, sizeof cmd, "play %s",
                 engine_card_name(__builtin_ctzll(held & ~legal)));
        int from = w->fake.n;
        said(me, NULL, cmd);
        assert_true(any_contains(me, from, "at your turn if it is legal"));
        said(t->seats[lead].nick, NULL, "2C");
        assert_int_equal(g->nplays, 1);
        assert_true(any_contains(me, from, "not a legal play now: dropped"));
        assert_true(any_contains(me, from, "Your turn"));
        snprintf(cmd, sizeof cmd, "play %s", engine_card_name(good));
        said(me, NULL, cmd);
    } else {
        /* every card is legal: it is played at once at the turn */
        snprintf(cmd, sizeof cmd, "play %s", engine_card_name(good));
        said(me, NULL, cmd);
        int from = w->fake.n;
        said(t->seats[lead].nick, NULL, "2C");
        assert_int_equal(count_starting(me, from, "Your turn"), 0);
    }
    assert_int_equal(g->nplays, 2);
    assert_int_equal(g->plays[1], good);
    /* the fourth queues a card, takes it back, queues a legal one: it is
     * played at their turn without a prompt */
    int third = (lead + 2) % 4, fourth = (lead + 3) % 4;
    me = t->seats[fourth].nick;
    int from = w->fake.n;
    said(me, NULL, "play none");
    assert_true(any_contains(me, from, "No card was waiting"));
    int card3 = __builtin_ctzll(engine_legal_plays(g));
    int card4 = __builtin_ctzll(legal_after(t, card3));
    snprintf(cmd, sizeof cmd, "play %s", engine_card_name(card4));
    said(me, NULL, cmd);
    said(me, NULL, "play none");
    assert_true(any_contains(me, from, "Taken back"));
    said(me, NULL, cmd);
    said(me, NULL, "hand");
    char shown[MGR_TEXT_SIZE], card_text[MGR_TEXT_SIZE];
    snprintf(
        shown, sizeof shown, "(waiting to play %s",
        mgr_card_text(card_text, sizeof card_text, mgr_look_room(t), card4));
    assert_true(any_contains(me, from, shown));
    snprintf(cmd, sizeof cmd, "play %s", engine_card_name(card3));
    said(t->seats[third].nick, NULL, cmd);
    assert_int_equal(g->trick_no, 1);
    assert_int_equal(g->plays[3], card4);
    /* no prompt during trick 1 (the winner is prompted for trick 2) */
    assert_false(any_contains(me, 0, "Trick 1:"));
}

/* A German player types cards with German letters where they mean one
 * card, and the English codes always; a letter with two meanings gets an
 * answer that says why, in German; English players read no German
 * letters. */
static void test_cards_typed_in_the_players_language(void **state)
{
    (void)state;
    w->cfg.reply_interval = 0;
    four_people("standard pass_count=0");
    struct table *t = the_table();
    const struct engine_game *g = &t->game;
    int lead = engine_turn(g);
    const char *me = t->seats[lead].nick;
    const char *other = t->seats[(lead + 1) % 4].nick;
    said(me, NULL, "lang de");
    /* a spade the leader lacks, in German letters (Bube, Dame, König, Ass;
     * Pik) and in English: refused as not held, so read as that card */
    static const struct {
        const char *german, *english, *shown;
    } spades[] = {{"DP", "QS", "D\xe2\x99\xa0"},
                  {"BP", "JS", "B\xe2\x99\xa0"},
                  {"KP", "KS", "K\xe2\x99\xa0"},
                  {"AP", "AS", "A\xe2\x99\xa0"}};
    int i = lacking_face_spade(t, lead);
    char cmd[32], want[64];
    snprintf(want, sizeof want, "Du hast %s nicht.", spades[i].shown);
    snprintf(cmd, sizeof cmd, "play %s", spades[i].german);
    refused(me, NULL, cmd, want);
    snprintf(cmd, sizeof cmd, "play %s", spades[i].english);
    refused(me, NULL, cmd, want);
    /* a bare card privately is a play, in German letters too */
    refused(me, NULL, spades[i].german, want);
    /* K is Kreuz and Karo: refused, saying why */
    refused(me, NULL, "play DK",
            "\xe2\x80\x9e"
            "DK\xe2\x80\x9c kann mehr als eine Karte sein: K ist hier "
            "\xe2\x99\xa3 oder \xe2\x99\xa6.");
    refused(me, NULL, "DK", "kann mehr als eine Karte sein");
    refused(me, NULL, "pass dk", "K ist hier");
    refused(me, NULL, "play XY", "ist keine Karte");
    /* an English player reads English only */
    snprintf(cmd, sizeof cmd, "play %s", spades[i].german);
    refused(other, NULL, cmd, "is not a card");
    /* the English code plays */
    said(me, NULL, "2C");
    assert_int_equal(g->nplays, 1);
}

/* "You must follow suit" names the suit in the asker's language, not
 * the channel's: everyone chose German in a French channel. */
static void test_follow_suit_names_the_suit_in_the_askers_language(void **state)
{
    (void)state;
    w->cfg.reply_interval = 0;
    free(w->cfg.lang);
    w->cfg.lang = strdup("fr");
    static const char *const nicks[] = {"alice", "bob", "carol", "dave"};
    for (int i = 0; i < 4; i++)
        said(nicks[i], NULL, "lang de");
    four_people("standard pass_count=0");
    struct table *t = the_table();
    const struct engine_game *g = &t->game;
    static const char *const suits[] = {"Kreuz", "Karo", "Herz", "Pik"};
    /* the first turn that may break the rule: the led suit held and
     * another besides */
    for (int plays = 0; plays < 52; plays++) {
        int turn = engine_turn(g);
        assert_true(turn >= 0);
        uint64_t held = engine_hand(g, turn).one;
        if (g->trick_len) {
            int led = engine_card_suit(g->trick[0]);
            uint64_t follow = held & ENGINE_SUIT_MASK(led);
            if (follow && (held & ~follow)) {
                char cmd[32], want[64];
                snprintf(cmd, sizeof cmd, "play %s",
                         engine_card_name(__builtin_ctzll(held & ~follow)));
                snprintf(want, sizeof want, "Du musst Farbe bedienen: %s.",
                         suits[led]);
                refused(t->seats[turn].nick, NULL, cmd, want);
                return;
            }
        }
        play_lowest(t, 1);
    }
    fail_msg("nobody could break the rule in a whole hand");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(
            test_after_passing_the_reply_names_who_is_left, setup, teardown),
        cmocka_unit_test_setup_teardown(test_refusals_change_nothing, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(
            test_a_play_before_ones_turn_waits_for_it, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_cards_typed_in_the_players_language, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_follow_suit_names_the_suit_in_the_askers_language, setup,
            teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
