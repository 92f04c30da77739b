/*
 * Logging with levels and timestamps to standard error. The one global of
 * the bot: the level, set from the config.
 */
#ifndef HEARTS_BOT_LOG_H
#define HEARTS_BOT_LOG_H

enum log_level { LOG_ERROR, LOG_WARN, LOG_INFO, LOG_DEBUG };

/* Sets the level from "error", "warn", "info" or "debug"; -1 if unknown. */
int log_set_level(const char *name);
void log_level_set(enum log_level level);

/* Writes "2026-11-21T12:00:00Z LEVEL message" if level is enabled. */
void log_msg(enum log_level level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#define log_error(...) log_msg(LOG_ERROR, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_WARN, __VA_ARGS__)
#define log_info(...) log_msg(LOG_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_DEBUG, __VA_ARGS__)

#endif
