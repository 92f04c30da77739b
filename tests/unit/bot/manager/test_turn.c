/*
 * Tests of turns, timers, prompts and computer players (bot/manager/turn.c),
 * through the fake adapter of the manager's test world (world.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <string.h>
#include <time.h>

#include "bot/manager/lang.h"
#include "bot/manager/text.h"
#include "engine/ai/ai.h"
#include "tests/unit/bot/manager/world.h"

/* The index of the first channel line that starts with prefix, or -1. */
static int channel_line(const char *prefix)
{
    for (int i = 0; i < w->fake.n; i++)
        if (strcmp(w->fake.lines[i].to, "#h") == 0 &&
            strncmp(w->fake.lines[i].text, prefix, strlen(prefix)) == 0)
            return i;
    return -1;
}

/* Every tracked line to a person is written now (the channel's wait). */
static void people_sent(void)
{
    for (int i = 0; i < w->fake.n; i++) {
        struct fake_chat_line *l = &w->fake.lines[i];
        if (!l->cookie || l->retracted || l->sent || l->to[0] == '#')
            continue;
        l->sent = true;
        struct chat_event ev = {.kind = CHAT_SENT, .cookie = l->cookie};
        manager_on_event(w->m, &w->fake.base, &ev);
    }
}

/* alice with three computers, then she times out until a computer
 * player has her seat. Returns her seat. */
static int alice_walks_away(void)
{
    int me = alice_with_computers();
    struct table *t = the_table();
    w->cfg.max_timeouts = 1;
    for (int i = 0; i < 30 && !t->seats[me].away; i++)
        run_for(100);
    assert_true(t->seats[me].away);
    return me;
}

/* alice and three computers at #h, no passing; she plays until a
 * computer must act, whose decision is then held at the gate. */
static struct table *a_computer_thinks(void)
{
    said("alice", "#h", "!hearts standard pass_count=0");
    said("alice", "#h", "!start");
    struct table *t = the_table();
    for (int guard = 0; guard < 10 && !t->think_id; guard++)
        person_acts(t);
    assert_true(t->think_id != 0);
    struct timespec ms10 = {0, 10 * 1000 * 1000};
    for (int i = 0; i < 300 && !held(); i++)
        nanosleep(&ms10, NULL);
    assert_int_equal(held(), 1);
    return t;
}

/* alice and three computers at #h, no passing, the decisions let
 * through until it is alice's turn: her seat. */
static int alice_to_play(struct table **tp)
{
    said("alice", "#h", "!hearts standard pass_count=0");
    said("alice", "#h", "!start");
    struct table *t = *tp = the_table();
    int me = 0;
    while (!t->seats[me].human)
        me++;
    gate(true);
    for (int i = 0; i < 600 && engine_turn(&t->game) != me; i++)
        run_for(5);
    assert_int_equal(engine_turn(&t->game), me);
    return me;
}

static void test_prompts_tell_the_last_trick_and_the_legal_cards(void **state)
{
    (void)state;
    four_people("standard pass_count=0");
    struct table *t = the_table();
    const struct engine_game *g = &t->game;
    for (int i = 0; i < 4; i++) {
        char cmd[16];
        snprintf(cmd, sizeof cmd, "%s",
                 engine_card_name(__builtin_ctzll(engine_legal_plays(g))));
        said(t->seats[engine_turn(g)].nick, NULL, cmd);
    }
    assert_int_equal(g->trick_no, 1);
    int winner = engine_turn(g);
    int from = w->fake.n - 1;
    const struct fake_chat_line *l = last_to(t->seats[winner].nick, 0);
    assert_non_null(l);
    /* the leader is not told the trick they took: the channel said it */
    if (strncmp(l->text, "Your turn at #h to lead trick 2. ", 33) ||
        !(strstr(l->text, ". Play one of: ") ||
          strstr(l->text, ". Only legal") || strstr(l->text, ". Any card: ")))
        fail_msg("prompt: '%s'", l->text);
    /* the next player sees who led, and the cards to choose from */
    char cmd[16];
    int led = __builtin_ctzll(engine_legal_plays(g));
    snprintf(cmd, sizeof cmd, "%s", engine_card_name(led));
    said(t->seats[winner].nick, NULL, cmd);
    char want[200];
    snprintf(want, sizeof want, "Your turn at #h, trick 2: %s ",
             t->seats[winner].nick);
    l = last_to(t->seats[engine_turn(g)].nick, from);
    assert_non_null(l);
    if (strncmp(l->text, want, strlen(want)))
        fail_msg("prompt: '%s'", l->text);
}

/* The cards of a prompt's "Play one of" / "Only legal" / "Any card" and
 * "Others" parts, each as the engine names it, into *set; how many. */
static int prompt_cards(const char *text, struct engine_cards *set)
{
    memset(set, 0, sizeof *set);
    int n = 0;
    const char *heads[] = {
        "Play one of: ", "Only legal: ", "Any card: ", "Others: "};
    for (int h = 0; h < 4; h++) {
        const char *p = strstr(text, heads[h]);
        if (!p)
            continue;
        p += strlen(heads[h]);
        const char *end = strchr(p, '.');
        int suit = -1;
        while (p < end) {
            if (*p == ' ') {
                p++;
                continue;
            }
            size_t len = strcspn(p, " .");
            int card;
            if (engine_card_parse(p, len, &card) == 0) {
                set->one |= ENGINE_BIT(card);
                n++;
            } else if (len == 3) { /* a suit's symbol: its ranks follow */
                char word[16];
                snprintf(word, sizeof word, "2%.*s", (int)len, p);
                assert_int_equal(engine_card_parse(word, strlen(word), &card),
                                 0);
                suit = engine_card_suit(card);
            } else {
                char word[16];
                snprintf(word, sizeof word, "%.*s%s", (int)len, p,
                         suit == ENGINE_CLUBS      ? "C"
                         : suit == ENGINE_DIAMONDS ? "D"
                         : suit == ENGINE_HEARTS   ? "H"
                                                   : "S");
                assert_int_equal(engine_card_parse(word, strlen(word), &card),
                                 0);
                set->one |= ENGINE_BIT(card);
                n++;
            }
            p += len;
        }
    }
    return n;
}

/* Code points of a text (every card symbol is one column). */
static int columns(const char *text)
{
    int n = 0;
    for (const unsigned char *p = (const unsigned char *)text; *p; p++)
        n += (*p & 0xC0) != 0x80;
    return n;
}

static void test_a_prompt_lists_each_card_once_in_two_lines(void **state)
{
    (void)state;
    four_people("standard pass_count=0");
    struct table *t = the_table();
    const struct engine_game *g = &t->game;
    int prompts = 0, any = 0;
    for (int guard = 0; guard < 52 && g->hand_no == 1; guard++) {
        int s = engine_turn(g);
        if (s < 0)
            break;
        const struct fake_chat_line *l = last_to(t->seats[s].nick, 0);
        assert_non_null(l);
        if (strstr(l->text, "Your turn at #h")) {
            /* the whole hand, each card once, the legal ones first */
            struct engine_cards hand = engine_hand(g, s), seen;
            int n = prompt_cards(l->text, &seen);
            if (n != engine_cards_count(&hand) || seen.one != hand.one)
                fail_msg("prompt: '%s'", l->text);
            assert_null(strstr(l->text, "Your hand"));
            uint64_t legal = engine_legal_plays(g);
            if (legal == hand.one) {
                assert_non_null(strstr(l->text, " Any card: "));
                any++;
            }
            /* two lines of an 80-column client, with four short names */
            if (columns(l->text) > 160)
                fail_msg("%d columns: '%s'", columns(l->text), l->text);
            prompts++;
        }
        char cmd[16];
        snprintf(cmd, sizeof cmd, "%s",
                 engine_card_name(__builtin_ctzll(engine_legal_plays(g))));
        said(t->seats[s].nick, NULL, cmd);
    }
    assert_true(prompts >= 40);
    assert_true(any > 0);
}

static void test_a_turn_is_prompted_once(void **state)
{
    (void)state;
    four_people("standard pass_count=0");
    struct table *t = the_table();
    int turn = engine_turn(&t->game);
    const char *me = t->seats[turn].nick;
    const char *other = t->seats[(turn + 1) % 4].nick;
    assert_int_equal(count_starting(me, 0, "Your turn"), 1);
    /* another player leaves: the game goes on, nobody is prompted anew */
    char cmd[64];
    snprintf(cmd, sizeof cmd, "!leave");
    said(other, "#h", cmd);
    /* the bot's connection drops and comes back */
    event(CHAT_DISCONNECTED, NULL, NULL, NULL, NULL);
    event(CHAT_CONNECTED, NULL, NULL, NULL, NULL);
    assert_int_equal(count_starting(me, 0, "Your turn"), 1);
    /* the player quits the network and comes back: prompted again, they
     * may have missed it */
    char id[128];
    snprintf(id, sizeof id, "%s@host.test", me);
    event(CHAT_QUIT, me, id, NULL, NULL);
    event(CHAT_JOIN, me, id, "#h", NULL);
    assert_int_equal(count_starting(me, 0, "Your turn"), 2);
}

static void test_autoplay_plays_the_last_card(void **state)
{
    (void)state;
    w->cfg.next_hand_delay = 60; /* the next hand waits */
    four_people("standard pass_count=0");
    struct table *t = the_table();
    const char *off = t->seats[2].nick;
    said(off, NULL, "autoplay off");
    assert_true(any_contains(off, 0, "Autoplay off: I always ask you"));
    /* twelve tricks; the thirteenth plays itself but for the one who
     * asked to be asked */
    play_lowest(t, 48);
    assert_int_equal(t->game.trick_no, 12);
    assert_int_equal(engine_turn(&t->game), 2);
    assert_int_equal(t->game.trick_len, (2 - t->game.leader + 4) % 4);
    assert_int_equal(count_starting(off, 0, "Your turn"), 13);
    for (int s = 0; s < 4; s++)
        if (s != 2)
            assert_int_equal(count_starting(t->seats[s].nick, 0, "Your turn"),
                             12);
    play_lowest(t, 1);
    /* the hand is over (or waits for a moon choice) */
    assert_int_equal(t->game.trick_no, 13);
    assert_int_not_equal(engine_phase(&t->game), ENGINE_PHASE_PLAY);
    /* "hand" until the next deal says so, not an empty hand; a shooter
     * hears the moon question again */
    int from = w->fake.n;
    for (int s = 0; s < 4; s++) {
        bool shooter = engine_phase(&t->game) == ENGINE_PHASE_MOON &&
                       engine_may_act(&t->game, s);
        said(t->seats[s].nick, NULL, "hand");
        assert_true(any_contains(t->seats[s].nick, from,
                                 shooter ? "you shot the moon. Tell me "
                                           "\"moon subtract\" or \"moon add\""
                                         : "You hold no cards until the next "
                                           "deal."));
    }
    if (engine_phase(&t->game) == ENGINE_PHASE_MOON) {
        said(t->seats[engine_turn(&t->game)].nick, NULL, "moon add");
        from = w->fake.n;
        said(t->seats[0].nick, NULL, "hand");
        assert_true(any_contains(t->seats[0].nick, from,
                                 "You hold no cards until the next deal."));
    }
    assert_int_equal(engine_phase(&t->game), ENGINE_PHASE_DEAL);
}

static void test_autoplay_on_plays_forced_cards(void **state)
{
    (void)state;
    static const char *const people[] = {"alice", "bob", "carol", "dave"};
    said("alice", "#h", "!hearts standard pass_count=0");
    for (int i = 0; i < 4; i++) {
        if (i)
            said(people[i], "#h", "!join");
        said(people[i], NULL, "autoplay on");
    }
    assert_true(any_contains("dave", 0, "Autoplay on: "));
    said("alice", "#h", "!start");
    struct table *t = the_table();
    /* whoever holds the 2C has led it without a prompt */
    assert_int_equal(t->game.plays[0], ENGINE_2C);
    for (int s = 0; s < 4; s++) {
        if (t->game.plays[0] != ENGINE_2C || t->game.play_seat[0] != s)
            continue;
        assert_false(any_contains(t->seats[s].nick, 0, "lead trick 1."));
        assert_true(any_contains(t->seats[s].nick, 0,
                                 "Autoplay: 2♣, your only legal card."));
    }
    assert_true(t->game.nplays >= 1);
}

static void test_timeout_computer_acts_then_back(void **state)
{
    (void)state;
    /* one person and three computers; the hand's end then waits, so the
     * table outlives the person's absence */
    w->cfg.next_hand_delay = 60;
    said("alice", "#h", "!hearts standard pass_count=0");
    said("alice", "#h", "!start");
    struct table *t = the_table();
    int turn = 0;
    while (turn < 4 && !t->seats[turn].human)
        turn++;
    const char *nick = t->seats[turn].nick;
    for (int i = 0; i < 50 && engine_turn(&t->game) != turn; i++)
        run_for(20);
    assert_int_equal(engine_turn(&t->game), turn);
    int before = t->game.nplays;
    int from = w->fake.n;
    run_for(700); /* past the reminder at half time */
    assert_true(any_contains(nick, 0, "Reminder"));
    /* and the channel hears once whom the table waits for */
    char want[2200];
    snprintf(want, sizeof want, "The table waits for %s (", nick);
    assert_int_equal(count_starting("#h", from, want), 1);
    assert_int_equal(t->game.nplays, before);
    run_for(600); /* past the timeout */
    assert_true(t->game.nplays > before);
    /* what was played for them, by name */
    char card[MGR_TEXT_SIZE];
    mgr_card_text(card, sizeof card, mgr_look_room(t), t->game.plays[before]);
    snprintf(want, sizeof want,
             "Time is up: a computer player played %s "
             "for you.",
             card);
    assert_true(any_contains(nick, 0, want));
    assert_false(t->seats[turn].away);
    /* max_timeouts=2: let the seat time out until it is handed over */
    for (int i = 0; i < 20 && !t->seats[turn].away; i++)
        run_for(1100);
    assert_true(t->seats[turn].away);
    assert_true(any_contains("#h", 0, "is away"));
    said(nick, NULL, "back");
    assert_false(t->seats[turn].away);
    assert_true(any_contains("#h", 0, "is back"));
}

/* The turn timer starts when the prompt has been written, not when it was
 * queued: a person behind a backlog gets the whole turn_timeout. */
static void test_turn_timer_starts_when_prompt_sent(void **state)
{
    (void)state;
    fake_chat_set_kind(&w->fake, FAKE_CHAT_IRC);
    four_people("standard pass_count=0");
    struct table *t = the_table();
    int turn = engine_turn(&t->game);
    const char *nick = t->seats[turn].nick;
    assert_true(any_contains(nick, 0, "Your turn"));
    const struct fake_chat_line *prompt = last_to(nick, 0);
    assert_true(prompt && prompt->cookie != 0);
    /* the prompt waits in the adapter's queue: no reminder, no timeout */
    run_for(1300);
    assert_false(any_contains(nick, 0, "Reminder"));
    assert_int_equal(t->game.nplays, 0);
    /* someone else's line leaving changes nothing */
    struct chat_event other = {.kind = CHAT_SENT, .cookie = 999999};
    manager_on_event(w->m, &w->fake.base, &other);
    run_for(600);
    assert_int_equal(t->game.nplays, 0);
    /* it leaves: the whole turn from now */
    all_sent(0);
    run_for(700);
    assert_true(any_contains(nick, 0, "Reminder"));
    assert_int_equal(t->game.nplays, 0);
    run_for(500);
    assert_true(t->game.nplays >= 1);
}

/* The next hand's deal never overtakes the last hand's channel lines
 * (its last trick, its scores): the deal waits until they are written. */
static void test_next_deal_waits_for_the_channel(void **state)
{
    (void)state;
    fake_chat_set_kind(&w->fake, FAKE_CHAT_IRC);
    four_people("standard pass_count=0 hands=2");
    struct table *t = the_table();
    play_everything(t); /* stops at the deal: it waits */
    assert_int_equal(engine_phase(&t->game), ENGINE_PHASE_DEAL);
    assert_int_equal(t->game.hand_no, 1);
    assert_true(any_contains("#h", 0, "Hand 1 scores"));
    /* the channel's lines go out (not the deals'): then the deal comes */
    int from = w->fake.n;
    for (int i = 0; i < w->fake.n; i++) {
        if (w->fake.lines[i].to[0] != '#' || !w->fake.lines[i].cookie)
            continue;
        struct chat_event ev = {.kind = CHAT_SENT,
                                .cookie = w->fake.lines[i].cookie};
        manager_on_event(w->m, &w->fake.base, &ev);
    }
    run_for(5);
    assert_int_equal(t->game.hand_no, 2);
    assert_true(any_contains(t->seats[0].nick, from, "Hand 2 at #h"));
}

/* The channel is never behind the game: while trick 1's line waits,
 * nobody is prompted for trick 2 (and no turn timer runs); once it is
 * written the game goes on. */
static void test_trick_waits_for_the_channel(void **state)
{
    (void)state;
    fake_chat_set_kind(&w->fake, FAKE_CHAT_IRC);
    four_people("standard pass_count=0");
    struct table *t = the_table();
    /* the people get every private line at once, the channel none */
    for (int guard = 0; guard < 100 && !t->trick_deferred; guard++) {
        people_sent();
        int turn = engine_turn(&t->game);
        assert_true(turn >= 0);
        assert_true(any_contains(t->seats[turn].nick, 0, "Your turn"));
        person_acts(t);
    }
    assert_true(t->trick_deferred);
    assert_int_equal(t->game.nplays, 4);
    int turn = engine_turn(&t->game);
    const char *leader = t->seats[turn].nick;
    assert_false(any_contains(leader, 0, "lead trick 2"));
    /* no turn timer: nobody is timed out while the channel catches up */
    run_for(3000); /* three turn timeouts (setup: 1 s) */
    assert_int_equal(t->game.nplays, 4);
    assert_false(any_contains("#h", 0, "Time is up"));
    int trick1 = channel_line("Trick 1:");
    assert_true(trick1 >= 0);
    /* another line leaving changes nothing */
    struct chat_event other = {.kind = CHAT_SENT, .cookie = 999999};
    manager_on_event(w->m, &w->fake.base, &other);
    assert_true(t->trick_deferred);
    /* trick 1's line goes out: trick 2 begins */
    struct chat_event ev = {.kind = CHAT_SENT,
                            .cookie = w->fake.lines[trick1].cookie};
    manager_on_event(w->m, &w->fake.base, &ev);
    assert_false(t->trick_deferred);
    assert_true(any_contains(leader, 0, "lead trick 2"));
}

/* Where each message costs a slot (a rate-limited homeserver) the
 * channel may fall one trick behind, no more: trick 2 begins while trick
 * 1's line waits, trick 3 waits for it. */
static void test_trick_lags_one_where_messages_are_scarce(void **state)
{
    (void)state;
    fake_chat_set_kind(&w->fake, FAKE_CHAT_MATRIX_LIMITED);
    four_people("standard pass_count=0");
    struct table *t = the_table();
    for (int guard = 0; guard < 100 && !t->trick_deferred; guard++) {
        people_sent();
        assert_true(engine_turn(&t->game) >= 0);
        person_acts(t);
    }
    assert_true(t->trick_deferred);
    assert_int_equal(t->game.nplays, 8); /* two tricks, not one */
    int trick1 = channel_line("Trick 1:");
    assert_true(trick1 >= 0);
    struct chat_event ev = {.kind = CHAT_SENT,
                            .cookie = w->fake.lines[trick1].cookie};
    manager_on_event(w->m, &w->fake.base, &ev);
    assert_false(t->trick_deferred);
    int turn = engine_turn(&t->game);
    assert_true(any_contains(t->seats[turn].nick, 0, "lead trick 3"));
}

/* A prompt that never leaves (the link dropped with it in the queue, or
 * its person left) does not hold the turn timer forever. */
static void test_turn_timer_runs_when_the_prompt_is_lost(void **state)
{
    (void)state;
    fake_chat_set_kind(&w->fake, FAKE_CHAT_IRC);
    w->cfg.grace_period = 60;
    four_people("standard pass_count=0");
    struct table *t = the_table();
    int turn = engine_turn(&t->game);
    char nick[64], id[128];
    snprintf(nick, sizeof nick, "%s", t->seats[turn].nick);
    snprintf(id, sizeof id, "%s@host.test", nick);
    /* its person quits with the prompt still queued: a computer plays
     * for them at the timeout */
    event(CHAT_QUIT, nick, id, NULL, NULL);
    run_for(1200);
    assert_true(t->game.nplays >= 1);
    /* the next person's prompt is lost with the link; back online, the
     * adapter confirms them and the turn timer runs */
    turn = engine_turn(&t->game);
    assert_true(t->seats[turn].human && !t->seats[turn].gone);
    int plays = t->game.nplays;
    event(CHAT_DISCONNECTED, NULL, NULL, NULL, NULL);
    event(CHAT_CONNECTED, NULL, NULL, NULL, NULL);
    for (int s = 0; s < 4; s++) {
        char sid[128];
        snprintf(sid, sizeof sid, "%s@host.test", t->seats[s].nick);
        if (!t->seats[s].gone)
            identity(t->seats[s].nick, sid);
    }
    run_for(1200);
    assert_true(t->game.nplays > plays);
}

static void test_walk_away_table_pauses_then_ends(void **state)
{
    (void)state;
    w->cfg.unattended_end = 1;
    alice_walks_away();
    struct table *t = the_table();
    assert_true(any_contains("#h", 0, "the game pauses"));
    int plays = t->game.nplays, hand = t->game.hand_no;
    run_for(600);
    assert_int_equal(t->game.nplays, plays);
    assert_int_equal(t->game.hand_no, hand);
    assert_non_null(the_table());
    run_for(600);
    assert_null(the_table());
    assert_true(any_contains("#h", 0, "Nobody came back"));
}

/* A person whose second timeout pauses the game (nobody else is seated)
 * hears it privately, where they would say "back": no computer acted for
 * them to tell them they timed out. Someone else away is told too. */
static void test_a_pause_by_timeouts_is_told_to_the_person(void **state)
{
    (void)state;
    w->cfg.max_timeouts = 2;
    int me = alice_with_computers();
    struct table *t = the_table();
    for (int i = 0; i < 60 && !t->paused; i++)
        run_for(100);
    assert_true(t->paused && t->seats[me].away);
    assert_true(any_contains("#h", 0, "the game pauses"));
    const struct fake_chat_line *l = last_to("alice", 0);
    assert_non_null(l);
    assert_string_equal(l->text,
                        "You timed out again and nobody else is at the table "
                        "at #h, so the game pauses. Tell me \"back\" to go "
                        "on; it ends in 10 minutes otherwise.");
    assert_int_equal(l->prio, CHAT_HIGH);
    int from = w->fake.n;
    said("alice", NULL, "back");
    assert_false(t->paused);
    assert_true(any_contains("#h", from, "The game goes on"));
}

static void test_walk_away_table_resumes_on_back(void **state)
{
    (void)state;
    alice_walks_away();
    struct table *t = the_table();
    int plays = t->game.nplays;
    run_for(300);
    assert_int_equal(t->game.nplays, plays);
    int from = w->fake.n;
    said("alice", NULL, "back");
    assert_true(any_contains("#h", from, "The game goes on"));
    assert_false(t->paused);
    /* and the game moves: alice is prompted, or computers played */
    assert_true(t->game.nplays > plays || any_contains("alice", from, "turn"));
}

static void test_computers_alone_never_deal_a_new_hand(void **state)
{
    (void)state;
    w->cfg.unattended_pause = 3600;
    int me = alice_walks_away();
    struct table *t = the_table();
    (void)me;
    /* the computers finish the hand, and stop before the next */
    for (int i = 0; i < 20 && !t->paused; i++)
        run_for(20);
    assert_true(t->paused);
    assert_int_equal(t->game.hand_no, 1);
    assert_int_equal(engine_phase(&t->game), ENGINE_PHASE_DEAL);
}

static void test_everyone_gone_pauses_and_a_return_resumes(void **state)
{
    (void)state;
    w->cfg.grace_period = 60;
    said("alice", "#h", "!hearts standard pass_count=0");
    said("alice", "#h", "!start");
    struct table *t = the_table();
    event(CHAT_PART, "alice", "alice@host.test", "#h", NULL);
    /* at the next step (her turn timing out, or a deal) the table waits */
    for (int i = 0; i < 30 && !t->paused; i++)
        run_for(100);
    assert_true(t->paused);
    assert_false(t->seats[0].away || t->seats[1].away || t->seats[2].away ||
                 t->seats[3].away);
    event(CHAT_JOIN, "alice", "alice@host.test", "#h", NULL);
    assert_false(t->paused);
    assert_true(any_contains("#h", 0, "The game goes on"));
}

static void test_a_thinking_table_does_not_delay_another(void **state)
{
    (void)state;
    struct table *t = a_computer_thinks();
    int plays = t->game.nplays;
    /* while the decision is under way, another room is answered at once */
    int from = w->fake.n;
    said("bob", "#g", "!hearts");
    assert_true(any_contains("#g", from, "opens a Hearts table"));
    assert_int_equal(held(), 1);
    assert_int_equal(t->game.nplays, plays);
    /* and bob's table's own commands too */
    from = w->fake.n;
    said("carol", "#g", "!join");
    assert_true(any_contains("#g", from, "carol"));
    assert_int_equal(held(), 1);
    /* the decision back, the computer plays */
    gate(true);
    until_thought(t);
    assert_true(t->game.nplays > plays);
}

static void test_a_decision_for_a_changed_game_is_dropped(void **state)
{
    (void)state;
    /* alice's time runs out; while the computer thinks for her, she plays
     * herself: hers stands, the computer's is dropped, nothing is told */
    struct table *t;
    int me = alice_to_play(&t);
    gate(false);
    int plays = t->game.nplays;
    run_for(1100); /* past turn_timeout: a computer thinks for alice */
    assert_true(t->think_id != 0);
    assert_int_equal(t->think_seat, me);
    int card = __builtin_ctzll(engine_legal_plays(&t->game));
    said("alice", NULL, engine_card_name(card));
    assert_int_equal(t->game.nplays, plays + 1);
    assert_int_equal(t->game.plays[plays], card);
    gate(true);
    until_thought(t);
    run_for(20);
    assert_false(any_contains("alice", 0, "Time is up"));
    assert_int_equal(t->game.plays[plays], card);
    assert_int_equal(t->game.play_seat[plays], me);
    assert_int_equal(t->seats[me].overdue, SEAT_ON_TIME);
}

static void test_a_decision_for_a_timed_out_person_is_told(void **state)
{
    (void)state;
    struct table *t;
    int me = alice_to_play(&t);
    int plays = t->game.nplays;
    for (int i = 0; i < 400 && t->game.nplays == plays; i++)
        run_for(5);
    assert_true(t->game.nplays > plays);
    assert_int_equal(t->game.play_seat[plays], me);
    char card[MGR_TEXT_SIZE];
    mgr_card_text(card, sizeof card, mgr_look_room(t), t->game.plays[plays]);
    char want[2200];
    snprintf(want, sizeof want,
             "Time is up: a computer player played %s for you.", card);
    assert_true(any_contains("alice", 0, want));
}

static void test_back_while_a_computer_thinks_for_one(void **state)
{
    (void)state;
    w->cfg.unattended_pause = 60; /* alice away: the computers go on */
    struct table *t;
    int me = alice_to_play(&t);
    run_for(1100); /* the first timeout: a computer plays for her */
    until_thought(t);
    for (int i = 0; i < 600 && engine_turn(&t->game) != me; i++)
        run_for(5);
    assert_int_equal(engine_turn(&t->game), me);
    gate(false);
    int plays = t->game.nplays;
    run_for(1100); /* the second: the seat goes to a computer */
    assert_true(t->seats[me].away);
    assert_true(t->think_id != 0);
    int from = w->fake.n;
    said("alice", NULL, "back");
    assert_false(t->seats[me].away);
    /* the decision under way is dropped: it is her turn again */
    gate(true);
    until_thought(t);
    run_for(20);
    assert_int_equal(t->game.nplays, plays);
    assert_int_equal(engine_turn(&t->game), me);
    assert_false(any_contains("alice", from, "You timed out again"));
    assert_true(t->turn_timer != 0); /* her time runs again */
    assert_true(any_contains("alice", from, "Your turn at "));
}

static void test_a_levels_playouts_reach_its_decisions(void **state)
{
    (void)state;
    /* the search levels are another branch's (issue 11): until they are
     * in, there is no level to configure */
    if (ai_level_find("hard") < 0)
        skip();
    w->cfg.playouts[AI_HARD] = 123;
    __atomic_store_n(&last_budget, -1, __ATOMIC_RELAXED);
    gate(true);
    said("alice", "#h", "!hearts standard pass_count=0");
    said("alice", "#h", "!bot 3 hard");
    said("alice", "#h", "!start");
    struct table *t = the_table();
    for (int i = 0;
         i < 600 && __atomic_load_n(&last_budget, __ATOMIC_RELAXED) < 0; i++) {
        if (!t->think_id) /* alice leads */
            person_acts(t);
        run_for(5);
    }
    assert_int_equal(__atomic_load_n(&last_budget, __ATOMIC_RELAXED), 123);
}

/* The computer players are told each computer seat's level's rating,
 * and nothing of a person's (ai_table). */
static void test_decisions_are_told_the_levels_ratings(void **state)
{
    (void)state;
    gate(true);
    said("alice", "#h", "!hearts partners pass_count=0");
    said("alice", "#h", "!bot 1 easy");
    said("alice", "#h", "!bot 2 hard");
    said("alice", "#h", "!start");
    struct table *t = the_table();
    __atomic_store_n(&last_budget, -1, __ATOMIC_RELAXED);
    for (int i = 0;
         i < 600 && __atomic_load_n(&last_budget, __ATOMIC_RELAXED) < 0; i++) {
        if (!t->think_id)
            person_acts(t);
        run_for(5);
    }
    assert_true(__atomic_load_n(&last_budget, __ATOMIC_RELAXED) >= 0);
    struct ai_table told = last_job_table();
    int hards = 0, easies = 0;
    for (int s = 0; s < 4; s++) {
        if (t->seats[s].human) {
            assert_int_equal(told.rating[s], 0);
            continue;
        }
        assert_int_equal(told.rating[s],
                         ai_level_rating(t->seats[s].level, NULL));
        hards += t->seats[s].level == AI_HARD;
        easies += t->seats[s].level == AI_EASY;
    }
    assert_int_equal(hards, 2);
    assert_int_equal(easies, 1);
    assert_true(ai_level_rating(AI_HARD, NULL) > 0);
    assert_int_equal(told.rating[seat_of_nick(t, "alice")], 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(
            test_prompts_tell_the_last_trick_and_the_legal_cards, setup,
            teardown),
        cmocka_unit_test_setup_teardown(
            test_a_prompt_lists_each_card_once_in_two_lines, setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_turn_is_prompted_once, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_autoplay_plays_the_last_card,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_autoplay_on_plays_forced_cards,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_timeout_computer_acts_then_back,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_turn_timer_runs_when_the_prompt_is_lost, setup, teardown),
        cmocka_unit_test_setup_teardown(test_next_deal_waits_for_the_channel,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_trick_lags_one_where_messages_are_scarce, setup, teardown),
        cmocka_unit_test_setup_teardown(test_trick_waits_for_the_channel, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_turn_timer_starts_when_prompt_sent,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_a_pause_by_timeouts_is_told_to_the_person, setup, teardown),
        cmocka_unit_test_setup_teardown(test_walk_away_table_pauses_then_ends,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_walk_away_table_resumes_on_back,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_computers_alone_never_deal_a_new_hand, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_everyone_gone_pauses_and_a_return_resumes, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_a_thinking_table_does_not_delay_another, setup_thinking,
            teardown_thinking),
        cmocka_unit_test_setup_teardown(
            test_a_decision_for_a_changed_game_is_dropped, setup_thinking,
            teardown_thinking),
        cmocka_unit_test_setup_teardown(
            test_a_decision_for_a_timed_out_person_is_told, setup_thinking,
            teardown_thinking),
        cmocka_unit_test_setup_teardown(
            test_a_levels_playouts_reach_its_decisions, setup_thinking,
            teardown_thinking),
        cmocka_unit_test_setup_teardown(
            test_back_while_a_computer_thinks_for_one, setup_thinking,
            teardown_thinking),
        cmocka_unit_test_setup_teardown(
            test_decisions_are_told_the_levels_ratings, setup_thinking,
            teardown_thinking),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
