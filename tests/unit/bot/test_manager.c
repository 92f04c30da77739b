/*
 * Tests of the game manager (bot/manager.c, bot/commands.c) through a fake
 * adapter that records everything the bot says: the commands of
 * shared/spec/chat.md, every refusal (one private reply, nothing changed),
 * secrets reaching only their owner, nick changes and takeovers, turn
 * timeouts and "back", and a whole game whose record replays.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "manager.h"
#include "record.h"
#include "table.h"

#define MAX_LINES 4096

struct line {
    char to[64]; /* room, or the nick told */
    bool private_;
    enum chat_priority prio;
    char text[2100];
};

struct fake {
    struct chat_adapter base;
    bool busy; /* the out-queue holds lines */
    int n;
    struct line lines[MAX_LINES];
};

static void fake_say(struct chat_adapter *a, const char *room, const char *text,
                     enum chat_priority p)
{
    struct fake *f = (struct fake *)a;
    if (f->n == MAX_LINES)
        return;
    struct line *l = &f->lines[f->n++];
    l->prio = p;
    snprintf(l->to, sizeof l->to, "%s", room);
    l->private_ = false;
    snprintf(l->text, sizeof l->text, "%s", text);
}

static void fake_tell(struct chat_adapter *a, const char *nick,
                      const char *text, enum chat_priority p)
{
    fake_say(a, nick, text, p);
    ((struct fake *)a)->lines[((struct fake *)a)->n - 1].private_ = true;
}

static bool fake_same(const struct chat_adapter *a, const char *x,
                      const char *y)
{
    (void)a;
    return strcasecmp(x, y) == 0;
}

static bool fake_idle(const struct chat_adapter *a)
{
    return !((const struct fake *)a)->busy;
}

static int fake_start(struct chat_adapter *a)
{
    (void)a;
    return 0;
}

static void fake_stop(struct chat_adapter *a, const char *g)
{
    (void)a;
    (void)g;
}

static void fake_free(struct chat_adapter *a)
{
    (void)a;
}

static const struct chat_adapter_ops fake_ops = {
    fake_start, fake_stop, fake_say, fake_tell,
    fake_same,  fake_idle, fake_free};

struct world {
    struct loop *loop;
    struct config cfg;
    struct manager *m;
    struct fake fake;
    char dir[64];
};

static struct world *w;

static int setup(void **state)
{
    (void)state;
    w = calloc(1, sizeof *w);
    char err[200];
    assert_int_equal(config_parse("", 0, "test", &w->cfg, err, sizeof err), 0);
    snprintf(w->dir, sizeof w->dir, "/tmp/hearts-test-XXXXXX");
    assert_non_null(mkdtemp(w->dir));
    free(w->cfg.data_dir);
    w->cfg.data_dir = strdup(w->dir);
    w->cfg.turn_timeout = 1;
    w->cfg.max_timeouts = 2;
    w->cfg.next_hand_delay = 0;
    w->cfg.grace_period = 1;
    w->loop = loop_new();
    w->m = manager_new(w->loop, &w->cfg);
    w->fake.base.ops = &fake_ops;
    w->fake.base.network = "test";
    w->fake.base.style = CHAT_STYLE_PLAIN;
    w->fake.base.on_event = manager_on_event;
    w->fake.base.ctx = w->m;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    manager_free(w->m);
    loop_free(w->loop);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", w->dir);
    if (system(cmd)) {
        /* best effort */
    }
    config_free(&w->cfg);
    free(w);
    return 0;
}

/* ---- Driving the manager ---------------------------------------------- */

static char idbuf[128];

static struct chat_user user(const char *nick)
{
    snprintf(idbuf, sizeof idbuf, "%s@host.test", nick);
    struct chat_user u = {.nick = nick, .id = idbuf};
    return u;
}

static void said(const char *nick, const char *room, const char *text)
{
    struct chat_event ev = {
        .kind = CHAT_MESSAGE, .room = room, .from = user(nick), .text = text};
    manager_on_event(w->m, &w->fake.base, &ev);
}

static void event(enum chat_event_kind k, const char *nick, const char *id,
                  const char *room, const char *target)
{
    struct chat_event ev = {.kind = k,
                            .room = room,
                            .from = {.nick = nick, .id = id},
                            .target = target};
    manager_on_event(w->m, &w->fake.base, &ev);
}

/* Runs the loop for `ms` milliseconds (timers fire). */
static void stop_loop(struct loop *l, void *ctx)
{
    (void)ctx;
    loop_stop(l);
}

static void run_for(int64_t ms)
{
    loop_timer(w->loop, ms, stop_loop, NULL);
    loop_run(w->loop);
}

/* The last line told to nick (or said in a room) since index `from`. */
static const struct line *last_to(const char *to, int from)
{
    for (int i = w->fake.n - 1; i >= from; i--)
        if (strcasecmp(w->fake.lines[i].to, to) == 0)
            return &w->fake.lines[i];
    return NULL;
}

static bool any_contains(const char *to, int from, const char *needle)
{
    for (int i = from; i < w->fake.n; i++)
        if (strcasecmp(w->fake.lines[i].to, to) == 0 &&
            strstr(w->fake.lines[i].text, needle))
            return true;
    return false;
}

static struct table *the_table(void)
{
    return table_find(w->m, &w->fake.base, "#h");
}

/* Asserts a command gets one private reply containing needle and leaves
 * the game unchanged. */
static void refused(const char *nick, const char *room, const char *text,
                    const char *needle)
{
    struct table *t = the_table();
    struct engine_game before;
    if (t)
        before = t->game;
    int from = w->fake.n;
    said(nick, room, text);
    assert_int_equal(w->fake.n, from + 1);
    const struct line *l = &w->fake.lines[from];
    if (!l->private_ || strcasecmp(l->to, nick) != 0 ||
        !strstr(l->text, needle))
        fail_msg("'%s': want a private reply to %s with '%s', got %s '%s'",
                 text, nick, needle, l->private_ ? "private" : "public",
                 l->text);
    if (t && memcmp(&before, &t->game, sizeof before))
        fail_msg("'%s' changed the game", text);
}

/* alice opens a 4-player table and three humans sit: a game of people. */
static void four_people(const char *rules)
{
    char cmd[200];
    snprintf(cmd, sizeof cmd, "!hearts %s", rules);
    said("alice", "#h", cmd);
    said("bob", "#h", "!join");
    said("carol", "#h", "!join");
    said("dave", "#h", "!join");
    said("alice", "#h", "!start");
    assert_true(the_table()->playing);
}

/* The cards of a seat as "QS" words. */
static void card_words(const struct engine_cards *h, uint64_t only, char *out,
                       size_t len)
{
    out[0] = '\0';
    size_t pos = 0;
    for (int c = 0; c < 64; c++)
        if ((h->one & only) >> c & 1)
            pos += (size_t)snprintf(out + pos, len - pos, "%s%s",
                                    pos ? " " : "", engine_card_name(c));
}

/* ---- Tests ------------------------------------------------------------ */

static void test_hearts_opens_and_join_fills(void **state)
{
    (void)state;
    said("alice", "#h", "!hearts omnibus");
    assert_non_null(the_table());
    assert_true(any_contains("#h", 0, "alice opens a Hearts table: omnibus"));
    said("bob", "#h", "!join");
    assert_true(any_contains("#h", 0, "bob sits down (2/4)"));
    refused("bob", "#h", "!join", "seated here already");
    refused("bob", "#h", "!start", "Only alice");
    said("bob", "#h", "!bot 2");
    assert_true(any_contains("#h", 0, "2 computer players (easy) sit down"));
    refused("erin", "#h", "!join", "full");
    /* one seat per person per network */
    refused("bob", "#other", "!hearts", "in #h already");
    said("bob", "#h", "!leave");
    assert_true(any_contains("#h", 0, "bob stands up (3/4)"));
}

static void test_hearts_refuses_bad_rules_with_nearest(void **state)
{
    (void)state;
    refused("alice", "#h", "!hearts omnibuss", "did you mean 'omnibus'");
    assert_null(the_table());
    refused("alice", "#h", "!hearts standard tagret=5", "'target'");
    refused("alice", "#h", "!hearts partners players=5", "for 4 players");
    assert_null(the_table());
}

static void test_commands_without_a_table(void **state)
{
    (void)state;
    refused("alice", "#h", "!join", "No table here");
    refused("alice", "#h", "!start", "No table here");
    refused("alice", NULL, "play QS", "not at a table");
    refused("alice", NULL, "hand", "not at a table");
    refused("alice", NULL, "xyzzy", "I don't know");
    /* others' commands in a channel are left alone */
    int from = w->fake.n;
    said("alice", "#h", "!weather");
    said("alice", "#h", "hello everyone");
    assert_int_equal(w->fake.n, from);
}

static void test_hands_reach_only_their_owner(void **state)
{
    (void)state;
    four_people("standard");
    struct table *t = the_table();
    const char *nicks[4];
    for (int s = 0; s < 4; s++)
        nicks[s] = t->seats[s].nick;
    for (int s = 0; s < 4; s++) {
        const struct line *l = last_to(nicks[s], 0);
        assert_non_null(l);
        assert_true(l->private_);
        assert_non_null(strstr(l->text, "Your cards"));
    }
    /* no channel line shows a card: none has been played yet */
    for (int i = 0; i < w->fake.n; i++) {
        if (w->fake.lines[i].private_)
            continue;
        assert_null(strstr(w->fake.lines[i].text, "Your cards:"));
        for (const char *sym = "♣♦♥♠"; *sym; sym += 3) {
            char s3[4] = {sym[0], sym[1], sym[2], 0};
            assert_null(strstr(w->fake.lines[i].text, s3));
        }
    }
    /* and every private line went to its own seat's nick */
    for (int i = 0; i < w->fake.n; i++) {
        if (!w->fake.lines[i].private_)
            continue;
        bool seated = false;
        for (int s = 0; s < 4; s++)
            seated |= strcasecmp(w->fake.lines[i].to, nicks[s]) == 0;
        assert_true(seated);
    }
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
    /* not your turn */
    snprintf(cmd, sizeof cmd, "play %s",
             engine_card_name(__builtin_ctzll(oh.one)));
    refused(them, NULL, cmd, "Not your turn");
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

static void test_pass_counts_and_privacy(void **state)
{
    (void)state;
    four_people("standard");
    struct table *t = the_table();
    const struct engine_game *g = &t->game;
    assert_int_equal(engine_phase(g), ENGINE_PHASE_PASS);
    struct engine_cards h = engine_hand(g, 0);
    char words[200], cmd[220];
    card_words(&h, ~UINT64_C(0), words, sizeof words);
    /* two cards is not three */
    char two[20];
    snprintf(two, sizeof two, "%.5s", words);
    snprintf(cmd, sizeof cmd, "pass %s", two);
    refused(t->seats[0].nick, NULL, cmd, "exactly 3");
    /* pass three: nobody sees anything received until all have passed */
    for (int s = 0; s < 4; s++) {
        h = engine_hand(g, s);
        card_words(&h, ~UINT64_C(0), words, sizeof words);
        words[8] = '\0'; /* the first three cards: "XX XX XX" */
        snprintf(cmd, sizeof cmd, "pass %s", words);
        int from = w->fake.n;
        said(t->seats[s].nick, NULL, cmd);
        if (s < 3)
            for (int i = from; i < w->fake.n; i++)
                assert_null(strstr(w->fake.lines[i].text, "You received"));
    }
    for (int s = 0; s < 4; s++)
        assert_true(any_contains(t->seats[s].nick, 0, "You received"));
    assert_int_equal(engine_phase(g), ENGINE_PHASE_PLAY);
}

static void test_nick_change_keeps_the_seat(void **state)
{
    (void)state;
    four_people("standard pass_count=0");
    struct table *t = the_table();
    int turn = engine_turn(&t->game);
    char old[64], id[128];
    snprintf(old, sizeof old, "%s", t->seats[turn].nick);
    snprintf(id, sizeof id, "%s@host.test", old);
    event(CHAT_NICK, old, id, NULL, "renamed");
    assert_string_equal(t->seats[turn].nick, "renamed");
    /* the new nick plays, with the same user@host */
    struct chat_event ev = {.kind = CHAT_MESSAGE,
                            .from = {.nick = "renamed", .id = id},
                            .text = "2C"};
    manager_on_event(w->m, &w->fake.base, &ev);
    assert_int_equal(t->game.nplays, 1);
}

static void test_takeover_of_a_nick_cannot_play(void **state)
{
    (void)state;
    four_people("standard pass_count=0");
    struct table *t = the_table();
    int turn = engine_turn(&t->game);
    char nick[64];
    snprintf(nick, sizeof nick, "%s", t->seats[turn].nick);
    char id[128];
    snprintf(id, sizeof id, "%s@host.test", nick);
    event(CHAT_QUIT, nick, id, NULL, NULL);
    /* someone else takes the nick */
    struct chat_event ev = {.kind = CHAT_MESSAGE,
                            .from = {.nick = nick, .id = "mallory@evil.test"},
                            .text = "2C"};
    int from = w->fake.n;
    manager_on_event(w->m, &w->fake.base, &ev);
    assert_int_equal(t->game.nplays, 0);
    assert_true(any_contains(nick, from, "belongs to someone else"));
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
    run_for(700); /* past the reminder at half time */
    assert_true(any_contains(nick, 0, "Reminder"));
    assert_int_equal(t->game.nplays, before);
    run_for(600); /* past the timeout */
    assert_true(t->game.nplays > before);
    assert_true(any_contains(nick, 0, "Time is up"));
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

static void test_stop_by_opener_and_by_votes(void **state)
{
    (void)state;
    four_people("standard");
    refused("erin", "#h", "!stop", "Only the opener");
    said("bob", "#h", "!stop");
    assert_true(any_contains("#h", 0, "bob votes to stop the game (1 of 4)"));
    assert_false(the_table()->closing);
    said("carol", "#h", "!stop");
    assert_false(the_table() == NULL);
    said("dave", "#h", "!stop"); /* three of four: a majority */
    assert_null(the_table());
    assert_true(any_contains("#h", 0, "ends unscored"));
    run_for(10);
    assert_int_equal(manager_tables(w->m), 0);
    said("alice", "#h", "!hearts");
    said("alice", "#h", "!stop");
    assert_null(the_table());
}

static void test_status_scores_rules_presets_help(void **state)
{
    (void)state;
    int from = w->fake.n;
    said("alice", NULL, "help");
    assert_true(any_contains("alice", from, "!hearts opens a table"));
    said("alice", "#h", "!presets");
    assert_true(any_contains("alice", from, "black-maria (3-7)"));
    said("alice", "#h", "!rules greek");
    assert_true(any_contains("alice", from, "greek"));
    said("alice", "#h", "!help stop");
    assert_true(any_contains("alice", from, "end the game unscored"));
    four_people("standard");
    said("bob", "#h", "!status");
    assert_true(any_contains("#h", from, "Passing; waiting for"));
    said("bob", "#h", "!top");
    assert_true(any_contains("bob", from, "not kept yet"));
}

/* Plays for every person: passes the lowest cards, plays the lowest legal
 * card, answers the moon; until the game ends. */
static void play_everything(struct table *t)
{
    for (int guard = 0; guard < 5000 && !t->closing; guard++) {
        const struct engine_game *g = &t->game;
        char cmd[256], words[200];
        switch (engine_phase(g)) {
        case ENGINE_PHASE_PASS:
            for (int s = 0; s < g->n; s++) {
                if (!engine_may_act(g, s))
                    continue;
                struct engine_cards h = engine_hand(g, s);
                card_words(&h, ~UINT64_C(0), words, sizeof words);
                words[3 * t->rules.pass_count - 1] = '\0';
                snprintf(cmd, sizeof cmd, "pass %s", words);
                said(t->seats[s].nick, NULL, cmd);
                break;
            }
            break;
        case ENGINE_PHASE_PLAY: {
            int s = engine_turn(g);
            snprintf(cmd, sizeof cmd, "%s",
                     engine_card_name(__builtin_ctzll(engine_legal_plays(g))));
            said(t->seats[s].nick, NULL, cmd);
            break;
        }
        case ENGINE_PHASE_MOON:
            said(t->seats[engine_turn(g)].nick, NULL, "moon add");
            break;
        case ENGINE_PHASE_DEAL:
            run_for(5);
            break;
        default:
            return;
        }
    }
}

static void test_whole_game_record_replays(void **state)
{
    (void)state;
    four_people("standard target=30");
    struct table *t = the_table();
    play_everything(t);
    assert_true(any_contains("#h", 0, "Game over!"));
    run_for(5);
    char path[128];
    snprintf(path, sizeof path, "%s/games.jsonl", w->dir);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char *line = NULL;
    size_t cap = 0;
    ssize_t len = getline(&line, &cap, f);
    fclose(f);
    assert_true(len > 0);
    char err[300];
    if (record_check(line, (size_t)len, err, sizeof err))
        fail_msg("record refused: %s", err);
    struct record *rec = NULL;
    assert_int_equal(record_parse(line, (size_t)len, &rec, err, sizeof err), 0);
    assert_true(rec->has_totals);
    /* the totals the channel was told are the record's */
    char want[300];
    size_t pos = 0;
    for (int s = 0; s < rec->n; s++)
        pos +=
            (size_t)snprintf(want + pos, sizeof want - pos, "%s%s %d",
                             s ? ", " : "", rec->names[s], (int)rec->totals[s]);
    assert_true(any_contains("#h", 0, want));
    record_free(rec);
    free(line);
}

static void test_part_grace_then_computer_takes_over(void **state)
{
    (void)state;
    four_people("standard pass_count=0");
    struct table *t = the_table();
    int turn = engine_turn(&t->game);
    char nick[64], id[128];
    snprintf(nick, sizeof nick, "%s", t->seats[turn].nick);
    snprintf(id, sizeof id, "%s@host.test", nick);
    event(CHAT_PART, nick, id, "#h", NULL);
    assert_true(t->seats[turn].gone);
    /* coming back within the grace period keeps the seat */
    event(CHAT_JOIN, nick, id, "#h", NULL);
    assert_false(t->seats[turn].gone);
    event(CHAT_PART, nick, id, "#h", NULL);
    run_for(1100);
    assert_true(t->seats[turn].away);
    assert_true(any_contains("#h", 0, "has not come back"));
    assert_true(t->game.nplays >= 1);
}

static void test_lobby_timeout_closes_an_unstarted_table(void **state)
{
    (void)state;
    w->cfg.lobby_timeout = 1;
    said("alice", "#h", "!hearts");
    assert_non_null(the_table());
    run_for(500);
    assert_non_null(the_table());
    run_for(700);
    assert_null(the_table());
    assert_true(any_contains("#h", 0, "nobody started a game"));
    /* a started game is not closed by the lobby timer */
    said("alice", "#h", "!hearts");
    said("alice", "#h", "!start");
    run_for(1300);
    assert_non_null(the_table());
}

/* How many lines went to `to` since `from`. */
static int lines_to(const char *to, int from)
{
    int k = 0;
    for (int i = from; i < w->fake.n; i++)
        k += strcasecmp(w->fake.lines[i].to, to) == 0;
    return k;
}

static void test_private_spam_gets_few_low_answers(void **state)
{
    (void)state;
    w->cfg.reply_interval = 1;
    int from = w->fake.n;
    char text[32];
    for (int i = 0; i < 60; i++) {
        snprintf(text, sizeof text, "x%d", i);
        said("mallory", NULL, text);
    }
    /* the burst, and one word to slow down */
    assert_int_equal(lines_to("mallory", from), w->cfg.reply_burst + 1);
    assert_true(any_contains("mallory", from, "too much"));
    for (int i = from; i < w->fake.n; i++)
        assert_int_equal(w->fake.lines[i].prio, CHAT_LOW);
    /* a token back after the interval */
    run_for(1100);
    from = w->fake.n;
    said("mallory", NULL, "y");
    said("mallory", NULL, "z");
    assert_int_equal(lines_to("mallory", from), 1);
    /* other bots' commands are not counted (nor answered) */
    from = w->fake.n;
    for (int i = 0; i < 30; i++)
        said("erin", "#h", "!weather");
    said("erin", "#h", "!hearts");
    assert_int_equal(lines_to("erin", from), 0);
    assert_non_null(the_table());
    said("erin", "#h", "!stop");
    /* a channel command over the limit says nothing in the channel */
    said("mallory", "#h", "!hearts");
    assert_null(the_table());
}

static void test_many_flooders_share_one_budget(void **state)
{
    (void)state;
    char nick[16], text[16];
    /* with the out-queue empty, only each person's limit applies */
    int from = w->fake.n;
    for (int i = 0; i < 20; i++) {
        snprintf(nick, sizeof nick, "idle%d", i % 5);
        snprintf(text, sizeof text, "x%d", i);
        said(nick, NULL, text);
    }
    assert_int_equal(w->fake.n - from, 20);
    /* while the games' lines wait, everyone's chatter shares a budget */
    w->fake.busy = true;
    from = w->fake.n;
    for (int i = 0; i < 20; i++) {
        snprintf(nick, sizeof nick, "flood%d", i % 5);
        snprintf(text, sizeof text, "x%d", i);
        said(nick, NULL, text);
    }
    assert_int_equal(w->fake.n - from, w->cfg.chatter_burst);
    /* channel commands are not in the shared budget */
    said("alice", "#h", "!hearts");
    assert_non_null(the_table());
}

static void test_private_repeat_answered_once(void **state)
{
    (void)state;
    int from = w->fake.n;
    for (int i = 0; i < 5; i++)
        said("mallory", NULL, "help");
    assert_int_equal(lines_to("mallory", from), 1);
    said("mallory", NULL, "status");
    assert_int_equal(lines_to("mallory", from),
                     2); /* one person alone at a terminal is never limited */
    w->fake.base.solo = true;
    from = w->fake.n;
    for (int i = 0; i < 20; i++)
        said("mallory", NULL, "help");
    assert_int_equal(lines_to("mallory", from), 20);
}

static void test_game_actions_are_never_limited(void **state)
{
    (void)state;
    four_people("standard pass_count=0");
    struct table *t = the_table();
    int turn = engine_turn(&t->game);
    const char *me = t->seats[turn].nick;
    int from = w->fake.n;
    for (int i = 0; i < 40; i++)
        said(me, NULL, "play ZZ");
    assert_int_equal(lines_to(me, from), 40);
    assert_int_equal(w->fake.lines[from].prio, CHAT_NORMAL);
    for (int i = 0; i < 20; i++)
        said(me, NULL, "hand");
    assert_int_equal(lines_to(me, from), 60);
    /* and the move still goes through */
    said(me, NULL, "2C");
    assert_int_equal(t->game.nplays, 1);
    /* chatter from the same player is limited */
    from = w->fake.n;
    for (int i = 0; i < 30; i++) {
        char text[16];
        snprintf(text, sizeof text, "x%d", i);
        said(me, NULL, text);
    }
    /* (their !join counted too) */
    assert_true(lines_to(me, from) <= w->cfg.reply_burst + 1);
    assert_true(any_contains(me, from, "too much"));
}

static void test_channel_status_repeats_are_damped(void **state)
{
    (void)state;
    w->cfg.channel_repeat = 1;
    four_people("standard");
    int from = w->fake.n;
    for (int i = 0; i < 20; i++)
        said("mallory", "#h", "!status");
    assert_int_equal(lines_to("#h", from), 1);
    assert_false(any_contains("mallory", from, "Table at"));
    /* someone else asking again soon is answered privately */
    said("erin", "#h", "!status");
    assert_int_equal(lines_to("#h", from), 1);
    assert_true(any_contains("erin", from, "Table at #h"));
    /* !scores is its own command */
    said("erin", "#h", "!scores");
    int room = lines_to("#h", from);
    assert_true(room > 1);
    said("erin", "#h", "!scores");
    assert_int_equal(lines_to("#h", from), room);
    /* after the window the channel hears it again */
    run_for(1100);
    said("frank", "#h", "!status");
    assert_int_equal(lines_to("#h", from), room + 1);
}

/* alice starts a game with three computers; returns her seat. */
static int alice_with_computers(void)
{
    said("alice", "#h", "!hearts standard pass_count=0");
    said("alice", "#h", "!start");
    struct table *t = the_table();
    int me = 0;
    while (!t->seats[me].human)
        me++;
    return me;
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

/* Standard error (the log) goes to a file from here until log_end. */
static int log_begin(const char *path)
{
    fflush(stderr);
    int saved = dup(2);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(saved >= 0 && fd >= 0);
    dup2(fd, 2);
    close(fd);
    return saved;
}

/* Ends log_begin; the log's text into out. */
static void log_end(int saved, const char *path, char *out, size_t len)
{
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t n = fread(out, 1, len - 1, f);
    out[n] = '\0';
    fclose(f);
}

static void test_record_past_file_size_limit_is_logged_not_torn(void **state)
{
    (void)state;
    char path[128], logpath[128], log[4096];
    snprintf(path, sizeof path, "%s/games.jsonl", w->dir);
    snprintf(logpath, sizeof logpath, "%s/log", w->dir);
    /* a file near the limit: the record cannot fit */
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    for (int i = 0; i < 40; i++)
        fprintf(f, "{\"pad\": \"%090d\"}\n", i);
    fclose(f);
    struct stat before;
    assert_int_equal(stat(path, &before), 0);
    four_people("standard hands=1");
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit old, lim;
    getrlimit(RLIMIT_FSIZE, &old);
    lim = old;
    lim.rlim_cur = (rlim_t)before.st_size + 100;
    int saved = log_begin(logpath);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
    play_everything(the_table());
    setrlimit(RLIMIT_FSIZE, &old);
    log_end(saved, logpath, log, sizeof log);
    signal(SIGXFSZ, SIG_DFL);
    assert_true(any_contains("#h", 0, "Game over!"));
    if (!strstr(log, "game record not written") ||
        !strstr(log, strerror(EFBIG)))
        fail_msg("log: %s", log);
    /* no torn line left behind */
    struct stat after;
    assert_int_equal(stat(path, &after), 0);
    assert_int_equal(after.st_size, before.st_size);
}

static void test_record_unwritable_data_dir_is_logged(void **state)
{
    (void)state;
    char logpath[128], log[4096];
    snprintf(logpath, sizeof logpath, "%s.log", w->dir);
    /* data_dir is a file */
    char file[128];
    snprintf(file, sizeof file, "%s/file", w->dir);
    FILE *f = fopen(file, "w");
    assert_non_null(f);
    fclose(f);
    free(w->cfg.data_dir);
    w->cfg.data_dir = strdup(file);
    four_people("standard hands=1");
    int saved = log_begin(logpath);
    play_everything(the_table());
    log_end(saved, logpath, log, sizeof log);
    unlink(logpath);
    if (!strstr(log, "game record not written"))
        fail_msg("log: %s", log);
}

/* Every used seat's display name differs from every other (case aside). */
static void assert_names_unique(const struct table *t)
{
    for (int a = 0; a < t->capacity; a++)
        for (int b = a + 1; b < t->capacity; b++)
            if (t->seats[a].used && t->seats[b].used &&
                strcasecmp(seat_name(t, a), seat_name(t, b)) == 0)
                fail_msg("seats %d and %d both show '%s'", a, b,
                         seat_name(t, a));
}

static void test_person_named_like_a_computer(void **state)
{
    (void)state;
    said("alice", "#h", "!hearts");
    said("alice", "#h", "!bot 1");
    struct table *t = the_table();
    assert_string_equal(seat_name(t, 1), "bot1");
    /* a person called bot1 sits: the computer takes another name */
    said("bot1", "#h", "!join");
    assert_string_equal(seat_name(t, 2), "bot1");
    assert_string_equal(seat_name(t, 1), "bot2");
    assert_names_unique(t);
    /* and a computer added later never takes a person's name */
    said("alice", "#h", "!start");
    assert_names_unique(t);
    assert_true(any_contains(
        "#h", 0, "The game begins: alice, bot2 (easy), bot1, bot3 (easy)."));
}

static void test_lookalike_nicks_show_apart(void **state)
{
    (void)state;
    /* bob with a zero-width space and a right-to-left override sits first */
    said("bo\xe2\x80\x8b"
         "b\xe2\x80\xae",
         "#h", "!hearts");
    said("bob", "#h", "!join");
    said("BOB\xc2\xa0", "#h", "!join");
    struct table *t = the_table();
    assert_string_equal(seat_name(t, 1), "bob");
    assert_string_equal(seat_name(t, 0), "bob(2)");
    assert_string_equal(seat_name(t, 2), "BOB(3)");
    assert_names_unique(t);
    assert_true(any_contains("#h", 0, "bob sits down (2/4)"));
    assert_true(any_contains("#h", 0, "BOB(3) sits down (3/4)"));
    /* the plain bob leaves: the others keep unique names */
    said("bob", "#h", "!leave");
    assert_names_unique(t);
}

static void test_nick_change_to_a_seat_name_mid_game(void **state)
{
    (void)state;
    int me = alice_with_computers();
    struct table *t = the_table();
    event(CHAT_NICK, "alice", "alice@host.test", NULL, "bot2");
    assert_string_equal(t->seats[me].nick, "bot2");
    assert_string_equal(seat_name(t, me), "bot2(2)");
    assert_names_unique(t);
    /* the computers keep their names during the game */
    int bots = 0;
    for (int s = 0; s < 4; s++)
        bots += !t->seats[s].human && strncmp(seat_name(t, s), "bot", 3) == 0;
    assert_int_equal(bots, 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_hearts_opens_and_join_fills, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(
            test_hearts_refuses_bad_rules_with_nearest, setup, teardown),
        cmocka_unit_test_setup_teardown(test_commands_without_a_table, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_hands_reach_only_their_owner,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_refusals_change_nothing, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_pass_counts_and_privacy, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_nick_change_keeps_the_seat, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_takeover_of_a_nick_cannot_play,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_timeout_computer_acts_then_back,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_stop_by_opener_and_by_votes, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_status_scores_rules_presets_help,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_whole_game_record_replays, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(
            test_part_grace_then_computer_takes_over, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_lobby_timeout_closes_an_unstarted_table, setup, teardown),
        cmocka_unit_test_setup_teardown(test_private_spam_gets_few_low_answers,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_private_repeat_answered_once,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_many_flooders_share_one_budget,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_game_actions_are_never_limited,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_channel_status_repeats_are_damped,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_walk_away_table_pauses_then_ends,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_walk_away_table_resumes_on_back,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_computers_alone_never_deal_a_new_hand, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_everyone_gone_pauses_and_a_return_resumes, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_record_past_file_size_limit_is_logged_not_torn, setup,
            teardown),
        cmocka_unit_test_setup_teardown(
            test_record_unwritable_data_dir_is_logged, setup, teardown),
        cmocka_unit_test_setup_teardown(test_person_named_like_a_computer,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_lookalike_nicks_show_apart, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(
            test_nick_change_to_a_seat_name_mid_game, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
