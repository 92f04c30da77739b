/*
 * Tests of the game manager (bot/manager/manager.c, bot/manager/commands.c)
 * through a fake adapter that records everything the bot says: the commands of
 * shared/spec/chat.md, every refusal (one private reply, nothing changed),
 * secrets reaching only their owner, nick changes and takeovers, turn
 * timeouts and "back", and a whole game whose record replays.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "engine/ai/ai.h"
#include "bot/config.h"
#include "bot/manager/manager.h"
#include "storage/record/record.h"
#include "storage/storage.h"
#include "bot/manager/table.h"
#include "bot/manager/text.h"
#include "bot/manager/turn.h"
#include "bot/manager/presence.h"
#include "bot/manager/life.h"
#include "bot/manager/say.h"
#include "bot/manager/announce.h"
#include "bot/manager/deal.h"
#include "bot/think.h"

#define MAX_LINES 4096

struct line {
    char to[64]; /* room, or the nick told */
    bool private_;
    enum chat_priority prio;
    char text[2100];
    uint64_t cookie; /* tell_tracked's */
    bool sent;       /* its CHAT_SENT was given (all_sent) */
    bool retracted;  /* taken back before it was sent */
};

struct fake {
    struct chat_adapter base;
    bool busy; /* the out-queue holds lines */
    int n;
    struct line lines[MAX_LINES];
    char verified[16][64]; /* nicks verify was asked about */
    int nverified;
    char prepared[16][64]; /* nicks prepare was given, in order */
    int nprepared;
    int lines_at_prepare[16]; /* how many lines were said by then */
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
    l->prio = p;
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

/* Names folded like IRC's ascii CASEMAPPING. */
static void fake_fold(const struct chat_adapter *a, const char *name, char *out,
                      size_t outlen)
{
    (void)a;
    size_t i = 0;
    for (; name[i] && i + 1 < outlen; i++)
        out[i] = (char)tolower((unsigned char)name[i]);
    out[i] = '\0';
}

static const struct chat_adapter_ops fake_ops = {
    fake_start, fake_stop, fake_say, fake_tell, fake_same,
    fake_idle,  fake_free, NULL,     NULL,      fake_fold,
    NULL,       NULL,      NULL,     NULL,      NULL};

/* Like IRC: identities to confirm after a reconnect, lines written later
 * than queued (the test sends CHAT_SENT). */
static void fake_verify(struct chat_adapter *a, const char *nick)
{
    struct fake *f = (struct fake *)a;
    if (f->nverified < 16)
        snprintf(f->verified[f->nverified++], sizeof f->verified[0], "%s",
                 nick);
}

static void fake_tell_tracked(struct chat_adapter *a, const char *nick,
                              const char *text, enum chat_priority p,
                              uint64_t cookie)
{
    fake_tell(a, nick, text, p);
    ((struct fake *)a)->lines[((struct fake *)a)->n - 1].cookie = cookie;
}

/* A tracked line not yet reported written can be taken back. */
static bool fake_retract(struct chat_adapter *a, uint64_t cookie)
{
    struct fake *f = (struct fake *)a;
    for (int i = 0; i < f->n; i++)
        if (f->lines[i].cookie == cookie && !f->lines[i].sent &&
            !f->lines[i].retracted) {
            f->lines[i].retracted = true;
            return true;
        }
    return false;
}

static const struct chat_adapter_ops fake_ops_irc = {
    fake_start, fake_stop,    fake_say,
    fake_tell,  fake_same,    fake_idle,
    fake_free,  fake_verify,  fake_tell_tracked,
    fake_fold,  fake_retract, NULL,
    NULL,       NULL,         NULL};

/* Like Matrix: direct rooms made ready when people sit down, rooms
 * named to people by a label of their own. */
static void fake_prepare(struct chat_adapter *a, const char *nick)
{
    struct fake *f = (struct fake *)a;
    if (f->nprepared < 16) {
        f->lines_at_prepare[f->nprepared] = f->n;
        snprintf(f->prepared[f->nprepared++], sizeof f->prepared[0], "%s",
                 nick);
    }
}

static void fake_room_label(const struct chat_adapter *a, const char *room,
                            char *out, size_t outlen)
{
    (void)a;
    snprintf(out, outlen, "%s", strcmp(room, "#h") == 0 ? "Card Club" : room);
}

static const struct chat_adapter_ops fake_ops_matrix = {
    fake_start,   fake_stop, fake_say,     fake_tell,         fake_same,
    fake_idle,    fake_free, NULL,         fake_tell_tracked, NULL,
    fake_retract, NULL,      fake_prepare, fake_room_label,   NULL};

/* Like Matrix on a homeserver that rate-limits the bot. */
static bool fake_limited(const struct chat_adapter *a)
{
    (void)a;
    return true;
}

static const struct chat_adapter_ops fake_ops_limited = {
    fake_start,   fake_stop, fake_say,     fake_tell,         fake_same,
    fake_idle,    fake_free, NULL,         fake_tell_tracked, NULL,
    fake_retract, NULL,      fake_prepare, fake_room_label,   fake_limited};

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

/* How many lines to `to` since `from` start with `head`. */
static int count_starting(const char *to, int from, const char *head)
{
    int k = 0;
    for (int i = from; i < w->fake.n; i++)
        if (strcasecmp(w->fake.lines[i].to, to) == 0 &&
            strncmp(w->fake.lines[i].text, head, strlen(head)) == 0)
            k++;
    return k;
}

/* The index of the first line to `to` from `from` starting with head. */
static int first_starting(const char *to, int from, const char *head)
{
    for (int i = from; i < w->fake.n; i++)
        if (strcasecmp(w->fake.lines[i].to, to) == 0 &&
            strncmp(w->fake.lines[i].text, head, strlen(head)) == 0)
            return i;
    return -1;
}

static struct table *the_table(void)
{
    return mgr_table_find(w->m, &w->fake.base, "#h");
}

/* A file of #h's directory (docs/storage.md): data_dir/test/%23h/name. */
static void room_file(char *out, size_t len, const char *name)
{
    snprintf(out, len, "%s/test/%%23h/%s", w->dir, name);
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

/* The first three cards of a seat's hand as "XX,XX, XX" and as a set. */
static uint64_t first_three(const struct table *t, int s, char *cmd, size_t len)
{
    struct engine_cards h = engine_hand(&t->game, s);
    uint64_t set = 0;
    size_t pos = (size_t)snprintf(cmd, len, "pass ");
    for (int c = 0, k = 0; c < 64 && k < 3; c++) {
        if (!(h.one >> c & 1))
            continue;
        set |= ENGINE_BIT(c);
        pos += (size_t)snprintf(cmd + pos, len - pos, "%s%s",
                                k == 0 ? "" : (k == 1 ? "," : ", "),
                                engine_card_name(c));
        k++;
    }
    return set;
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

static void test_sitting_down_prepares_private_lines(void **state)
{
    (void)state;
    w->fake.base.ops = &fake_ops_matrix;
    four_people("standard");
    /* each person, once, as they sat down: before the deal */
    assert_int_equal(w->fake.nprepared, 4);
    static const char *const who[] = {"alice", "bob", "carol", "dave"};
    for (int i = 0; i < 4; i++) {
        assert_string_equal(w->fake.prepared[i], who[i]);
        for (int k = 0; k < w->fake.lines_at_prepare[i]; k++)
            assert_null(strstr(w->fake.lines[k].text, "Your cards"));
    }
    /* a direct message names the table as people know the room */
    const struct line *deal = last_to("bob", 0);
    assert_non_null(deal);
    assert_non_null(strstr(deal->text, "Hand 1 at Card Club. Your cards"));
    assert_null(strstr(deal->text, "#h"));
    /* computers are not prepared */
    said("alice", "#h", "!stop");
    said("bob", "#h", "!stop");
    said("carol", "#h", "!stop");
    said("erin", "#i", "!hearts");
    said("erin", "#i", "!bot 3");
    assert_int_equal(w->fake.nprepared, 5);
    assert_string_equal(w->fake.prepared[4], "erin");
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

static void test_announcements_are_one_line(void **state)
{
    (void)state;
    said("alice", "#h", "!hearts standard target=50");
    const struct line *l = last_to("#h", 0);
    assert_non_null(l);
    assert_string_equal(l->text,
                        "alice opens a Hearts table: standard for 4 with "
                        "target=50. !join to sit down, !start to deal "
                        "(computers fill empty seats).");
    /* shown again: the rules in a few words, and who sits */
    said("bob", "#h", "!join");
    int from = w->fake.n;
    said("carol", "#h", "!hearts");
    l = last_to("carol", from);
    assert_non_null(l);
    assert_string_equal(l->text, "A table is open here: standard for 4 with "
                                 "target=50; alice, bob (2/4). !join to sit "
                                 "down.");
    /* the full rules: the preset, then what differs, in two IRC lines */
    said("carol", "#h", "!rules");
    l = last_to("carol", from);
    assert_non_null(strstr(l->text, "standard for 4 players: pass left"));
    assert_non_null(strstr(l->text, "Changed here: target=50."));
    assert_true(strlen(l->text) <= 800);
    for (int p = 0; p < engine_preset_count(); p++) {
        char cmd[64];
        snprintf(cmd, sizeof cmd, "!rules %s", engine_preset_name(p));
        said("carol", "#h", cmd);
        assert_true(strlen(last_to("carol", from)->text) <= 800);
    }
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

static void test_input_typos_and_misplaced_commands(void **state)
{
    (void)state;
    w->cfg.reply_interval = 0; /* many commands from one person */
    refused("alice", NULL, "plya QS",
            "I don't know 'plya' — did you mean 'play'?");
    refused("alice", NULL, "hnad", "did you mean 'hand'?");
    refused("alice", NULL, "jion", "did you mean '!join' (in the channel)?");
    refused("alice", NULL, "xyzzy", "I don't know 'xyzzy'. Try \"help\".");
    /* a channel command sent privately */
    refused("alice", NULL, "join", "!join works in the channel");
    refused("alice", NULL, "!start", "!start works in the channel");
    /* formatting is not read, nor echoed */
    refused("alice", NULL,
            "\x02xy\x02zz\x03"
            "04,01y",
            "I don't know 'xyzzy'");
    assert_null(strchr(w->fake.lines[w->fake.n - 1].text, '\x02'));
    assert_null(strchr(w->fake.lines[w->fake.n - 1].text, '\x03'));
    said("alice", "#h", "\x02!hearts\x0F standard");
    assert_non_null(the_table());
}

static int lines_to(const char *to, int from);

static void test_pass_or_play_said_in_the_channel(void **state)
{
    (void)state;
    four_people("standard");
    struct table *t = the_table();
    char cmd[100];
    first_three(t, 1, cmd, sizeof cmd);
    const char *bob = t->seats[1].nick;
    /* meant for the bot: a private hint that repeats no card */
    refused(bob, "#h", cmd, "passes are secret, tell me privately");
    const struct line *l = &w->fake.lines[w->fake.n - 1];
    for (const char *sym = "♣♦♥♠"; *sym; sym += 3) {
        char s3[4] = {sym[0], sym[1], sym[2], 0};
        assert_null(strstr(l->text, s3));
    }
    assert_null(strstr(l->text, cmd + 5));
    assert_true(engine_may_act(&t->game, 1));
    refused(bob, "#h", "play QS", "tell me privately, or say !play");
    /* chat is chat: not cards, or not a player */
    int from = w->fake.n;
    said(bob, "#h", "pass the salt");
    said(bob, "#h", "play on, folks");
    said("erin", "#h", "pass 2C 3C 4C");
    assert_int_equal(w->fake.n, from);
    /* the hint is chatter: the same text again gets nothing, and many
     * texts no more hints than the answer budget allows */
    w->cfg.reply_interval = 60;
    said(bob, "#h", "play QS");
    assert_int_equal(w->fake.n, from);
    char text[32];
    for (int i = 0; i < 30; i++) {
        snprintf(text, sizeof text, "play %s",
                 engine_card_name(ENGINE_CARD(i % 4, i / 4)));
        said(bob, "#h", text);
    }
    assert_true(lines_to(bob, from) <= w->cfg.reply_burst);
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

static void test_pass_is_confirmed_and_hand_shows_what_is_left(void **state)
{
    (void)state;
    four_people("standard");
    struct table *t = the_table();
    const struct engine_game *g = &t->game;
    char cmd[100];
    /* commas, with and without spaces, separate cards too */
    uint64_t gave = first_three(t, 0, cmd, sizeof cmd);
    int from = w->fake.n;
    said(t->seats[0].nick, NULL, cmd);
    assert_false(engine_may_act(g, 0));
    const struct line *l = last_to(t->seats[0].nick, from);
    assert_non_null(l);
    char want[400];
    int to = engine_pass_target(g, 0, g->pass_dir);
    snprintf(want, sizeof want, "to %s; waiting for %s, %s, %s.",
             t->seats[to].nick, t->seats[1].nick, t->seats[2].nick,
             t->seats[3].nick);
    if (strncmp(l->text, "Passing ", 8) || !strstr(l->text, want))
        fail_msg("confirmation: '%s'", l->text);
    /* "hand" while waiting: without the cards passed */
    said(t->seats[0].nick, NULL, "hand");
    l = last_to(t->seats[0].nick, from);
    assert_non_null(strstr(l->text, "Your hand: "));
    assert_non_null(strstr(l->text, "(Passing "));
    /* ten cards shown: a word that is no suit symbol is a rank */
    const char *p = strstr(l->text, "Your hand: ") + strlen("Your hand: ");
    const char *cut = strstr(p, " (Passing ");
    int shown = 0;
    for (; p < cut; p++)
        if (*p != ' ' && p[-1] == ' ' && (unsigned char)*p != 0xe2)
            shown++;
    assert_int_equal(shown, 10);
    (void)gave;
    /* the others pass; each hears from whom the cards came */
    for (int s = 1; s < 4; s++) {
        first_three(t, s, cmd, sizeof cmd);
        said(t->seats[s].nick, NULL, cmd);
    }
    assert_int_equal(engine_phase(g), ENGINE_PHASE_PLAY);
    /* the last to pass hears what came at once, not "waiting for" */
    assert_int_equal(count_starting(t->seats[2].nick, from, "Passing "), 1);
    assert_int_equal(count_starting(t->seats[3].nick, from, "Passing "), 0);
    int giver = 0;
    while (engine_pass_target(g, giver, g->pass_dir) != 0)
        giver++;
    /* in a line of its own with the hand, or in the first prompt */
    snprintf(want, sizeof want, " from %s. ", t->seats[giver].nick);
    assert_true(any_contains(t->seats[0].nick, from, want));
}

/* After the passing, the leader hears what came in the prompt (one line,
 * at high priority), the others in a line at normal priority: the first
 * lead is asked for before anything else goes out. */
static void test_first_lead_prompt_outranks_the_received_lines(void **state)
{
    (void)state;
    four_people("standard");
    struct table *t = the_table();
    char cmd[100];
    int from = w->fake.n;
    for (int s = 0; s < 4; s++) {
        first_three(t, s, cmd, sizeof cmd);
        said(t->seats[s].nick, NULL, cmd);
    }
    assert_int_equal(engine_phase(&t->game), ENGINE_PHASE_PLAY);
    const char *leader = t->seats[engine_turn(&t->game)].nick;
    int received = 0, prompts = 0, to_leader = 0;
    int after = from; /* lines after the last pass's confirmation */
    for (int i = from; i < w->fake.n; i++)
        if (strncmp(w->fake.lines[i].text, "Passing ", 8) == 0)
            after = i + 1;
    for (int i = after; i < w->fake.n; i++) {
        const struct line *l = &w->fake.lines[i];
        bool turn = strstr(l->text, "Your turn at ") != NULL;
        if (l->private_ && strcmp(l->to, leader) == 0)
            to_leader++;
        if (strncmp(l->text, "You received ", 13) == 0) {
            assert_int_equal(l->prio, turn ? CHAT_HIGH : CHAT_NORMAL);
            received++;
        }
        if (turn) {
            assert_string_equal(l->to, leader);
            prompts++;
        }
    }
    assert_int_equal(received, 4);
    assert_int_equal(prompts, 1);
    assert_int_equal(to_leader, 1);
}

/* Every tracked line since `from` is written now. */
static void all_sent(int from)
{
    for (int i = from; i < w->fake.n; i++) {
        if (!w->fake.lines[i].cookie || w->fake.lines[i].retracted)
            continue;
        w->fake.lines[i].sent = true;
        struct chat_event ev = {.kind = CHAT_SENT,
                                .cookie = w->fake.lines[i].cookie};
        manager_on_event(w->m, &w->fake.base, &ev);
    }
}

/* On the IRC-like fake, four people pass: the first trick's lead is due. */
static struct table *four_passed_irc(void)
{
    w->fake.base.ops = &fake_ops_irc;
    four_people("standard");
    struct table *t = the_table();
    char cmd[100];
    for (int s = 0; s < 4; s++) {
        first_three(t, s, cmd, sizeof cmd);
        said(t->seats[s].nick, NULL, cmd);
    }
    return t;
}

/* The leader plays its lowest legal card. */
static void lead_lowest(struct table *t)
{
    char cmd[100];
    snprintf(cmd, sizeof cmd, "play %s",
             engine_card_name(__builtin_ctzll(engine_legal_plays(&t->game))));
    said(t->seats[engine_turn(&t->game)].nick, NULL, cmd);
}

/* On IRC a person's "You received" line still waiting behind the pacing
 * when their first prompt comes is taken back: the prompt says it, so the
 * prompt does not wait behind it. One already written is not repeated. */
static void test_received_line_waiting_goes_into_the_prompt(void **state)
{
    (void)state;
    struct table *t = four_passed_irc();
    struct engine_game *g = &t->game;
    all_sent(0); /* everything so far written, also the tracked lines */
    int lead = engine_turn(g);
    int second = (lead + 1) % 4;
    int from = w->fake.n;
    lead_lowest(t);
    const struct line *p = last_to(t->seats[second].nick, from);
    assert_non_null(p);
    if (strncmp(p->text, "Your turn at ", 13) != 0)
        fail_msg("written already, not said again: '%s'", p->text);
}

/* The same with nothing written yet: the second player's received line
 * is taken back and their prompt starts with it. */
static void test_received_line_not_written_is_taken_back(void **state)
{
    (void)state;
    struct table *t = four_passed_irc();
    struct engine_game *g = &t->game;
    int lead = engine_turn(g);
    int second = (lead + 1) % 4;
    const char *nick = t->seats[second].nick;
    int recv = -1;
    int passing = -1;
    for (int i = 0; i < w->fake.n; i++) {
        const struct line *l = &w->fake.lines[i];
        if (strcmp(l->to, nick) != 0)
            continue;
        if (strstr(l->text, "You received "))
            recv = i;
        if (strncmp(l->text, "Passing ", 8) == 0)
            passing = i;
    }
    assert_true(recv >= 0);
    assert_false(w->fake.lines[recv].retracted);
    /* the pass confirmation was not written before everyone passed: the
     * received line says it instead */
    if (passing >= 0) {
        assert_true(w->fake.lines[passing].retracted);
        assert_int_equal(strncmp(w->fake.lines[recv].text, "You passed ", 11),
                         0);
    }
    int from = w->fake.n;
    lead_lowest(t);
    assert_true(w->fake.lines[recv].retracted);
    const struct line *p = last_to(nick, from);
    assert_non_null(p);
    if (!strstr(p->text, "You received ") || !strstr(p->text, "Your turn at "))
        fail_msg("the prompt should say what came: '%s'", p->text);
    assert_int_equal(p->prio, CHAT_HIGH);
}

static void test_deal_goes_before_the_prompt(void **state)
{
    (void)state;
    four_people("standard pass_count=0");
    struct table *t = the_table();
    const char *leader = t->seats[engine_turn(&t->game)].nick;
    int deal = first_starting(leader, 0, "Hand 1 at #h. Your cards: ");
    int turn = first_starting(leader, 0, "Your turn at #h.");
    assert_true(deal >= 0 && turn > deal);
    /* the out-queue sends a higher priority first: the deal must not be
     * below the prompt, or the prompt overtakes it */
    assert_true(w->fake.lines[deal].prio <= w->fake.lines[turn].prio);
    /* the 2C leads: the one legal card is named in words */
    assert_non_null(strstr(w->fake.lines[turn].text,
                           "You lead trick 1. Only legal: 2♣. Your hand: "));
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
    const struct line *l = last_to(t->seats[winner].nick, 0);
    assert_non_null(l);
    if (strncmp(l->text, "Your turn at #h. You took trick 1 with ", 39) ||
        !strstr(l->text, ". You lead trick 2. ") ||
        !(strstr(l->text, " Play one of: ") || strstr(l->text, "Only legal")))
        fail_msg("prompt: '%s'", l->text);
    /* the next player hears who took it, and the cards to choose from */
    char cmd[16];
    snprintf(cmd, sizeof cmd, "%s",
             engine_card_name(__builtin_ctzll(engine_legal_plays(g))));
    said(t->seats[winner].nick, NULL, cmd);
    char want[200];
    snprintf(want, sizeof want, "Your turn at #h. %s took trick 1 with ",
             t->seats[winner].nick);
    l = last_to(t->seats[engine_turn(g)].nick, from);
    assert_non_null(l);
    if (strncmp(l->text, want, strlen(want)))
        fail_msg("prompt: '%s'", l->text);
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

/* Plays the lowest legal card for whoever's turn it is, n times. */
static void play_lowest(struct table *t, int n)
{
    for (int i = 0; i < n && engine_phase(&t->game) == ENGINE_PHASE_PLAY; i++) {
        const struct engine_game *g = &t->game;
        char cmd[16];
        snprintf(cmd, sizeof cmd, "%s",
                 engine_card_name(__builtin_ctzll(engine_legal_plays(g))));
        said(t->seats[engine_turn(g)].nick, NULL, cmd);
    }
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

/* The legal plays of the seat after `card` is played by the one to play. */
static uint64_t legal_after(const struct table *t, int card)
{
    struct engine_game copy = t->game;
    assert_int_equal(engine_play(&copy, card, NULL, NULL), ENGINE_OK);
    return engine_turn(&copy) >= 0 ? engine_legal_plays(&copy) : 0;
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
    struct sbuf shown = {.len = 0};
    mgr_sb_printf(&shown, "(waiting to play ");
    mgr_sb_card(&shown, t, card4);
    assert_true(any_contains(me, from, shown.buf));
    snprintf(cmd, sizeof cmd, "play %s", engine_card_name(card3));
    said(t->seats[third].nick, NULL, cmd);
    assert_int_equal(g->trick_no, 1);
    assert_int_equal(g->plays[3], card4);
    /* no prompt during trick 1 (the winner is prompted for trick 2) */
    assert_false(any_contains(me, 0, "Trick 1:"));
}

/* Four people, no passing: the seat to play first, its nick and id. */
static int first_turn(char nick[64], char id[128])
{
    four_people("standard pass_count=0");
    int turn = engine_turn(&the_table()->game);
    snprintf(nick, 64, "%s", the_table()->seats[turn].nick);
    snprintf(id, 128, "%s@host.test", nick);
    return turn;
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

/* Whether a line to `to` from `from` contains the markup pill for nick
 * (render.h): notifying or quiet, shown as the nick itself. */
static bool has_pill(const char *to, int from, const char *nick, bool notify,
                     const char *before, const char *after)
{
    char want[400];
    snprintf(want, sizeof want, "%s\x01%s%s\x01%s\x01%s", before,
             notify ? "!" : "", nick, nick, after);
    return any_contains(to, from, want);
}

/* Four people, no passing, until the reminder at half the first turn:
 * the first to play's nick; *from is where the waiting began. */
static const char *until_reminder(int *from)
{
    w->cfg.next_hand_delay = 60;
    four_people("standard pass_count=0");
    struct table *t = the_table();
    *from = w->fake.n;
    run_for(700);
    return t->seats[engine_turn(&t->game)].nick;
}

static void test_markup_pills_for_whose_turn(void **state)
{
    (void)state;
    w->fake.base.style = CHAT_STYLE_MARKUP;
    int from;
    const char *first = until_reminder(&from);
    struct table *t = the_table();
    /* the reminder in the channel notifies whoever the table waits for */
    assert_true(
        has_pill("#h", from, first, true, "The table waits for ", " ("));
    /* !status names whose turn it is, quietly */
    from = w->fake.n;
    said("bob", "#h", "!status");
    assert_true(has_pill("#h", from, first, false, ". ", " to play"));
    /* the trick's taker, a person, leads next: a quiet pill in bold */
    from = w->fake.n;
    play_lowest(t, 4);
    assert_int_equal(t->game.trick_no, 1);
    const char *taker = t->seats[t->last_winner].nick;
    assert_true(has_pill("#h", from, taker, false, "\x02", "\x02 takes it"));
    assert_false(has_pill("#h", from, taker, true, "", ""));
}

static void test_plain_style_has_no_pills(void **state)
{
    (void)state;
    int from;
    const char *first = until_reminder(&from);
    struct table *t = the_table();
    char want[200];
    snprintf(want, sizeof want, "The table waits for %s (", first);
    assert_int_equal(count_starting("#h", from, want), 1);
    play_lowest(t, 4);
    for (int i = from; i < w->fake.n; i++)
        assert_null(strchr(w->fake.lines[i].text, '\x01'));
}

/* Where the adapter reads the markup, a person's text cannot carry it
 * into what the bot echoes. */
static void test_markup_typed_by_a_person_is_dropped(void **state)
{
    (void)state;
    w->fake.base.style = CHAT_STYLE_MARKUP;
    said("alice", "#h", "!hearts \x01!@x:hs\x01y\x01\x05");
    for (int i = 0; i < w->fake.n; i++) {
        assert_null(strchr(w->fake.lines[i].text, '\x01'));
        assert_null(strchr(w->fake.lines[i].text, '\x05'));
    }
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
    struct sbuf card = {.len = 0};
    mgr_sb_card(&card, t, t->game.plays[before]);
    snprintf(want, sizeof want,
             "Time is up: a computer player played %s "
             "for you.",
             card.buf);
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

static void test_a_pass_chosen_on_timeout_is_told(void **state)
{
    (void)state;
    said("alice", "#h", "!hearts standard");
    said("alice", "#h", "!start");
    run_for(1100);
    struct table *t = the_table();
    assert_int_equal(engine_phase(&t->game), ENGINE_PHASE_PLAY);
    int i = first_starting("alice", 0, "Time is up: a computer player passes ");
    assert_true(i >= 0);
    /* the three cards by name: three suit symbols (3-byte UTF-8) */
    int cards = 0;
    for (const char *p = w->fake.lines[i].text; *p; p++)
        cards += (unsigned char)*p == 0xe2;
    assert_int_equal(cards, 3);
    assert_true(any_contains("alice", i, " for you."));
    assert_true(any_contains("alice", i, "You received "));
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
    w->cfg.reply_interval = 0; /* many commands from one person */
    int from = w->fake.n;
    said("alice", NULL, "help");
    assert_true(any_contains("alice", from, "!hearts opens a table"));
    said("alice", "#h", "!presets");
    assert_true(any_contains("alice", from, "black-maria (3-7)"));
    said("alice", "#h", "!rules greek");
    assert_true(any_contains("alice", from, "greek"));
    said("alice", "#h", "!help stop");
    assert_true(any_contains("alice", from, "end the game unscored"));
    /* help names every command, and the computer players' levels */
    static const char *const every[] = {
        "!hearts",  "!join",   "!start",  "!leave", "!bot",  "!stop",
        "!status",  "!scores", "!top",    "!stats", "!last", "!rules",
        "!presets", "!play",   "!help",   "hand",   "pass",  "moon",
        "discard",  "back",    "autoplay"};
    said("alice", NULL, "help");
    const struct line *l = last_to("alice", from);
    for (size_t i = 0; i < sizeof every / sizeof every[0]; i++)
        if (!strstr(l->text, every[i]))
            fail_msg("help without %s: %s", every[i], l->text);
    said("alice", "#h", "!help bot");
    assert_true(any_contains("alice", from, "Levels: random, easy"));
    four_people("standard");
    said("bob", "#h", "!status");
    assert_true(any_contains("#h", from, "Passing; waiting for"));
    said("bob", "#h", "!top");
    assert_true(
        any_contains("#h", from, "Nobody has finished a standard game"));
}

/* Seat s's person says text privately, from the seat's user@host. */
static void seat_said(const struct table *t, int s, const char *text)
{
    struct chat_event ev = {.kind = CHAT_MESSAGE,
                            .from = {.nick = t->seats[s].nick,
                                     .id = t->seats[s].id[0]
                                               ? t->seats[s].id
                                               : user(t->seats[s].nick).id},
                            .text = text};
    manager_on_event(w->m, &w->fake.base, &ev);
}

/* One action of a person, by private message: passes the lowest cards,
 * plays the lowest legal card, answers the moon; in DEAL the loop runs a
 * little. False once the game is over. */
static bool person_acts(struct table *t)
{
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
            seat_said(t, s, cmd);
            break;
        }
        return true;
    case ENGINE_PHASE_PLAY:
        snprintf(cmd, sizeof cmd, "%s",
                 engine_card_name(__builtin_ctzll(engine_legal_plays(g))));
        seat_said(t, engine_turn(g), cmd);
        return true;
    case ENGINE_PHASE_MOON:
        seat_said(t, engine_turn(g), "moon add");
        return true;
    case ENGINE_PHASE_DEAL:
        run_for(5);
        return true;
    default:
        return false;
    }
}

/* Whether the game reached `plays` cards down in hand `hand`, or beyond. */
static bool reached(const struct table *t, int hand, int plays)
{
    const struct engine_game *g = &t->game;
    return g->hand_no > hand ||
           (g->hand_no == hand && engine_phase(g) == ENGINE_PHASE_PLAY &&
            g->nplays >= plays);
}

/* Plays (people by private message) until `plays` cards of hand `hand`
 * are down, or the game is over. */
static void play_to(struct table *t, int hand, int plays)
{
    for (int guard = 0; guard < 5000 && !t->closing; guard++)
        if (reached(t, hand, plays) || !person_acts(t))
            return;
}

static void play_everything(struct table *t)
{
    play_to(t, INT_MAX, 0);
}

static void test_one_person_at_a_terminal(void **state)
{
    (void)state;
    w->fake.base.solo = true;
    said("you", "#h", "!hearts standard hands=1");
    said("you", "#h", "!start");
    struct table *t = the_table();
    assert_true(any_contains("#h", 0, "You open a Hearts table: standard"));
    assert_true(any_contains("#h", 0, "Type \"help\" for the commands"));
    assert_true(any_contains("#h", 0, "Hand 1: pass 3 left."));
    said("you", NULL, "help");
    assert_true(any_contains("you", 0, "Type a card to play it"));
    play_everything(t);
    assert_true(any_contains("#h", 0, "Game over!"));
    static const char *const wrong[] = {
        "private message", "privately", "!join",    "you opens",   "you sits",
        "you takes",       "you is",    "you wins", "in a channel"};
    for (int i = 0; i < w->fake.n; i++)
        for (size_t k = 0; k < sizeof wrong / sizeof wrong[0]; k++)
            if (strstr(w->fake.lines[i].text, wrong[k]))
                fail_msg("'%s' at a terminal: %s", wrong[k],
                         w->fake.lines[i].text);
}

static void test_whole_game_record_replays(void **state)
{
    (void)state;
    four_people("standard target=30");
    struct table *t = the_table();
    play_everything(t);
    assert_true(any_contains("#h", 0, "Game over!"));
    /* the final sheet, and how to play again */
    int over = first_starting("#h", 0, "Game over!");
    assert_true(strstr(w->fake.lines[over + 1].text, "hand") != NULL);
    assert_true(any_contains("#h", over, "total"));
    const struct line *last = last_to("#h", over);
    assert_string_equal(last->text, "Another game? !hearts opens a table.");
    run_for(5);
    char path[128];
    room_file(path, sizeof path, "archive.jsonl");
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

/* The whole of a small file, NUL-terminated, into buf. */
static void read_small(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t n = fread(buf, 1, len - 1, f);
    buf[n] = '\0';
    fclose(f);
}

/* The room's results.jsonl once the game's end has been handled. */
static void read_results(char *text, size_t len)
{
    run_for(5);
    char path[128];
    room_file(path, sizeof path, "results.jsonl");
    read_small(path, text, len);
}

/* Whether `text` said by nick in #h gets a channel line with needle. */
static bool answered(const char *nick, const char *text, const char *needle)
{
    int from = w->fake.n;
    said(nick, "#h", text);
    return any_contains("#h", from, needle);
}

static void test_top_stats_last_and_scores_after_a_game(void **state)
{
    (void)state;
    w->cfg.reply_interval = 0;
    w->cfg.channel_repeat = 0;
    int from = w->fake.n;
    said("bob", "#h", "!last");
    assert_true(any_contains("#h", from, "No game has finished here yet."));
    four_people("standard hands=1"); /* an option: custom */
    struct table *t = the_table();
    play_everything(t);
    run_for(5);
    char path[128], text[8192];
    room_file(path, sizeof path, "results.jsonl");
    read_small(path, text, sizeof text);
    assert_non_null(strstr(text, "\"preset\":\"standard\",\"custom\":true,"
                                 "\"finished\":true"));
    assert_non_null(strstr(text, "\"key\":\"n:alice@host.test\""));

    /* counted under standard and under custom */
    from = w->fake.n;
    said("bob", "#h", "!top");
    const struct line *l = last_to("#h", from);
    assert_non_null(l);
    assert_non_null(strstr(l->text, "Top 4 (standard): 1. "));
    assert_non_null(strstr(l->text, "(1 game, "));
    assert_true(any_contains("#h", from, "?: provisional"));
    from = w->fake.n;
    said("bob", "#h", "!top 2 custom");
    assert_true(any_contains("#h", from, "Top 2 (custom): 1. "));
    from = w->fake.n;
    said("alice", "#h", "!stats");
    assert_true(any_contains("#h", from, "alice (standard): 1 game, "));
    assert_true(any_contains("#h", from, "(provisional), rank "));
    /* the lowest cards every time may shoot the moon */
    assert_true(any_contains("#h", from, " points a hand, "));
    assert_true(any_contains("#h", from, " moon"));
    from = w->fake.n;
    said("alice", "#h", "!stats CAROL custom");
    assert_true(any_contains("#h", from, "carol (custom): 1 game, "));
    said("alice", "#h", "!stats zed");
    assert_true(any_contains("#h", from, "zed has not finished a standard"));
    /* what hides or reorders text is not read, so never echoed */
    from = w->fake.n;
    said("alice", "#h",
         "!stats \xe2\x80\xae"
         "z\x01"
         "e\xe2\x81\xa6"
         "d\x1b");
    assert_true(any_contains("#h", from, "zed has not finished a standard"));
    for (int i = from; i < w->fake.n; i++)
        for (const unsigned char *p =
                 (const unsigned char *)w->fake.lines[i].text;
             *p; p++)
            assert_true(*p >= 0x20 && *p != 0xe2);

    /* refusals: privately, naming the range or the nearest preset */
    from = w->fake.n;
    said("bob", "#h", "!top 11");
    assert_true(any_contains("bob", from, "How many? 1 to 10."));
    said("bob", "#h", "!top standrd");
    assert_true(any_contains("bob", from, "standard"));
    assert_true(any_contains("bob", from, "!presets lists them"));
    assert_null(last_to("#h", from));

    /* the last game, and its sheet until the next one starts */
    from = w->fake.n;
    said("bob", "#h", "!last");
    l = last_to("#h", from);
    assert_non_null(l);
    /* hands=1 plays on past a tie */
    if (!strstr(l->text, "Last game (just now, standard custom, ") ||
        !strstr(l->text, "): alice "))
        fail_msg("!last: %s", l->text);
    assert_true(strstr(l->text, " won.") || strstr(l->text, "shared the win"));
    from = w->fake.n;
    said("bob", "#h", "!scores");
    assert_true(any_contains("#h", from, "the last game's sheet"));
    assert_true(any_contains("#h", from, "total"));
    four_people("standard");
    from = w->fake.n;
    said("bob", "#h", "!scores");
    assert_false(any_contains("#h", from, "the last game's sheet"));

    /* a restart reads leaderboard.json back */
    manager_free(w->m);
    w->m = manager_new(w->loop, &w->cfg);
    w->fake.base.ctx = w->m;
    from = w->fake.n;
    said("dave", "#h", "!stats dave custom");
    assert_true(any_contains("#h", from, "dave (custom): 1 game, "));
}

/* A nick change during a game does not split the record: the results
 * count for the key the person sat down with (their nick and host then),
 * the row shows that nick, and the person finds it under their new nick,
 * as do others. */
static void test_nick_change_keeps_one_record(void **state)
{
    (void)state;
    w->cfg.reply_interval = 0;
    w->cfg.channel_repeat = 0;
    four_people("standard hands=1");
    event(CHAT_NICK, "alice", "alice@host.test", NULL, "zoe");
    struct table *t = the_table();
    assert_string_equal(t->seats[0].nick, "zoe");
    /* said() gives "nick@host.test": the same person, as zoe, from now */
    snprintf(t->seats[0].id, sizeof t->seats[0].id, "zoe@host.test");
    play_everything(t);
    char text[8192];
    read_results(text, sizeof text);
    assert_non_null(
        strstr(text, "{\"name\":\"zoe\",\"key\":\"n:alice@host.test\""));
    assert_true(answered("bob", "!stats alice", "alice (standard): 1 game, "));
    /* whoever holds "zoe" now, and played as alice this session */
    assert_true(answered("bob", "!stats zoe", "alice (standard): 1 game, "));
    /* and zoe's own !stats is that record */
    assert_true(answered("zoe", "!stats", "alice (standard): 1 game, "));
    assert_true(answered("bob", "!top", "Top 4 (standard)"));
    assert_true(answered("bob", "!top", " alice "));
    assert_false(answered("bob", "!top", "zoe"));
}

/* `text` said in room by nick from id (no account). */
static void said_from(const char *nick, const char *id, const char *room,
                      const char *text)
{
    struct chat_event ev = {.kind = CHAT_MESSAGE,
                            .room = room,
                            .from = {.nick = nick, .id = id},
                            .text = text};
    manager_on_event(w->m, &w->fake.base, &ev);
}

/* The later holder of a nick, from another host, never gets the earlier
 * holder's record: a row of their own, shown with a number; the name
 * alone says there are two. */
static void test_nick_from_another_host_is_another_record(void **state)
{
    (void)state;
    w->cfg.reply_interval = 0;
    w->cfg.channel_repeat = 0;
    four_people("standard hands=1");
    play_everything(the_table());
    run_for(5);
    /* alice quits; someone else takes "alice" from elsewhere */
    event(CHAT_QUIT, "alice", "alice@host.test", NULL, NULL);
    said_from("alice", "mal@elsewhere.test", "#h", "!stats");
    assert_true(any_contains("#h", w->fake.n - 1,
                             "You have not finished a standard game here."));
    /* mal plays as alice */
    int from = w->fake.n;
    said_from("alice", "mal@elsewhere.test", "#h", "!hearts standard hands=1");
    said("bob", "#h", "!join");
    said("carol", "#h", "!join");
    said("dave", "#h", "!join");
    struct table *t = the_table();
    assert_string_equal(t->seats[0].key, "n:alice@elsewhere.test");
    said_from("alice", "mal@elsewhere.test", "#h", "!start");
    play_everything(t);
    run_for(5);
    char text[8192];
    read_results(text, sizeof text);
    assert_non_null(strstr(text, "\"key\":\"n:alice@elsewhere.test\""));
    /* two rows, two names: alice (first seen) and alice(2) */
    from = w->fake.n;
    said("bob", "#h", "!top 10");
    /* five people: two lines */
    assert_true(any_contains("#h", from, ". alice "));
    assert_true(any_contains("#h", from, ". alice(2) "));
    int alices = 0;
    for (int i = from; i < w->fake.n; i++)
        for (const char *p = w->fake.lines[i].text; (p = strstr(p, ". alice"));
             p++)
            alices++;
    assert_int_equal(alices, 2);
    assert_true(
        answered("bob", "!stats alice(2)", "alice(2) (standard): 1 game"));
    assert_true(answered("bob", "!stats alice", "alice (standard): 1 game"));
    assert_true(answered("bob", "!stats alice",
                         "Other people played here as alice too: "
                         "!stats alice(2)."));
    assert_true(answered("bob", "!stats ALICE(2)", "alice(2) (standard)"));
    /* mal's own: their record, not the first alice's */
    from = w->fake.n;
    said_from("alice", "mal@elsewhere.test", "#h", "!stats");
    assert_true(any_contains("#h", from, "alice(2) (standard): 1 game"));
    /* the first alice, back from her host, finds hers */
    from = w->fake.n;
    said("alice", "#h", "!stats");
    assert_true(any_contains("#h", from, "alice (standard): 1 game"));
    assert_false(any_contains("#h", from, "alice(2)"));
    /* no number that a name does not have */
    assert_true(answered("bob", "!stats alice(3)",
                         "alice(3) has not finished a standard game"));
}

static void test_stopped_game_and_leaver(void **state)
{
    (void)state;
    w->cfg.reply_interval = 0;
    w->cfg.channel_repeat = 0;
    four_people("standard hands=1");
    said("alice", "#h", "!stop");
    char path[128], text[8192];
    read_results(text, sizeof text);
    assert_non_null(strstr(text, "\"finished\":false"));
    assert_true(answered("bob", "!top", "Nobody has finished a standard game"));

    /* bob leaves a running game: a loss, never a win */
    four_people("standard hands=1");
    said("bob", "#h", "!leave");
    play_everything(the_table());
    read_results(text, sizeof text);
    const char *second = strchr(text, '\n') + 1;
    assert_non_null(strstr(second,
                           "\"name\":\"bob\",\"key\":\"n:bob@host.test\","
                           "\"computer\":false,\"left\":true"));
    assert_non_null(strstr(second, "\"key\":\"n:alice@host.test\",\"computer\":"
                                   "false,\"left\":false"));
    assert_true(answered("bob", "!stats", "bob (standard): 1 game, 0 wins"));
    room_file(path, sizeof path, "archive.jsonl");
    read_small(path, text, sizeof text);
    char *nl = strchr(text, '\n');
    assert_non_null(nl);
    char err[300];
    if (record_check(text, (size_t)(nl - text), err, sizeof err))
        fail_msg("stopped game's record: %s", err);
}

static void test_part_grace_then_computer_takes_over(void **state)
{
    (void)state;
    char nick[64], id[128];
    int turn = first_turn(nick, id);
    struct table *t = the_table();
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

static void identity(const char *nick, const char *id)
{
    struct chat_event ev = {.kind = CHAT_IDENTITY,
                            .from = {.nick = nick, .id = id}};
    manager_on_event(w->m, &w->fake.base, &ev);
}

static int private_lines_to(const char *nick, int from)
{
    int k = 0;
    for (int i = from; i < w->fake.n; i++)
        k += w->fake.lines[i].private_ &&
             strcasecmp(w->fake.lines[i].to, nick) == 0;
    return k;
}

/* A seat marked gone is told nothing private (the reminder at half time
 * would reach whoever has the nick now). */
static void test_gone_seat_is_told_nothing(void **state)
{
    (void)state;
    char nick[64], id[128];
    first_turn(nick, id);
    int from = w->fake.n;
    event(CHAT_QUIT, nick, id, NULL, NULL);
    w->cfg.grace_period = 60;
    run_for(700); /* past the reminder */
    assert_int_equal(private_lines_to(nick, from), 0);
    /* back (joins with the same user@host): prompted again */
    event(CHAT_JOIN, nick, id, "#h", NULL);
    assert_true(any_contains(nick, from, "Your turn"));
}

/* Everyone left (a server restart, say): the table pauses. One person
 * confirmed back, whoever's turn it is, and the game goes on. */
static void test_a_paused_table_goes_on_when_anyone_is_back(void **state)
{
    (void)state;
    w->fake.base.ops = &fake_ops_irc;
    w->cfg.grace_period = 60;
    w->cfg.turn_timeout = 60;
    said("alice", "#h", "!hearts standard pass_count=0");
    said("bob", "#h", "!join");
    said("alice", "#h", "!start");
    struct table *t = the_table();
    assert_true(t->playing);
    int turn = engine_turn(&t->game);
    assert_true(t->seats[turn].human);
    const char *idle = strcmp(t->seats[turn].nick, "alice") ? "alice" : "bob";
    event(CHAT_QUIT, "alice", "alice@host.test", NULL, NULL);
    event(CHAT_QUIT, "bob", "bob@host.test", NULL, NULL);
    /* the bot's link drops and comes back: nobody is at the table */
    event(CHAT_DISCONNECTED, NULL, NULL, NULL, NULL);
    int asked = w->fake.nverified;
    event(CHAT_CONNECTED, NULL, NULL, NULL, NULL);
    assert_true(t->paused);
    /* they may be back before the bot (their JOIN unseen): asked about */
    assert_int_equal(w->fake.nverified, asked + 2);
    int from = w->fake.n;
    char id[128];
    snprintf(id, sizeof id, "%s@host.test", idle);
    identity(idle, id);
    assert_false(t->paused);
    assert_true(any_contains("#h", from, "The game goes on"));
}

/* After a reconnect nothing private goes to a seat until the adapter has
 * confirmed who holds its nick: the right person gets what they need
 * then; a nick held by someone else gets nothing, and the seat waits for
 * its person. */
static void test_reconnect_confirms_identity_before_secrets(void **state)
{
    (void)state;
    w->fake.base.ops = &fake_ops_irc;
    w->cfg.grace_period = 60;
    w->cfg.turn_timeout = 60;
    four_people("standard");
    struct table *t = the_table();
    assert_int_equal(engine_phase(&t->game), ENGINE_PHASE_PASS);
    all_sent(0);
    event(CHAT_DISCONNECTED, NULL, NULL, NULL, NULL);
    int from = w->fake.n;
    event(CHAT_CONNECTED, NULL, NULL, NULL, NULL);
    assert_int_equal(w->fake.nverified, 4);
    for (int s = 0; s < 4; s++)
        assert_int_equal(private_lines_to(t->seats[s].nick, from), 0);
    /* alice is alice: her deal again, as she must pass */
    identity("alice", "alice@host.test");
    assert_true(any_contains("alice", from, "Your cards"));
    /* someone else has bob's nick now; nobody has carol's */
    identity("bob", "mallory@evil.test");
    identity("carol", NULL);
    int seat_bob = -1;
    for (int s = 0; s < 4; s++)
        if (strcmp(t->seats[s].nick, "bob") == 0)
            seat_bob = s;
    assert_true(t->seats[seat_bob].gone);
    assert_int_equal(private_lines_to("bob", from), 0);
    assert_int_equal(private_lines_to("carol", from), 0);
    /* nothing goes to either meanwhile; who holds their nicks is asked
     * again a little later (they may be back before the bot saw them) */
    all_sent(from);
    int asked = w->fake.nverified;
    run_for(3100);
    assert_int_equal(private_lines_to("bob", from), 0);
    assert_int_equal(private_lines_to("carol", from), 0);
    assert_true(w->fake.nverified >= asked + 2);
    assert_string_equal(w->fake.verified[w->fake.nverified - 1], "carol");
    /* carol was back unseen (before the bot): confirmed, told again */
    identity("carol", "carol@host.test");
    assert_true(any_contains("carol", from, "Your cards"));
    /* dave chats in the channel (nick and user@host match): confirmed
     * and, before the network's answer, told his deal again */
    said("dave", "#h", "sorry, lag");
    assert_true(any_contains("dave", from, "Your cards"));
    /* the real bob comes back: his deal again */
    event(CHAT_JOIN, "bob", "bob@host.test", "#h", NULL);
    assert_true(any_contains("bob", from, "Your cards"));
}

/* The turn timer starts when the prompt has been written, not when it was
 * queued: a person behind a backlog gets the whole turn_timeout. */
static void test_turn_timer_starts_when_prompt_sent(void **state)
{
    (void)state;
    w->fake.base.ops = &fake_ops_irc;
    four_people("standard pass_count=0");
    struct table *t = the_table();
    int turn = engine_turn(&t->game);
    const char *nick = t->seats[turn].nick;
    assert_true(any_contains(nick, 0, "Your turn"));
    const struct line *prompt = last_to(nick, 0);
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
    w->fake.base.ops = &fake_ops_irc;
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
        struct line *l = &w->fake.lines[i];
        if (!l->cookie || l->retracted || l->sent || l->to[0] == '#')
            continue;
        l->sent = true;
        struct chat_event ev = {.kind = CHAT_SENT, .cookie = l->cookie};
        manager_on_event(w->m, &w->fake.base, &ev);
    }
}

/* The channel is never behind the game: while trick 1's line waits,
 * nobody is prompted for trick 2 (and no turn timer runs); once it is
 * written the game goes on. */
static void test_trick_waits_for_the_channel(void **state)
{
    (void)state;
    w->fake.base.ops = &fake_ops_irc;
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
    w->fake.base.ops = &fake_ops_limited;
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
    w->fake.base.ops = &fake_ops_irc;
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
    w->cfg.turn_timeout = 60; /* no "the table waits for" line meanwhile */
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
    read_small(path, out, len);
}

static void test_record_past_file_size_limit_is_logged_not_torn(void **state)
{
    (void)state;
    char path[128], logpath[128], log[65536];
    snprintf(path, sizeof path, "%s/test", w->dir);
    assert_int_equal(mkdir(path, 0700), 0);
    snprintf(path, sizeof path, "%s/test/%%23h", w->dir);
    assert_int_equal(mkdir(path, 0700), 0);
    snprintf(path, sizeof path, "%s/test/%%23h/archive.jsonl", w->dir);
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
    /* the record is kept in the log, the channel told why */
    assert_non_null(strstr(log, "the record not written: {"));
    assert_int_equal(count_starting("#h", 0, "Results can't be saved"), 1);
    assert_true(any_contains(
        "#h", 0, "Results can't be saved: a file reached the size limit."));
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
    assert_int_equal(count_starting("#h", 0, "Results can't be saved"), 1);
}

/* A data directory that cannot be written at start: the bot runs on, each
 * channel hears it once when a table opens, and once it can be written a
 * new table finds it again and its game is archived. */
static void
test_storage_unwritable_at_start_told_once_and_recovers(void **state)
{
    (void)state;
    char file[128], logpath[128], log[8192], err[300];
    snprintf(file, sizeof file, "%s/data", w->dir);
    snprintf(logpath, sizeof logpath, "%s.log", w->dir);
    FILE *f = fopen(file, "w"); /* data_dir is a file */
    assert_non_null(f);
    fclose(f);
    free(w->cfg.data_dir);
    w->cfg.data_dir = strdup(file);
    int saved = log_begin(logpath);
    int rc = manager_storage_start(w->m, err, sizeof err);
    said("alice", "#a", "!hearts");
    said("alice", "#a", "!leave");
    said("bob", "#b", "!hearts");
    said("alice", "#A", "!hearts"); /* the same channel, folded */
    log_end(saved, logpath, log, sizeof log);
    unlink(logpath);
    assert_int_equal(rc, 0);
    if (!strstr(log, "results can't be saved"))
        fail_msg("log: %s", log);
    const char *told = "Results can't be saved: a file or link is in the "
                       "way. The game goes on.";
    assert_int_equal(count_starting("#a", 0, told), 1);
    assert_int_equal(count_starting("#b", 0, told), 1);
    /* it can be written again: nobody is told, the game is archived */
    assert_int_equal(unlink(file), 0);
    said("alice", "#A", "!leave");
    said("bob", "#b", "!leave");
    int from = w->fake.n;
    four_people("standard hands=1");
    play_everything(the_table());
    run_for(5);
    assert_int_equal(count_starting("#h", from, "Results can't"), 0);
    assert_true(storage_locked());
    storage_unlock();
    char path[300];
    snprintf(path, sizeof path, "%s/test/%%23h/archive.jsonl", file);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_true(st.st_size > 100);
}

/* A room's files: the network and the room folded, then encoded. */
static void test_table_room_dir_folds_and_encodes(void **state)
{
    (void)state;
    said("alice", "#Hearts/..", "!hearts");
    struct table *t = mgr_table_find(w->m, &w->fake.base, "#Hearts/..");
    assert_non_null(t);
    char dir[STORAGE_PATH_MAX], err[300], want[300];
    assert_int_equal(mgr_table_dir(t, dir, sizeof dir, err, sizeof err), 0);
    snprintf(want, sizeof want, "%s/test/%%23hearts%%2F..", w->dir);
    assert_string_equal(dir, want);
    struct stat st;
    assert_int_equal(stat(dir, &st), 0);
    assert_true(S_ISDIR(st.st_mode));
    /* too small a buffer: refused, not cut */
    char small[16];
    assert_int_equal(mgr_table_dir(t, small, sizeof small, err, sizeof err),
                     -1);
}

/* Every used seat's display name differs from every other (case aside). */
static void assert_names_unique(const struct table *t)
{
    for (int a = 0; a < t->capacity; a++)
        for (int b = a + 1; b < t->capacity; b++)
            if (t->seats[a].used && t->seats[b].used &&
                strcasecmp(mgr_seat_name(t, a), mgr_seat_name(t, b)) == 0)
                fail_msg("seats %d and %d both show '%s'", a, b,
                         mgr_seat_name(t, a));
}

static void test_person_named_like_a_computer(void **state)
{
    (void)state;
    said("alice", "#h", "!hearts");
    said("alice", "#h", "!bot 1");
    struct table *t = the_table();
    assert_string_equal(mgr_seat_name(t, 1), "bot1");
    /* a person called bot1 sits: the computer takes another name */
    said("bot1", "#h", "!join");
    assert_string_equal(mgr_seat_name(t, 2), "bot1");
    assert_string_equal(mgr_seat_name(t, 1), "bot2");
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
    assert_string_equal(mgr_seat_name(t, 1), "bob");
    assert_string_equal(mgr_seat_name(t, 0), "bob(2)");
    assert_string_equal(mgr_seat_name(t, 2), "BOB(3)");
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
    assert_string_equal(mgr_seat_name(t, me), "bot2(2)");
    assert_names_unique(t);
    /* the computers keep their names during the game */
    int bots = 0;
    for (int s = 0; s < 4; s++)
        bots += !t->seats[s].human && strncmp(mgr_seat_name(t, s), "bot", 3) == 0;
    assert_int_equal(bots, 3);
}

/* ---- Display names (chat_user.display, Matrix) ----------------------- */

static struct table *restart(void);

/* nick says text showing `display` (NULL: none), as a Matrix person: the
 * account is their ID. */
static void said_shown(const char *nick, const char *display, const char *room,
                       const char *text)
{
    struct chat_user u = user(nick);
    u.account = nick;
    u.display = display;
    struct chat_event ev = {
        .kind = CHAT_MESSAGE, .room = room, .from = u, .text = text};
    manager_on_event(w->m, &w->fake.base, &ev);
}

static void renamed(const char *nick, const char *display, const char *room)
{
    struct chat_user u = user(nick);
    u.account = nick;
    u.display = display;
    struct chat_event ev = {.kind = CHAT_RENAME, .room = room, .from = u};
    manager_on_event(w->m, &w->fake.base, &ev);
}

/* alice, bob, carol and dave shown as Alice, Bob, Bob and Dave. */
static struct table *four_shown(const char *rules)
{
    char cmd[200];
    snprintf(cmd, sizeof cmd, "!hearts %s", rules);
    said_shown("alice", "Alice", "#h", cmd);
    said_shown("bob", "Bob", "#h", "!join");
    said_shown("carol", "Bob", "#h", "!join");
    said_shown("dave", "Dave", "#h", "!join");
    said_shown("alice", "Alice", "#h", "!start");
    struct table *t = the_table();
    assert_true(t->playing);
    return t;
}

/* Whether a line said in #h since `from` holds needle (case counts). */
static bool room_says(int from, const char *needle)
{
    for (int i = from; i < w->fake.n; i++)
        if (!w->fake.lines[i].private_ && strstr(w->fake.lines[i].text, needle))
            return true;
    return false;
}

static void test_display_names_are_shown_not_ids(void **state)
{
    (void)state;
    w->cfg.reply_interval = 0;
    w->cfg.channel_repeat = 0;
    struct table *t = four_shown("standard hands=1");
    /* two people showing the same name are told apart */
    assert_true(any_contains("#h", 0, "Alice opens"));
    assert_true(any_contains("#h", 0,
                             "The game begins: Alice, Bob, Bob(2), "
                             "Dave."));
    assert_names_unique(t);
    /* addressed and counted by their IDs all the same */
    assert_string_equal(t->seats[2].nick, "carol");
    assert_string_equal(t->seats[2].key, "a:carol");
    int from = w->fake.n;
    said_shown("bob", "Bob", "#h", "!status");
    assert_true(room_says(from, "Bob(2)"));
    play_everything(t);
    assert_true(room_says(0, "Trick 1: "));
    assert_true(room_says(0, "Bob(2)"));
    /* the sheet's columns and every line in the room: never the IDs */
    from = first_starting("#h", 0, "Game over!");
    assert_true(from >= 0);
    assert_true(room_says(from, "Alice"));
    assert_true(room_says(from, "Dave"));
    assert_false(room_says(0, "alice"));
    assert_false(room_says(0, "carol"));
    assert_false(room_says(0, "dave"));
    char text[8192];
    read_results(text, sizeof text);
    assert_non_null(strstr(text, "{\"name\":\"Alice\",\"key\":\"a:alice\""));
    assert_non_null(strstr(text, "{\"name\":\"Bob(2)\",\"key\":\"a:carol\""));
    from = w->fake.n;
    said_shown("alice", "Alice", "#h", "!stats");
    assert_true(any_contains("#h", from, "Alice (standard): 1 game, "));
    from = w->fake.n;
    said_shown("bob", "Bob", "#h", "!stats Dave");
    assert_true(any_contains("#h", from, "Dave (standard): 1 game, "));
}

static void test_rename_changes_only_the_name_shown(void **state)
{
    (void)state;
    struct table *t = four_shown("standard");
    struct engine_game before = t->game;
    renamed("bob", "Robert", "#h");
    assert_string_equal(mgr_seat_name(t, 1), "Robert");
    assert_string_equal(t->seats[1].nick, "bob");
    assert_string_equal(t->seats[1].key, "a:bob");
    /* carol is the only Bob now */
    assert_string_equal(mgr_seat_name(t, 2), "Bob");
    assert_memory_equal(&before, &t->game, sizeof before);
    /* a name in another room is not this table's */
    renamed("bob", "Elsewhere", "#other");
    assert_string_equal(mgr_seat_name(t, 1), "Robert");
    /* a name like another seat's is told apart */
    renamed("dave", "Alice", "#h");
    assert_string_equal(mgr_seat_name(t, 0), "Alice");
    assert_string_equal(mgr_seat_name(t, 3), "Alice(2)");
    assert_names_unique(t);
    /* hostile: invisible and bidirectional characters are cleaned */
    renamed("dave",
            "Al\xe2\x80\x8bi\xe2\x80\xae"
            "ce",
            "#h");
    assert_string_equal(mgr_seat_name(t, 3), "Alice(2)");
    /* no name any more: the nick, network-wide */
    renamed("carol", NULL, NULL);
    assert_string_equal(mgr_seat_name(t, 2), "carol");
    /* a private message's name (from another room) does not override */
    said_shown("bob", "Bobby", NULL, "hand");
    assert_string_equal(mgr_seat_name(t, 1), "Robert");
    /* the names survive a restart (the journal keeps them) */
    run_for(5);
    t = restart();
    assert_non_null(t);
    assert_string_equal(mgr_seat_name(t, 1), "Robert");
    assert_string_equal(mgr_seat_name(t, 3), "Alice(2)");
    assert_string_equal(mgr_seat_name(t, 2), "carol");
    /* a seat without a name (an older journal) takes the next one seen,
     * a private message's too */
    said_shown("carol", "Caroline", NULL, "hand");
    assert_string_equal(mgr_seat_name(t, 2), "Caroline");
}

/* Four people at a standard game, `plays` cards of the first hand down
 * (its journal written so far). */
static struct table *standard_game_at(int plays)
{
    four_people("standard target=30");
    struct table *t = the_table();
    play_to(t, 1, plays);
    return t;
}

/* ---- Journals and restarts -------------------------------------------- */

/* The bot stops at once (a crash: nothing said, nothing cleaned) and
 * starts again on the same data_dir: the table rebuilt, if any. */
static struct table *restart(void)
{
    manager_free(w->m);
    w->m = manager_new(w->loop, &w->cfg);
    w->fake.base.ctx = w->m;
    manager_restore(w->m, &w->fake.base);
    return the_table();
}

/* What a restart must keep of a game, as text to compare. */
static char *snapshot(const struct table *t)
{
    static char buf[8192];
    const struct engine_game *g = &t->game;
    size_t pos = (size_t)snprintf(
        buf, sizeof buf,
        "id %s phase %d hand %d turn %d plays %d trick %d "
        "passed %x blind %x|",
        t->game_id, (int)engine_phase(g), g->hand_no, engine_turn(g), g->nplays,
        g->trick_no, (unsigned)g->passed_mask, (unsigned)g->blind_mask);
    for (int s = 0; s < t->capacity; s++) {
        struct engine_cards h = engine_hand(g, s);
        const struct seat *st = &t->seats[s];
        pos += (size_t)snprintf(
            buf + pos, sizeof buf - pos,
            "%s/%s/%s h%d a%d l%d %llx %llx may%d total %d|", st->nick, st->id,
            st->key, st->human, st->away, st->level, (unsigned long long)h.one,
            (unsigned long long)h.two,
            g->phase == ENGINE_PHASE_GAME_OVER ? 0 : engine_may_act(g, s),
            (int)g->totals[s]);
    }
    for (int i = 0; i < g->nplays; i++)
        pos += (size_t)snprintf(buf + pos, sizeof buf - pos, "%s%d ",
                                engine_card_name(g->plays[i]), g->play_seat[i]);
    if (g->phase == ENGINE_PHASE_PLAY)
        pos += (size_t)snprintf(buf + pos, sizeof buf - pos, "legal %llx",
                                (unsigned long long)engine_legal_plays(g));
    for (int i = 0; i < t->nhist; i++)
        for (int s = 0; s < t->capacity; s++)
            pos += (size_t)snprintf(buf + pos, sizeof buf - pos, " %d",
                                    (int)t->hist[i][s]);
    return strdup(buf);
}

/* Restarts: the table is back as `before` (a snapshot, freed) says. */
static struct table *restart_to(char *before)
{
    struct table *t = restart();
    assert_non_null(t);
    char *after = snapshot(t);
    assert_string_equal(after, before);
    free(before);
    free(after);
    return t;
}

/* Restarts and checks the table is exactly as it was, its record too. */
static struct table *restart_same(struct table *t)
{
    char *rec = record_writer_json(t->rec);
    t = restart_to(snapshot(t));
    char *rec2 = record_writer_json(t->rec);
    assert_string_equal(rec2, rec);
    free(rec);
    free(rec2);
    return t;
}

/* The last line of the room's archive, or NULL; *count: how many. */
static char *archived(int *count)
{
    char path[128];
    snprintf(path, sizeof path, "%s/test/%%23h/archive.jsonl", w->dir);
    FILE *f = fopen(path, "r");
    *count = 0;
    if (!f)
        return NULL;
    char *line = NULL, *keep = NULL;
    size_t cap = 0;
    while (getline(&line, &cap, f) > 0) {
        (*count)++;
        free(keep);
        keep = strdup(line);
    }
    free(line);
    fclose(f);
    return keep;
}

static void test_restart_mid_pass_resumes_exactly(void **state)
{
    (void)state;
    four_people("standard target=30");
    struct table *t = the_table();
    char path[1024];
    snprintf(path, sizeof path, "%s", t->journal);
    assert_true(path[0] != '\0');
    char cmd[100];
    first_three(t, 0, cmd, sizeof cmd);
    said(t->seats[0].nick, NULL, cmd);
    first_three(t, 2, cmd, sizeof cmd);
    said(t->seats[2].nick, NULL, cmd);
    assert_int_equal(engine_phase(&t->game), ENGINE_PHASE_PASS);
    t = restart_same(t);
    /* back in the room: the channel is told, those to pass get the deal,
     * the others their hand */
    int from = w->fake.n;
    event(CHAT_CONNECTED, NULL, NULL, NULL, NULL);
    assert_true(any_contains("#h", from,
                             "The game goes on after a restart: "
                             "waiting for the passes of"));
    assert_true(any_contains(t->seats[1].nick, from, "Your cards"));
    assert_true(any_contains(t->seats[3].nick, from, "Your cards"));
    assert_true(any_contains(t->seats[0].nick, from, "Your hand"));
    play_everything(t);
    assert_true(any_contains("#h", from, "Game over!"));
    int n;
    char *line = archived(&n);
    assert_int_equal(n, 1);
    char err[300];
    if (record_check(line, strlen(line), err, sizeof err))
        fail_msg("record refused: %s", err);
    free(line);
    /* the journal goes with the finished game */
    assert_int_equal(access(path, F_OK), -1);
}

static bool serves_nothing(const struct chat_adapter *a, const char *room)
{
    (void)a;
    (void)room;
    return false;
}

/* A room the adapter will not be in (a channel gone from the config): its
 * journal is left as it is, nothing is said; with the room back the game
 * goes on. */
static void test_restart_without_the_room_keeps_its_journal(void **state)
{
    (void)state;
    struct table *t = standard_game_at(6);
    char path[1024];
    snprintf(path, sizeof path, "%s", t->journal);
    static char before[65536], after[65536];
    read_small(path, before, sizeof before);
    char *was = snapshot(t);
    const struct chat_adapter_ops *ops = w->fake.base.ops;
    struct chat_adapter_ops elsewhere = *ops;
    elsewhere.serves = serves_nothing;
    w->fake.base.ops = &elsewhere;
    int from = w->fake.n;
    assert_null(restart());
    event(CHAT_CONNECTED, NULL, NULL, NULL, NULL);
    run_for(5);
    assert_int_equal(w->fake.n, from);
    read_small(path, after, sizeof after);
    assert_string_equal(after, before);
    /* the room back in the config */
    w->fake.base.ops = ops;
    restart_to(was);
    event(CHAT_CONNECTED, NULL, NULL, NULL, NULL);
    assert_true(
        any_contains("#h", from, "The game goes on after a restart: hand 1"));
}

static void test_restart_mid_trick_and_between_hands(void **state)
{
    (void)state;
    w->fake.base.ops = &fake_ops_irc;
    w->cfg.turn_timeout = 60;
    struct table *t = standard_game_at(6);
    assert_int_equal(t->game.nplays, 6);
    t = restart_same(t);
    /* people are confirmed before anything private reaches them */
    int from = w->fake.n;
    event(CHAT_CONNECTED, NULL, NULL, NULL, NULL);
    assert_true(any_contains("#h", from,
                             "The game goes on after a restart: "
                             "hand 1, "));
    int turn = engine_turn(&t->game);
    for (int s = 0; s < 4; s++)
        assert_int_equal(private_lines_to(t->seats[s].nick, from), 0);
    for (int s = 0; s < 4; s++) {
        char id[128];
        snprintf(id, sizeof id, "%s@host.test", t->seats[s].nick);
        identity(t->seats[s].nick, id);
    }
    assert_true(any_contains(t->seats[turn].nick, from, "Your turn at #h"));
    assert_true(
        any_contains(t->seats[(turn + 1) % 4].nick, from, "Your hand: "));
    /* the next person still plays */
    play_to(t, 1, 7);
    assert_int_equal(t->game.nplays, 7);
    /* what came in the passing is old news by now: never told again */
    for (int s = 0; s < 4; s++)
        assert_false(any_contains(t->seats[s].nick, from, "You received"));
    /* between hands: the scores so far come back too */
    w->cfg.next_hand_delay = 3600;
    play_to(t, 1, 99);
    assert_int_equal(engine_phase(&t->game), ENGINE_PHASE_DEAL);
    assert_int_equal(t->nhist, 1);
    t = restart_same(t);
    w->cfg.next_hand_delay = 0;
    from = w->fake.n;
    event(CHAT_CONNECTED, NULL, NULL, NULL, NULL);
    assert_true(any_contains("#h", from, "the next hand is dealt"));
    for (int s = 0; s < 4; s++) {
        char id[128];
        snprintf(id, sizeof id, "%s@host.test", t->seats[s].nick);
        identity(t->seats[s].nick, id);
    }
    all_sent(from);
    run_for(5);
    assert_int_equal(t->game.hand_no, 2);
    /* each next deal waits for the channel's lines to be sent */
    for (int guard = 0; guard < 100 && !t->closing; guard++) {
        all_sent(from);
        from = w->fake.n;
        play_everything(t);
    }
    int n;
    char *line = archived(&n);
    assert_int_equal(n, 1);
    free(line);
}

static void test_restart_keeps_seat_changes(void **state)
{
    (void)state;
    struct table *t = standard_game_at(1);
    /* a nick change (no channel line: journaled at the round's end), a
     * seat taken by a computer for good, another away, autoplay */
    int a = 1, b = 2, c = 3;
    char old[64], id[128];
    snprintf(old, sizeof old, "%s", t->seats[a].nick);
    snprintf(id, sizeof id, "%s@host.test", old);
    event(CHAT_NICK, old, id, NULL, "renamed");
    run_for(1);
    said(t->seats[b].nick, "#h", "!leave");
    assert_false(t->seats[b].human);
    t->seats[c].away = true;
    said(t->seats[c].nick, NULL, "autoplay on");
    assert_int_equal(t->seats[c].autoplay, SEAT_AUTOPLAY_FORCED);
    run_for(1);
    t = restart_same(t);
    assert_string_equal(t->seats[a].nick, "renamed");
    assert_string_equal(t->seats[a].id, id);
    assert_false(t->seats[b].human);
    assert_true(t->seats[c].away);
    assert_int_equal(t->seats[c].autoplay, SEAT_AUTOPLAY_FORCED);
    /* the renamed person is known by user@host: back to the old nick,
     * everyone plays on */
    event(CHAT_CONNECTED, NULL, NULL, NULL, NULL);
    event(CHAT_NICK, "renamed", id, NULL, old);
    assert_string_equal(t->seats[a].nick, old);
    play_everything(t);
    int n;
    free(archived(&n));
    assert_int_equal(n, 1);
}

static void test_restart_keeps_a_lobby(void **state)
{
    (void)state;
    said("alice", "#h", "!hearts standard target=30");
    said("bob", "#h", "!join");
    said("alice", "#h", "!bot");
    said("carol", "#h", "!join");
    said("carol", "#h", "!leave");
    struct table *t = restart();
    assert_non_null(t);
    assert_false(t->playing);
    assert_int_equal(mgr_table_seated(t), 3);
    assert_string_equal(t->seats[0].nick, "alice");
    assert_string_equal(t->seats[1].nick, "bob");
    assert_false(t->seats[2].human);
    assert_int_equal(t->opener, 0);
    int from = w->fake.n;
    event(CHAT_CONNECTED, NULL, NULL, NULL, NULL);
    assert_true(any_contains("#h", from,
                             "The table goes on after a restart: "
                             "the table is open (3/4 seated)"));
    said("alice", "#h", "!start");
    assert_true(t->playing);
    play_everything(t);
    int n;
    free(archived(&n));
    assert_int_equal(n, 1);
}

/* Appends raw text to a file. */
static void append_raw(const char *path, const char *text)
{
    FILE *f = fopen(path, "a");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void test_restart_drops_a_torn_last_line(void **state)
{
    (void)state;
    struct table *t = standard_game_at(3);
    append_raw(t->journal, "{\"play\":\"2");
    t = restart_same(t);
    /* and the next line starts afresh */
    play_to(t, 1, 5);
    char path[1024];
    snprintf(path, sizeof path, "%s", t->journal);
    t = restart_same(t);
    assert_int_equal(t->game.nplays, 5);
}

/* The directory holding a journal moved aside (".bad-"), or not. */
static bool moved_aside(const char *journal)
{
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "ls %s.bad-* >/dev/null 2>&1", journal);
    return system(cmd) == 0;
}

static void test_restart_moves_a_corrupt_journal_aside(void **state)
{
    (void)state;
    struct table *t = standard_game_at(3);
    char path[1024];
    snprintf(path, sizeof path, "%s", t->journal);
    /* a play of a card nobody holds now: the first card played again */
    char line[64];
    snprintf(line, sizeof line, "{\"play\":\"%s\"}\n",
             engine_card_name(t->game.plays[0]));
    append_raw(path, line);
    t = restart();
    assert_null(t);
    assert_int_equal(access(path, F_OK), -1);
    assert_true(moved_aside(path));
    int from = w->fake.n;
    event(CHAT_CONNECTED, NULL, NULL, NULL, NULL);
    assert_true(any_contains("#h", from, "could not be restored"));
    /* once */
    from = w->fake.n;
    event(CHAT_CONNECTED, NULL, NULL, NULL, NULL);
    assert_false(any_contains("#h", from, "could not be restored"));
    /* the room is free for a new table */
    said("alice", "#h", "!hearts");
    assert_non_null(the_table());
}

static void test_restart_refuses_an_unknown_format(void **state)
{
    (void)state;
    said("alice", "#h", "!hearts");
    char path[1024];
    snprintf(path, sizeof path, "%s", the_table()->journal);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("{\"format\":\"heartsbot-journal/9\",\"game\":\"0123456789abcdef\","
          "\"network\":\"test\",\"room\":\"#h\",\"rules\":\"standard\","
          "\"opened\":1}\n",
          f);
    fclose(f);
    assert_null(restart());
    assert_true(moved_aside(path));
    /* an unknown rule is refused too */
    said("alice", "#h", "!hearts");
    snprintf(path, sizeof path, "%s", the_table()->journal);
    f = fopen(path, "w");
    assert_non_null(f);
    fputs("{\"format\":\"heartsbot-journal/1\",\"game\":\"0123456789abcdef\","
          "\"network\":\"test\",\"room\":\"#h\",\"rules\":\"standard "
          "no_such_rule=1\",\"opened\":1}\n",
          f);
    fclose(f);
    assert_null(restart());
    assert_true(moved_aside(path));
    int from = w->fake.n;
    event(CHAT_CONNECTED, NULL, NULL, NULL, NULL);
    assert_true(any_contains("#h", from, "could not be restored"));
}

static void test_restart_archives_a_finished_journal(void **state)
{
    (void)state;
    four_people("standard target=30");
    struct table *t = the_table();
    char path[1024];
    snprintf(path, sizeof path, "%s", t->journal);
    /* the bot dies between the game's end and its archive: the journal
     * stays and the archive lacks the game */
    w->m->keep_journals = true;
    play_everything(t);
    int n;
    char *want = archived(&n);
    assert_int_equal(n, 1);
    char archive[128];
    snprintf(archive, sizeof archive, "%s/test/%%23h/archive.jsonl", w->dir);
    assert_int_equal(unlink(archive), 0);
    /* and the results and leaderboards that follow the archive */
    snprintf(archive, sizeof archive, "%s/test/%%23h/results.jsonl", w->dir);
    assert_int_equal(unlink(archive), 0);
    snprintf(archive, sizeof archive, "%s/test/%%23h/leaderboard.json", w->dir);
    unlink(archive);
    assert_int_equal(access(path, F_OK), 0);
    assert_null(restart());
    char *got = archived(&n);
    assert_int_equal(n, 1);
    assert_string_equal(got, want);
    assert_int_equal(access(path, F_OK), -1);
    free(got);
    free(want);
}

static void test_shutdown_keeps_the_game_for_the_next_start(void **state)
{
    (void)state;
    struct table *t = standard_game_at(2);
    char *before = snapshot(t);
    manager_shutdown(w->m, "bye: this game ends unscored.");
    assert_true(any_contains("#h", 0, "this game goes on when it is back"));
    run_for(5);
    restart_to(before);
}

/* ---- Services accounts -------------------------------------------------- */

/* An event from a person with user@host `id` and services account
 * `account` (NULL: none known, or logged out). */
static void from_account(enum chat_event_kind k, const char *nick,
                         const char *id, const char *account, const char *room,
                         const char *text, const char *target)
{
    struct chat_event ev = {
        .kind = k,
        .room = room,
        .from = {.nick = nick, .id = id, .account = account},
        .text = text,
        .target = target};
    manager_on_event(w->m, &w->fake.base, &ev);
}

/* A message from nick at "nick@host.test" logged in to `account`. */
static void said_account(const char *nick, const char *account,
                         const char *room, const char *text)
{
    char id[128];
    snprintf(id, sizeof id, "%s@host.test", nick);
    from_account(CHAT_MESSAGE, nick, id, account, room, text, NULL);
}

/* Four people logged in to accounts named like them with a capital:
 * alice is Alice, and so on; a game with no passing. */
static struct table *four_accounts(void)
{
    w->cfg.grace_period = 60;
    w->cfg.turn_timeout = 60;
    said_account("alice", "Alice", "#h", "!hearts standard pass_count=0");
    said_account("bob", "Bob", "#h", "!join");
    said_account("carol", "Carol", "#h", "!join");
    said_account("dave", "Dave", "#h", "!join");
    said_account("alice", "Alice", "#h", "!start");
    struct table *t = the_table();
    assert_true(t->playing);
    return t;
}

static int seat_of_nick(const struct table *t, const char *nick)
{
    for (int s = 0; s < t->capacity; s++)
        if (strcmp(t->seats[s].nick, nick) == 0)
            return s;
    fail_msg("%s is not seated", nick);
    return -1;
}

/* The card to play for the seat whose turn it is, as a command. */
static void lowest_play(const struct table *t, char *cmd, size_t len)
{
    uint64_t legal = engine_legal_plays(&t->game);
    int c = 0;
    while (!(legal >> c & 1))
        c++;
    snprintf(cmd, len, "play %s", engine_card_name(c));
}

/* An account logged out mid-game (same nick and user@host) keeps the seat
 * and plays on; the seat remembers the account it was taken with. */
static void test_account_logout_mid_game_keeps_the_seat(void **state)
{
    (void)state;
    struct table *t = four_accounts();
    int turn = engine_turn(&t->game);
    assert_string_equal(t->seats[seat_of_nick(t, "alice")].account, "Alice");
    assert_string_equal(t->seats[seat_of_nick(t, "alice")].key, "a:Alice");
    char cmd[32];
    lowest_play(t, cmd, sizeof cmd);
    said_account(t->seats[turn].nick, NULL, NULL, cmd);
    assert_int_equal(t->game.nplays, 1);
    assert_false(t->seats[turn].gone);
    /* the seat still knows the account: logging in to it again is fine */
    int next = engine_turn(&t->game);
    lowest_play(t, cmd, sizeof cmd);
    char acct[sizeof t->seats[0].account];
    snprintf(acct, sizeof acct, "%s", t->seats[next].account);
    acct[0] = (char)tolower((unsigned char)acct[0]); /* case aside */
    said_account(t->seats[next].nick, acct, NULL, cmd);
    assert_int_equal(t->game.nplays, 2);
}

/* The same nick and user@host logged in to another account is someone
 * else (a shared host, a bouncer): not the seat's person. */
static void test_account_other_account_is_refused(void **state)
{
    (void)state;
    struct table *t = four_accounts();
    int turn = engine_turn(&t->game);
    char nick[64];
    snprintf(nick, sizeof nick, "%s", t->seats[turn].nick);
    char cmd[32];
    lowest_play(t, cmd, sizeof cmd);
    int from = w->fake.n;
    said_account(nick, "Mallory", NULL, cmd);
    assert_int_equal(t->game.nplays, 0);
    assert_true(any_contains(nick, from, "belongs to someone else"));
    /* nor does the seat take the other account as its own */
    assert_string_not_equal(t->seats[turn].account, "Mallory");
}

/* A person who quit and comes back from another host logged in to the
 * seat's account has the seat back within the grace period; under another
 * nick too, and the room is told. */
static void test_account_back_from_another_host(void **state)
{
    (void)state;
    struct table *t = four_accounts();
    int sa = seat_of_nick(t, "alice");
    from_account(CHAT_QUIT, "alice", "alice@host.test", "Alice", NULL,
                 "ping timeout", NULL);
    assert_true(t->seats[sa].gone);
    from_account(CHAT_JOIN, "alice", "al@new.example", "ALICE", "#h", NULL,
                 NULL);
    assert_false(t->seats[sa].gone);
    assert_string_equal(t->seats[sa].id, "al@new.example");
    /* logged out again, the new user@host is hers */
    if (engine_turn(&t->game) == sa) {
        char cmd[32];
        lowest_play(t, cmd, sizeof cmd);
        from_account(CHAT_MESSAGE, "alice", "al@new.example", NULL, NULL, cmd,
                     NULL);
        assert_int_equal(t->game.nplays, 1);
    }
    /* without the account a new host is a stranger */
    int sb = seat_of_nick(t, "bob");
    from_account(CHAT_QUIT, "bob", "bob@host.test", "Bob", NULL, "", NULL);
    from_account(CHAT_JOIN, "bob", "b@elsewhere", NULL, "#h", NULL, NULL);
    assert_true(t->seats[sb].gone);
    /* under another nick with the account: the seat follows */
    int from = w->fake.n;
    from_account(CHAT_JOIN, "bob_", "b@elsewhere", "Bob", "#h", NULL, NULL);
    assert_false(t->seats[sb].gone);
    assert_string_equal(t->seats[sb].nick, "bob_");
    assert_true(any_contains("#h", from, "bob is back as bob_."));
    from = w->fake.n;
    from_account(CHAT_MESSAGE, "bob_", "b@elsewhere", "Bob", NULL, "hand",
                 NULL);
    assert_true(any_contains("bob_", from, "Your hand: "));
    /* a seat whose person is here is not taken by another nick */
    int sc = seat_of_nick(t, "carol");
    from_account(CHAT_JOIN, "carol2", "c@x", "Carol", "#h", NULL, NULL);
    assert_string_equal(t->seats[sc].nick, "carol");
}

/* After a reconnect the network's answer confirms a seat by its account
 * even from another host. */
static void test_account_confirms_identity_after_reconnect(void **state)
{
    (void)state;
    w->fake.base.ops = &fake_ops_irc;
    struct table *t = four_accounts();
    event(CHAT_DISCONNECTED, NULL, NULL, NULL, NULL);
    event(CHAT_CONNECTED, NULL, NULL, NULL, NULL);
    int sa = seat_of_nick(t, "alice"), sb = seat_of_nick(t, "bob");
    assert_true(t->seats[sa].unconfirmed);
    struct chat_event ev = {
        .kind = CHAT_IDENTITY,
        .from = {.nick = "alice", .id = "al@new.example", .account = "Alice"}};
    manager_on_event(w->m, &w->fake.base, &ev);
    assert_false(t->seats[sa].unconfirmed);
    assert_false(t->seats[sa].gone);
    assert_string_equal(t->seats[sa].id, "al@new.example");
    /* bob's nick held by the same user@host under another account */
    ev.from = (struct chat_user){
        .nick = "bob", .id = "bob@host.test", .account = "Mallory"};
    manager_on_event(w->m, &w->fake.base, &ev);
    assert_true(t->seats[sb].gone);
}

/* Two seated people swap nicks (alice -> tmp, bob -> alice, tmp -> bob):
 * each seat stays with its person, and their cards go to their new nick. */
static void test_account_nick_swap_keeps_each_seat(void **state)
{
    (void)state;
    struct table *t = four_accounts();
    int sa = seat_of_nick(t, "alice"), sb = seat_of_nick(t, "bob");
    int from = w->fake.n;
    said_account("alice", "Alice", NULL, "hand");
    said_account("bob", "Bob", NULL, "hand");
    char hand_a[2100], hand_b[2100];
    snprintf(hand_a, sizeof hand_a, "%s", last_to("alice", from)->text);
    snprintf(hand_b, sizeof hand_b, "%s", last_to("bob", from)->text);
    assert_string_not_equal(hand_a, hand_b);
    from_account(CHAT_NICK, "alice", "alice@host.test", "Alice", NULL, NULL,
                 "tmp");
    from_account(CHAT_NICK, "bob", "bob@host.test", "Bob", NULL, NULL, "alice");
    from_account(CHAT_NICK, "tmp", "alice@host.test", "Alice", NULL, NULL,
                 "bob");
    assert_string_equal(t->seats[sa].nick, "bob");
    assert_string_equal(t->seats[sb].nick, "alice");
    from = w->fake.n;
    from_account(CHAT_MESSAGE, "bob", "alice@host.test", "Alice", NULL, "hand",
                 NULL);
    from_account(CHAT_MESSAGE, "alice", "bob@host.test", "Bob", NULL, "hand",
                 NULL);
    assert_string_equal(last_to("bob", from)->text, hand_a);
    assert_string_equal(last_to("alice", from)->text, hand_b);
    /* the turn's person plays under the new nick */
    int turn = engine_turn(&t->game);
    char cmd[32];
    lowest_play(t, cmd, sizeof cmd);
    char id[sizeof t->seats[0].id];
    snprintf(id, sizeof id, "%s", t->seats[turn].id);
    from_account(CHAT_MESSAGE, t->seats[turn].nick, id, t->seats[turn].account,
                 NULL, cmd, NULL);
    assert_int_equal(t->game.nplays, 1);
}

/* Results count for the account: taken at sitting; a person who logs in
 * before the first hand is scored counts for the account, after it for
 * the nick they sat down with. */
static void test_account_is_the_results_key(void **state)
{
    (void)state;
    w->cfg.reply_interval = 0;
    w->cfg.channel_repeat = 0;
    said_account("alice", "Alice", "#h", "!hearts standard hands=2");
    said("bob", "#h", "!join");
    said("carol", "#h", "!join");
    said("dave", "#h", "!join");
    struct table *t = the_table();
    assert_string_equal(t->seats[1].key, "n:bob@host.test");
    said_account("bob", "Bob", "#h", "ready");
    assert_string_equal(t->seats[1].key, "a:Bob");
    assert_string_equal(t->seats[1].account, "Bob");
    said_account("alice", "Alice", "#h", "!start");
    play_to(t, 2, 0);
    assert_int_equal(t->nhist, 1);
    said_account("carol", "Carol", "#h", "good game");
    assert_string_equal(t->seats[2].account, "Carol");
    assert_string_equal(t->seats[2].key, "n:carol@host.test");
    play_everything(t);
    char text[8192];
    read_results(text, sizeof text);
    assert_non_null(strstr(text, "\"key\":\"a:Alice\""));
    assert_non_null(strstr(text, "\"key\":\"a:Bob\""));
    assert_non_null(strstr(text, "\"key\":\"n:carol@host.test\""));
}

/* A restart keeps what the seats know of accounts (from their "a:"
 * keys): another account under the same nick and user@host is still
 * someone else. */
static void test_account_survives_a_restart(void **state)
{
    (void)state;
    four_accounts();
    struct table *t = restart();
    assert_non_null(t);
    assert_string_equal(t->seats[seat_of_nick(t, "alice")].account, "Alice");
    int turn = engine_turn(&t->game);
    char nick[64], cmd[32];
    snprintf(nick, sizeof nick, "%s", t->seats[turn].nick);
    lowest_play(t, cmd, sizeof cmd);
    said_account(nick, "Mallory", NULL, cmd);
    assert_int_equal(t->game.nplays, 0);
    char acct[sizeof t->seats[0].account];
    snprintf(acct, sizeof acct, "%s", t->seats[turn].account);
    said_account(nick, acct, NULL, cmd);
    assert_int_equal(t->game.nplays, 1);
}

/* An admin named by account ("account:NAME") is one from any host and
 * nick while logged in, and nobody's admin otherwise. */
static void test_account_names_an_admin(void **state)
{
    (void)state;
    w->cfg.admins = calloc(1, sizeof *w->cfg.admins);
    w->cfg.admins[0] = strdup("account:Boss");
    w->cfg.nadmins = 1; /* freed with the config */
    said("alice", "#h", "!hearts");
    said("bob", "#h", "!join");
    refused("zed", "#h", "!stop", "Only the opener");
    from_account(CHAT_MESSAGE, "zed", "z@h", "zed", "#h", "!stop", NULL);
    assert_non_null(the_table());
    from_account(CHAT_MESSAGE, "zed", "z@h", "boss", "#h", "!stop", NULL);
    assert_null(the_table());
}

/* ---- Computer players that think off the loop (think.h) ------------- */

/* The test-only hook of think.c: every decision counts as a slow one and
 * waits (at most 3 s) until the test opens the gate. `waiting` tells
 * whether a decision is held there now. */
static pthread_mutex_t gate_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_cv = PTHREAD_COND_INITIALIZER;
static bool gate_open;
static int waiting;
static int last_budget; /* of the last job */

static void held_at_gate(const struct think_job *j)
{
    __atomic_store_n(&last_budget, j->budget, __ATOMIC_RELAXED);
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 3;
    pthread_mutex_lock(&gate_mu);
    waiting++;
    while (!gate_open &&
           pthread_cond_timedwait(&gate_cv, &gate_mu, &until) == 0)
        ;
    waiting--;
    pthread_mutex_unlock(&gate_mu);
}

static void gate(bool open)
{
    pthread_mutex_lock(&gate_mu);
    gate_open = open;
    pthread_cond_broadcast(&gate_cv);
    pthread_mutex_unlock(&gate_mu);
}

static int held(void)
{
    pthread_mutex_lock(&gate_mu);
    int n = waiting;
    pthread_mutex_unlock(&gate_mu);
    return n;
}

static int setup_thinking(void **state)
{
    gate(false);
    think_test_hook(held_at_gate);
    return setup(state);
}

static int teardown_thinking(void **state)
{
    gate(true);
    int rc = teardown(state); /* joins the worker */
    think_test_hook(NULL);
    return rc;
}

/* Runs the loop until the table waits for no decision (or 3 s). */
static void until_thought(const struct table *t)
{
    for (int i = 0; i < 600 && t->think_id; i++)
        run_for(5);
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
    struct sbuf card = {.len = 0};
    mgr_sb_card(&card, t, t->game.plays[plays]);
    char want[2200];
    snprintf(want, sizeof want,
             "Time is up: a computer player played %s for you.", card.buf);
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
    w->cfg.hard_playouts = 123;
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

/* People and computers thinking off the loop: the people act when it is
 * theirs, the loop runs while a computer thinks. */
static void play_thinking_to(struct table *t, int hand, int plays)
{
    for (int guard = 0; guard < 20000 && !t->closing; guard++) {
        if (reached(t, hand, plays))
            return;
        if (t->think_id) {
            run_for(1);
            continue;
        }
        if (t->trick_deferred) { /* the channel's lines are out */
            all_sent(0);
            continue;
        }
        if (!person_acts(t))
            return;
    }
}

static void test_decisions_off_the_loop_are_journaled(void **state)
{
    (void)state;
    gate(true);
    w->fake.base.ops = &fake_ops_irc;
    w->cfg.turn_timeout = 60;
    said("alice", "#h", "!hearts standard target=30");
    said("bob", "#h", "!join");
    said("alice", "#h", "!start");
    struct table *t = the_table();
    play_thinking_to(t, 1, 9);
    until_thought(t);
    assert_true(t->game.nplays >= 9);
    /* the computers' plays are in the journal like any: the same game */
    t = restart_same(t);
    event(CHAT_CONNECTED, NULL, NULL, NULL, NULL);
    for (int s = 0; s < 4; s++) {
        char id[128];
        snprintf(id, sizeof id, "%s@host.test", t->seats[s].nick);
        if (t->seats[s].human)
            identity(t->seats[s].nick, id);
    }
    int plays = t->game.nplays;
    play_thinking_to(t, 1, plays + 4);
    assert_true(t->game.nplays >= plays + 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(
            test_sitting_down_prepares_private_lines, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hearts_opens_and_join_fills, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(
            test_hearts_refuses_bad_rules_with_nearest, setup, teardown),
        cmocka_unit_test_setup_teardown(test_announcements_are_one_line, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_commands_without_a_table, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_input_typos_and_misplaced_commands,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_pass_or_play_said_in_the_channel,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_hands_reach_only_their_owner,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_refusals_change_nothing, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_pass_counts_and_privacy, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(
            test_pass_is_confirmed_and_hand_shows_what_is_left, setup,
            teardown),
        cmocka_unit_test_setup_teardown(
            test_first_lead_prompt_outranks_the_received_lines, setup,
            teardown),
        cmocka_unit_test_setup_teardown(
            test_received_line_waiting_goes_into_the_prompt, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_received_line_not_written_is_taken_back, setup, teardown),
        cmocka_unit_test_setup_teardown(test_deal_goes_before_the_prompt, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(
            test_prompts_tell_the_last_trick_and_the_legal_cards, setup,
            teardown),
        cmocka_unit_test_setup_teardown(test_a_turn_is_prompted_once, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_autoplay_plays_the_last_card,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_autoplay_on_plays_forced_cards,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_a_play_before_ones_turn_waits_for_it, setup, teardown),
        cmocka_unit_test_setup_teardown(test_nick_change_keeps_the_seat, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_takeover_of_a_nick_cannot_play,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_markup_pills_for_whose_turn, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_plain_style_has_no_pills, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(
            test_markup_typed_by_a_person_is_dropped, setup, teardown),
        cmocka_unit_test_setup_teardown(test_timeout_computer_acts_then_back,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_pass_chosen_on_timeout_is_told,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_stop_by_opener_and_by_votes, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_status_scores_rules_presets_help,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_one_person_at_a_terminal, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_whole_game_record_replays, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(
            test_part_grace_then_computer_takes_over, setup, teardown),
        cmocka_unit_test_setup_teardown(test_gone_seat_is_told_nothing, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(
            test_a_paused_table_goes_on_when_anyone_is_back, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_reconnect_confirms_identity_before_secrets, setup, teardown),
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
        cmocka_unit_test_setup_teardown(
            test_top_stats_last_and_scores_after_a_game, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stopped_game_and_leaver, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_nick_change_keeps_one_record,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_nick_from_another_host_is_another_record, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_storage_unwritable_at_start_told_once_and_recovers, setup,
            teardown),
        cmocka_unit_test_setup_teardown(test_table_room_dir_folds_and_encodes,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_person_named_like_a_computer,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_lookalike_nicks_show_apart, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(
            test_nick_change_to_a_seat_name_mid_game, setup, teardown),
        cmocka_unit_test_setup_teardown(test_display_names_are_shown_not_ids,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_rename_changes_only_the_name_shown,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_restart_mid_pass_resumes_exactly,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_restart_without_the_room_keeps_its_journal, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_restart_mid_trick_and_between_hands, setup, teardown),
        cmocka_unit_test_setup_teardown(test_restart_keeps_a_lobby, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_restart_keeps_seat_changes, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_restart_drops_a_torn_last_line,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_restart_moves_a_corrupt_journal_aside, setup, teardown),
        cmocka_unit_test_setup_teardown(test_restart_refuses_an_unknown_format,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_restart_archives_a_finished_journal, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_shutdown_keeps_the_game_for_the_next_start, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_account_logout_mid_game_keeps_the_seat, setup, teardown),
        cmocka_unit_test_setup_teardown(test_account_other_account_is_refused,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_account_back_from_another_host,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_account_confirms_identity_after_reconnect, setup, teardown),
        cmocka_unit_test_setup_teardown(test_account_nick_swap_keeps_each_seat,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_account_is_the_results_key, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_account_names_an_admin, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_account_survives_a_restart, setup,
                                        teardown),
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
            test_decisions_off_the_loop_are_journaled, setup_thinking,
            teardown_thinking),
        cmocka_unit_test_setup_teardown(
            test_a_levels_playouts_reach_its_decisions, setup_thinking,
            teardown_thinking),
        cmocka_unit_test_setup_teardown(
            test_back_while_a_computer_thinks_for_one, setup_thinking,
            teardown_thinking),
    };
    /* HEARTS_TEST_FILTER=pattern runs the matching tests only */
    if (getenv("HEARTS_TEST_FILTER"))
        cmocka_set_test_filter(getenv("HEARTS_TEST_FILTER"));
    return cmocka_run_group_tests(tests, NULL, NULL);
}
