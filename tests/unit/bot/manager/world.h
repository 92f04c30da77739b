/*
 * The world the game manager's tests run in: a manager on a loop of its
 * own, a config for tests (short timers, a temporary data directory) and
 * the shared fake adapter (tests/support/fake_chat.h) whose lines the
 * tests read; and the steps the tests share: people saying things, the
 * loop running, games played to a point, restarts. Each
 * tests/unit/bot/manager/test_*.c runs its tests in it.
 */
#ifndef HEARTS_TESTS_MANAGER_WORLD_H
#define HEARTS_TESTS_MANAGER_WORLD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bot/common/loop.h"
#include "bot/config.h"
#include "bot/manager/manager.h"
#include "bot/manager/table.h"
#include "bot/think.h"
#include "tests/support/fake_chat.h"

struct world {
    struct loop *loop;
    struct config cfg;
    struct manager *m;
    struct fake_chat fake;
    char dir[64];
};

/* The world of the test running (setup makes it, teardown frees it). */
extern struct world *w;

/* cmocka's group setup and teardown of every test. */
int setup(void **state);
int teardown(void **state);

/* nick as a person at "nick@host.test" (the id is kept until the next
 * call). */
struct chat_user user(const char *nick);

/* nick says text in room (NULL: privately to the bot). */
void said(const char *nick, const char *room, const char *text);

/* An event of kind k from nick at id. */
void event(enum chat_event_kind k, const char *nick, const char *id,
           const char *room, const char *target);

/* The config gives `room` of the fake network an entry, as
 * channels = ["#h omnibus lang=de"] would: its rules and its language
 * (NULL: none). */
void room_entry(const char *room, const char *rules, const char *lang);

/* Runs the loop for `ms` milliseconds (timers fire). */
void run_for(int64_t ms);

/* The last line told to nick (or said in a room) since index `from`. */
const struct fake_chat_line *last_to(const char *to, int from);

bool any_contains(const char *to, int from, const char *needle);

/* How many lines to `to` since `from` start with `head`. */
int count_starting(const char *to, int from, const char *head);

/* The index of the first line to `to` from `from` starting with head. */
int first_starting(const char *to, int from, const char *head);

struct table *the_table(void);

/* A file of #h's directory (docs/storage.md): data_dir/test/%23h/name. */
void room_file(char *out, size_t len, const char *name);

/* Asserts a command gets one private reply containing needle and leaves
 * the game unchanged. */
void refused(const char *nick, const char *room, const char *text,
             const char *needle);

/* alice opens a 4-player table and three humans sit: a game of people. */
void four_people(const char *rules);

/* The cards of a seat as "QS" words. */
/* The first of Q♠, J♠, K♠, A♠ (0 to 3, in that order) that seat s of
 * the table lacks; fails the test if it holds all four. */
int lacking_face_spade(const struct table *t, int s);
void card_words(const struct engine_cards *h, uint64_t only, char *out,
                size_t len);

/* The first three cards of a seat's hand as "XX,XX, XX" and as a set. */
uint64_t first_three(const struct table *t, int s, char *cmd, size_t len);

/* Every tracked line since `from` is written now. */
void all_sent(int from);

/* Plays the lowest legal card for whoever's turn it is, n times. */
void play_lowest(struct table *t, int n);

/* Four people, no passing: the seat to play first, its nick and id. */
int first_turn(char nick[64], char id[128]);

/* Seat s's person says text privately, from the seat's user@host. */
void seat_said(const struct table *t, int s, const char *text);

/* One action of a person, by private message: passes the lowest cards,
 * plays the lowest legal card, answers the moon; in DEAL the loop runs a
 * little. False once the game is over. */
bool person_acts(struct table *t);

/* Whether the game reached `plays` cards down in hand `hand`, or beyond. */
bool reached(const struct table *t, int hand, int plays);

/* Plays (people by private message) until `plays` cards of hand `hand`
 * are down, or the game is over. */
void play_to(struct table *t, int hand, int plays);

void play_everything(struct table *t);

/* The whole of a small file, NUL-terminated, into buf. */
void read_small(const char *path, char *buf, size_t len);

/* The room's results.jsonl once the game's end has been handled. */
void read_results(char *text, size_t len);

/* Whether `text` said by nick in #h gets a channel line with needle. */
bool answered(const char *nick, const char *text, const char *needle);

void identity(const char *nick, const char *id);

int private_lines_to(const char *nick, int from);

/* How many lines went to `to` since `from`. */
int lines_to(const char *to, int from);

/* alice starts a game with three computers; returns her seat. */
int alice_with_computers(void);

void renamed(const char *nick, const char *display, const char *room);

/* Four people at a standard game, `plays` cards of the first hand down
 * (its journal written so far). */
struct table *standard_game_at(int plays);

/* The bot stops at once (a crash: nothing said, nothing cleaned) and
 * starts again on the same data_dir: the table rebuilt, if any. */
struct table *restart(void);

/* What a restart must keep of a game, as text to compare. */
char *snapshot(const struct table *t);

/* Restarts: the table is back as `before` (a snapshot, freed) says. */
struct table *restart_to(char *before);

/* Restarts and checks the table is exactly as it was, its record too. */
struct table *restart_same(struct table *t);

/* The last line of the room's archive, or NULL; *count: how many. */
char *archived(int *count);

/* An event from a person with user@host `id` and services account
 * `account` (NULL: none known, or logged out). */
void from_account(enum chat_event_kind k, const char *nick, const char *id,
                  const char *account, const char *room, const char *text,
                  const char *target);

/* A message from nick at "nick@host.test" logged in to `account`. */
void said_account(const char *nick, const char *account, const char *room,
                  const char *text);

/* Four people logged in to accounts named like them with a capital:
 * alice is Alice, and so on; a game with no passing. */
struct table *four_accounts(void);

int seat_of_nick(const struct table *t, const char *nick);

/* The card to play for the seat whose turn it is, as a command. */
void lowest_play(const struct table *t, char *cmd, size_t len);

/* Computer players that think off the loop (think.h), held at a gate
 * the tests open: the budget of the last decision asked. */
extern int last_budget;

/* Opens or closes the gate (setup_thinking closes it). */
void gate(bool open);

/* How many decisions wait at the gate now. */
int held(void);

/* What the last decision asked was told of the table's seats. */
struct ai_table last_job_table(void);

/* setup and teardown with every decision held at the gate. */
int setup_thinking(void **state);
int teardown_thinking(void **state);

/* Runs the loop until the table waits for no decision (or 3 s). */
void until_thought(const struct table *t);

#endif
