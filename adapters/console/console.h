/*
 * The console adapter: one person at a terminal plays at the table of the
 * room "#console" through the same game manager as IRC players. A line
 * starting with the command prefix is said in the room; any other line is
 * a private message to the bot ("hand", "play QS", or just "QS"), but
 * "quit" or "exit" (any case, with or without the prefix) ends the
 * session as the end of the input does. Room lines print as
 * "[#console] text", private ones as "[you] text".
 *
 * On a terminal (console_features) hearts and diamonds are red and the
 * trick's taker bold (ANSI colours), and a prompt, "> ", waits at the end
 * of the output whenever everything queued has been written: a line that
 * comes while it is shown erases it first and it comes back after, so it
 * never ends up inside a line of the game.
 */
#ifndef HEARTS_CONSOLE_H
#define HEARTS_CONSOLE_H

#include <stdbool.h>

#include "bot/common/chat.h"
#include "bot/common/loop.h"

#define CONSOLE_ROOM "#console"
#define CONSOLE_NICK "you"
#define CONSOLE_PROMPT_TEXT "> "

/* What the console does beyond plain lines (console_features). */
#define CONSOLE_COLOUR 1u /* red suits and bold, by ANSI codes */
#define CONSOLE_PROMPT 2u /* the prompt while waiting for a line */
/* the prompt is erased by ANSI codes, not by writing spaces over it */
#define CONSOLE_ANSI 4u

/*
 * What a console on these ends can do: colours when the output is a
 * terminal, TERM names one that is not "dumb" and NO_COLOR is unset or
 * empty (https://no-color.org); the prompt when input and output are
 * both terminals; ANSI erasing when the output is a terminal and TERM is
 * not "dumb". term and no_color are the environment's values, or NULL.
 */
unsigned console_features(bool in_tty, bool out_tty, const char *term,
                          const char *no_color);

/*
 * An adapter reading lines from in_fd and writing to out_fd (both left
 * open on free), with the CONSOLE_ features given. on_end is called once
 * when the session ends from its side: why is "end of input" or "quit".
 * Aborts if out of memory.
 */
struct chat_adapter *console_new(struct loop *l, int in_fd, int out_fd,
                                 unsigned features, const char *prefix,
                                 chat_event_fn on_event, void *ctx,
                                 void (*on_end)(void *, const char *why),
                                 void *end_ctx);

/* Feeds one line as if the person typed it (main uses it to open the
 * table). */
void console_inject(struct chat_adapter *a, const char *line);

#endif
