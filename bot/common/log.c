/*
 * Logging (log.h): one line per message on standard error, with a UTC
 * timestamp and the level, so a systemd journal or a terminal reads the
 * same. The level is the bot's one global.
 */
#include "bot/common/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static enum log_level level = LOG_INFO;

static const char *const names[] = {"error", "warn", "info", "debug"};

void log_level_set(enum log_level l)
{
    level = l;
}

int log_set_level(const char *name)
{
    for (int i = 0; i < 4; i++) {
        if (strcmp(name, names[i]) == 0) {
            level = (enum log_level)i;
            return 0;
        }
    }
    return -1;
}

void log_msg(enum log_level l, const char *fmt, ...)
{
    if (l > level)
        return;
    /* milliseconds: the pacing and the order of lines are read here */
    char stamp[40];
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    size_t k = strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(stamp + k, sizeof stamp - k, ".%03ldZ", ts.tv_nsec / 1000000);
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    /* nothing from the network may break a log line */
    for (char *p = text; *p; p++)
        if ((unsigned char)*p < 0x20)
            *p = ' ';
    fprintf(stderr, "%s %s %s\n", stamp, names[l], text);
}
