/*
 * Inside the game manager: the language each line is said in, and what
 * people chose for themselves (storage/people.h: people.jsonl in the data
 * directory). A channel's lines are in its language (its entry's
 * lang=CODE, else the config's); a private line in the person's own if
 * they chose one (`lang`), else the language of the channel it is about:
 * for a private command of a person seated at a table, the table's.
 * Cards in a channel's lines are in symbols; in a private line as the
 * person chose (`cards`: render.h's card modes).
 */
#ifndef HEARTS_BOT_MANAGER_LANG_H
#define HEARTS_BOT_MANAGER_LANG_H

#include <stddef.h>

#include "bot/manager/render.h"
#include "bot/manager/table.h"

/* The style of an adapter's lines: plain on IRC with colours off. */
enum chat_style mgr_style(const struct manager *m,
                          const struct chat_adapter *a);
/* The style the table's lines are written in (mgr_style of its adapter). */
enum chat_style mgr_table_style(const struct table *t);

/* Reads the people's settings of the data directory (none: memory only);
 * at start, or at the first need of them. */
void mgr_people_start(struct manager *m);
void mgr_people_free(struct manager *m);

/* The language of the config ([bot] lang): channels', and people's who
 * chose none. */
int mgr_lang_default(const struct manager *m);
/* The language of a room's lines. */
int mgr_lang_room(const struct manager *m, const struct chat_adapter *a,
                  const char *room);
/* The room private lines to u are about: `room` if not NULL (a command
 * said there), else the room of the table u sits at, whose prompts they
 * read (NULL: none). */
const char *mgr_room_of_person(struct manager *m, struct chat_adapter *a,
                               const struct chat_user *u, const char *room);
/* The language of private lines to u about room (NULL: as
 * mgr_room_of_person says): their own if they chose one, else the
 * room's. So a seated person's answers, prompts and the cards they type
 * are in one language. */
int mgr_lang_person(struct manager *m, struct chat_adapter *a,
                    const struct chat_user *u, const char *room);

/* The language of private lines to a seat of t: the person's own if they
 * chose one, else the room's (a computer's: the room's). */
int mgr_lang_seat(struct table *t, int seat);

/* How a person's private lines show cards (render.h: `cards`, their
 * setting; none is RENDER_CARDS_SYMBOLS). A computer's seat: symbols. */
enum render_cards mgr_cards_person(struct manager *m, struct chat_adapter *a,
                                   const struct chat_user *u);
enum render_cards mgr_cards_seat(struct table *t, int seat);
/* The card mode a word names ("symbols", "ascii", "words", any case), or
 * -1; and a mode's word. */
int mgr_cards_find(const char *word);
const char *mgr_cards_name(enum render_cards cards);

/* How lines are written for their reader (render.h): the table's style
 * (plain on IRC with colours off), the language of the room's lines or
 * of a seat's private ones, and how cards are shown: in symbols in a
 * room, as the person chose in their private lines. A computer's seat
 * looks like the room. */
struct render_look mgr_look_room(struct table *t);
struct render_look mgr_look_seat(struct table *t, int seat);
/* The look of private lines to u about room (NULL: as
 * mgr_room_of_person says). */
struct render_look mgr_look_person(struct manager *m, struct chat_adapter *a,
                                   const struct chat_user *u, const char *room);

/* Sets (value NULL: forgets) one of u's settings: 0 if it is saved, 1 if
 * it holds for this run only (the file could not be written: why in err),
 * -1 if it is refused (why in err; nothing changed). */
int mgr_people_set(struct manager *m, struct chat_adapter *a,
                   const struct chat_user *u, const char *name,
                   const char *value, char *err, size_t errlen);

#endif
