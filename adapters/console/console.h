/*
 * The console adapter: one person at a terminal plays at the table of the
 * room "#console" through the same game manager as IRC players. A line
 * starting with the command prefix is said in the room; any other line is
 * a private message to the bot ("hand", "play QS", or just "QS"). Room
 * lines print as "[#console] text", private ones as "[you] text".
 */
#ifndef HEARTS_CONSOLE_H
#define HEARTS_CONSOLE_H

#include "bot/common/chat.h"
#include "bot/common/loop.h"

#define CONSOLE_ROOM "#console"
#define CONSOLE_NICK "you"

/*
 * An adapter reading lines from in_fd and writing to out_fd (both left
 * open on free). on_eof is called once when the input ends. Aborts if out
 * of memory.
 */
struct chat_adapter *console_new(struct loop *l, int in_fd, int out_fd,
                                 const char *prefix, chat_event_fn on_event,
                                 void *ctx, void (*on_eof)(void *),
                                 void *eof_ctx);

/* Feeds one line as if the person typed it (main uses it to open the
 * table). */
void console_inject(struct chat_adapter *a, const char *line);

#endif
