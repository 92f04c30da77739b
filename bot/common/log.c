/*
 * Logging (log.h): one line per message on standard error (or the file),
 * with a UTC timestamp and the level, so a systemd journal, a terminal and
 * a file read the same.
 */
#include "bot/common/log.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bot/common/err.h"

static enum log_level level = LOG_INFO;
static FILE *file; /* NULL: standard error; under lock */
/* the site's writer logs from its thread: a line is written whole, and
 * never to a file being closed by a reload */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

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

int log_to_file(const char *path, char *err, size_t errlen)
{
    /* not blocking: a FIFO put there is refused, not waited on */
    int fd = open(path,
                  O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC |
                      O_NONBLOCK,
                  0600);
    if (fd < 0)
        return err_set(err, errlen, "%s: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
        close(fd);
        return err_set(err, errlen, "%s: not a regular file", path);
    }
    if (st.st_size > LOG_FILE_MAX_BYTES && ftruncate(fd, 0)) {
        err_set(err, errlen, "%s: cannot start it anew: %s", path,
                strerror(errno));
        close(fd);
        return -1;
    }
    FILE *f = fdopen(fd, "a");
    if (!f) {
        err_set(err, errlen, "%s: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    /* each line out at once: it is there if the bot dies after it */
    setvbuf(f, NULL, _IOLBF, 0);
    pthread_mutex_lock(&lock);
    if (file)
        fclose(file);
    file = f;
    pthread_mutex_unlock(&lock);
    return 0;
}

void log_to_stderr(void)
{
    pthread_mutex_lock(&lock);
    if (file)
        fclose(file);
    file = NULL;
    pthread_mutex_unlock(&lock);
}

/* One line to where the lines go. */
__attribute__((format(printf, 2, 0))) static void
emit(enum log_level l, const char *fmt, va_list ap)
{
    /* milliseconds: the pacing and the order of lines are read here */
    char stamp[40];
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    size_t k = strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(stamp + k, sizeof stamp - k, ".%03ldZ", ts.tv_nsec / 1000000);
    char text[1024];
    vsnprintf(text, sizeof text, fmt, ap);
    /* nothing from the network may break a log line */
    for (char *p = text; *p; p++)
        if ((unsigned char)*p < 0x20)
            *p = ' ';
    pthread_mutex_lock(&lock);
    fprintf(file ? file : stderr, "%s %s %s\n", stamp, names[l], text);
    pthread_mutex_unlock(&lock);
}

void log_msg(enum log_level l, const char *fmt, ...)
{
    if (l > level)
        return;
    va_list ap;
    va_start(ap, fmt);
    emit(l, fmt, ap);
    va_end(ap);
}

void log_fatal(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    emit(LOG_ERROR, fmt, ap);
    va_end(ap);
    pthread_mutex_lock(&lock);
    bool to_file = file != NULL;
    pthread_mutex_unlock(&lock);
    if (!to_file)
        return;
    fputs("heartsbot: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}
