/*
 * The journal of one table (docs/storage.md, "Journals"): the lines of
 * data_dir/<network>/<room>/journal-<game id>.jsonl, one JSON object a
 * line. The first line is the header (format, game, network, room, rules);
 * then, as the table goes, who sits where ("seats"), the game's start, and
 * every deal, pass, play, discard and moon choice in the vocabulary and
 * card texts of ../shared/spec/game-record.md, so that the game part turns
 * into a hearts-record/1 record (journal_record_add) that record_replay
 * plays back through the engine.
 *
 * Pure: no files. Every line read may be hostile (hand-edited): parsing
 * checks every type, range and length and never trusts a count.
 */
#ifndef HEARTS_STORAGE_JOURNAL_H
#define HEARTS_STORAGE_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/engine.h"
#include "storage/record/record.h"

/* The newest version this build reads; it writes it only for a table
 * that allows hints (the header's hints), version 2 for a table with its
 * own turn length (the header's turn_timeout, and turn lines), and the
 * first one for every other table, so that a build before them still
 * resumes those, and one that knows no hints never resumes a game that
 * allowed them as if it had not. */
#define JOURNAL_FORMAT "heartsbot-journal/3"
#define JOURNAL_FORMAT_2 "heartsbot-journal/2"
#define JOURNAL_FORMAT_1 "heartsbot-journal/1"
/* The bounds of a header's turn_timeout, seconds (bot/manager/slow.h). */
#define JOURNAL_TURN_MIN 30
#define JOURNAL_TURN_MAX (7 * 86400)
/* The longest line a journal holds (a header with long names, a deal of
 * two decks), with room to spare. */
#define JOURNAL_MAX_LINE 8192

/* One seat as the journal keeps it (what a restart needs, not timers). */
struct journal_seat {
    bool used;
    bool human;
    bool away;
    int level; /* a computer's level */
    /* id and key: a person's, kept when a computer replaces them */
    int autoplay; /* enum seat_autoplay */
    char nick[64];
    /* the name shown for them (struct seat.display), "" if none; journals
     * older than it have none: the name comes back with the person's next
     * event */
    char display[256];
    char id[192];
    char key[200];
};

enum journal_kind {
    JOURNAL_HEADER,
    JOURNAL_SEATS,
    JOURNAL_START,
    JOURNAL_DEAL,
    JOURNAL_PASS,
    JOURNAL_BLIND, /* what the blind seats passed on, at the exchange */
    JOURNAL_PLAY,
    JOURNAL_DISCARD,
    JOURNAL_MOON,
    JOURNAL_TURN /* a slow game's turn: its deadline, reminders sent */
};

/* One line, parsed. Only the fields of its kind are set. */
struct journal_line {
    enum journal_kind kind;
    /* HEADER */
    bool newer; /* refused: a later version of the format (a newer bot's) */
    char game[17];
    char network[128];
    char room[64];
    char rules[300];
    long long opened;
    int turn_timeout; /* the table's own turn length, seconds; 0: none */
    bool hints;       /* the table allows hints */
    /* SEATS */
    int nseats;
    int opener;
    struct journal_seat seats[ENGINE_MAX_PLAYERS];
    /* DEAL (n seats of ndeal cards), PASS (seat, cards or blind), BLIND
     * (npassed per seat), PLAY (cards[0]), DISCARD, MOON (moon) */
    int dealer;
    int n;
    int ndeal[ENGINE_MAX_PLAYERS];
    uint8_t deal[ENGINE_MAX_PLAYERS][ENGINE_MAX_CARDS];
    int nrest;
    uint8_t rest[ENGINE_MAX_CARDS];
    int seat;
    bool blind;
    int ncards;
    uint8_t cards[ENGINE_MAX_ACT_CARDS];
    int npassed[ENGINE_MAX_PLAYERS];
    uint8_t passed[ENGINE_MAX_PLAYERS][ENGINE_MAX_ACT_CARDS];
    int moon;
    /* TURN: which turn (the table's key of it), its deadline (Unix
     * seconds), the reminders sent (bits), when the channel last heard
     * one (Unix seconds, 0: never) */
    uint32_t turn;
    long long deadline;
    int reminded;
    long long channel;
};

/*
 * Each encoder returns a new line ending in '\n' (the caller frees it),
 * ready for storage_append. Aborts if out of memory.
 */
/* turn_timeout 0 and no hints: a version 1 header (no turn length of its
 * own); hints: version 3. */
char *journal_header(const char *game, const char *network, const char *room,
                     const char *rules, long long opened, int turn_timeout,
                     bool hints);
char *journal_seats(const struct journal_seat *seats, int n, int opener);
char *journal_start(void);
char *journal_turn(uint32_t turn, long long deadline, int reminded,
                   long long channel);

/*
 * The line that records an engine event of a game, read during the
 * event's callback from the game (as the record writer does), or NULL for
 * an event that follows from the ones journaled (tricks, scores, draws).
 */
char *journal_event(const struct engine_game *g, const struct engine_event *ev);

/*
 * Parses one line (len bytes, need not be NUL-terminated). 0, or -1 with
 * the reason in err. A header of another format is refused by name.
 */
int journal_parse(const char *text, size_t len, struct journal_line *out,
                  char *err, size_t errlen);

/*
 * Adds a game line (DEAL, PASS, BLIND, PLAY, DISCARD, MOON) to rec, a
 * record whose rules and n are set: a deal starts a hand, the rest go to
 * the last hand. 0, or -1 with the reason (no hand yet, a seat out of
 * range, too many cards) in err. Other kinds are ignored.
 */
int journal_record_add(struct record *rec, const struct journal_line *l,
                       char *err, size_t errlen);

#endif
