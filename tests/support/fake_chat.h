/*
 * A chat adapter for tests and benchmarks: it keeps every line the bot says
 * or tells (and, if asked, writes each to a file as it comes), and behaves
 * like one of the real adapters in what the manager can see: a plain one,
 * one like IRC (identities to confirm after a reconnect, lines reported as
 * written later than queued) or one like Matrix (direct rooms made ready,
 * rooms named by a label, optionally rate-limited by its server, no
 * notices), or a plain one that folds no names, or names as rfc1459. All
 * but the Matrix ones answer a person's channel command by notice, as
 * IRC does.
 */
#ifndef HEARTS_TESTS_FAKE_CHAT_H
#define HEARTS_TESTS_FAKE_CHAT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "bot/common/chat.h"

enum fake_chat_kind {
    FAKE_CHAT_PLAIN,
    FAKE_CHAT_IRC,
    FAKE_CHAT_MATRIX,
    FAKE_CHAT_MATRIX_LIMITED,
    FAKE_CHAT_UNFOLDED, /* plain, with no fold of names */
    FAKE_CHAT_RFC1459   /* plain, names folded as rfc1459 ("[" is "{") */
};

#define FAKE_CHAT_NAMES 16
/* The people in rooms the adapter knows of at most (present). */
#define FAKE_CHAT_PRESENT 64

struct fake_chat_line {
    char to[64]; /* the room, or the nick told */
    bool private_;
    bool notice; /* a notice to the person (private_ too) */
    enum chat_priority prio;
    char text[2100];
    uint64_t cookie; /* tell_tracked's */
    bool sent;       /* its CHAT_SENT was given */
    bool retracted;  /* taken back before it was sent */
};

struct fake_chat {
    struct chat_adapter base; /* first: the manager sees this */
    enum fake_chat_kind kind;
    struct chat_adapter_ops ops; /* base.ops: the kind's */
    bool busy; /* the out-queue holds lines (idle() says false) */
    int n;     /* lines so far */
    int cap;
    struct fake_chat_line *lines;
    FILE *echo; /* if set, every line and call is written here too */
    /* if set, lines are only counted (n), not kept: a benchmark's long
     * runs */
    bool discard;
    struct fake_chat_line scratch;      /* the line being discarded */
    char verified[FAKE_CHAT_NAMES][64]; /* nicks verify was asked about */
    int nverified;
    char prepared[FAKE_CHAT_NAMES][64]; /* nicks prepare was given */
    int nprepared;
    int lines_at_prepare[FAKE_CHAT_NAMES]; /* lines said by then */
    /* who is in which room (present), as the tests say */
    struct {
        char room[64], nick[64];
    } present[FAKE_CHAT_PRESENT];
    int npresent;
};

/* Sets f up as an adapter of `kind` on `network` (borrowed), its events
 * going to on_event with ctx. */
void fake_chat_init(struct fake_chat *f, enum fake_chat_kind kind,
                    const char *network, chat_event_fn on_event, void *ctx);

/* Makes f behave as an adapter of another kind from now on (its lines
 * stay). */
void fake_chat_set_kind(struct fake_chat *f, enum fake_chat_kind kind);

/* The adapter knows nick to be in room (here) or not: its `present`. */
void fake_chat_present(struct fake_chat *f, const char *room, const char *nick,
                       bool here);

/* Forgets the lines (the adapter stays). */
void fake_chat_clear(struct fake_chat *f);

/* Frees the lines. */
void fake_chat_free(struct fake_chat *f);

#endif
