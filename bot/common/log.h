/*
 * Logging with levels and timestamps to standard error, or to a file (the
 * console keeps the terminal for the game). The bot's globals: the level,
 * set from the config, and where the lines go.
 */
#ifndef HEARTS_BOT_LOG_H
#define HEARTS_BOT_LOG_H

#include <stddef.h>

enum log_level { LOG_ERROR, LOG_WARN, LOG_INFO, LOG_DEBUG };

/* Sets the level from "error", "warn", "info" or "debug"; -1 if unknown. */
int log_set_level(const char *name);
void log_level_set(enum log_level level);

/* Writes "2026-11-21T12:00:00Z LEVEL message" if level is enabled. */
void log_msg(enum log_level level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/*
 * From now on the lines go to the file at path (made mode 0600 if
 * missing, appended to; one over LOG_FILE_MAX_BYTES is started anew, so
 * the log of sessions past never grows without end) instead of standard
 * error. 0, or -1 with the reason in err: the lines still go to standard
 * error then. A link at path is refused.
 */
#define LOG_FILE_MAX_BYTES (1024 * 1024)
int log_to_file(const char *path, char *err, size_t errlen);

/* Back to standard error (the file is closed). */
void log_to_stderr(void);

/* An error that stops the bot: logged, and said on standard error as
 * "heartsbot: text" too when the log goes to a file, so that whoever
 * started the bot sees why it ended. */
void log_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#define log_error(...) log_msg(LOG_ERROR, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_WARN, __VA_ARGS__)
#define log_info(...) log_msg(LOG_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_DEBUG, __VA_ARGS__)

#endif
