/*
 * What the engine tells of a table's game (its sink, engine.h): each
 * event is recorded and journaled, then said in the room (the deal, each
 * trick, the scores, the end) and told to the people it concerns; and the
 * scores of a running game on demand.
 */
#ifndef HEARTS_BOT_MANAGER_ANNOUNCE_H
#define HEARTS_BOT_MANAGER_ANNOUNCE_H

#include "bot/manager/table.h"
#include "bot/manager/text.h"

/* The table's engine sink (ctx: the table). */
void mgr_announce(void *ctx, const struct engine_game *g,
                  const struct engine_event *ev);
/* "alice 12, bob 30, ..." : the totals, in lang; `marked`: each seat a
 * computer plays for a person marked (mgr_seat_marked), at the game's
 * end as having left. */
void mgr_table_scoreline_in(struct table *t, struct strbuf *sb, int lang,
                            bool marked);
/* The score sheet as look shows it into out, its lines apart by '\n':
 * every hand (`all`), or the last ones, for the room. */
void mgr_table_scores_in(struct table *t, bool all, struct render_look look,
                         char *out, size_t outlen);
/* The sheet's last hands in the room, a message a line. */
void mgr_table_send_scores(struct table *t);
/* How hand `hand` is passed, as the channel hears it at the deal, in lang:
 * "Hand 2: pass 3 left." (dir an enum engine_pass_dir, n cards), "Hand
 * 4: no passing.". */
void mgr_sb_hand_passing(struct strbuf *sb, int lang, int hand, int dir, int n);

#endif
