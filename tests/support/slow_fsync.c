/*
 * A slow disk for the integration tests (test_slow_disk.py): preloaded
 * into the real bot (LD_PRELOAD), every fsync() first waits
 * $HEARTS_TEST_FSYNC_MS milliseconds (40 unless set), as one can on a
 * busy or networked disk, then syncs for real. With
 * $HEARTS_TEST_FSYNC_FAIL set, an fsync of a file whose path holds that
 * text fails with EIO instead (a disk that lost the write). It says so
 * once on standard error, which the bot's log holds.
 */
#define _GNU_SOURCE /* RTLD_NEXT */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int delay_ms(void)
{
    const char *s = getenv("HEARTS_TEST_FSYNC_MS");
    int ms = s ? atoi(s) : 40;
    return ms < 0 || ms > 10000 ? 40 : ms;
}

__attribute__((constructor)) static void say(void)
{
    const char *fail = getenv("HEARTS_TEST_FSYNC_FAIL");
    fprintf(stderr, "slow_fsync: every fsync waits %d ms first%s%s%s\n",
            delay_ms(), fail ? "; it fails (EIO) for paths with \"" : "",
            fail ? fail : "", fail ? "\"" : "");
}

/* Whether fd's file is one whose fsync is to fail. */
static int to_fail(int fd)
{
    const char *fail = getenv("HEARTS_TEST_FSYNC_FAIL");
    if (!fail || !*fail)
        return 0;
    char link[64], path[4096];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, path, sizeof path - 1);
    if (n < 0)
        return 0;
    path[n] = '\0';
    return strstr(path, fail) != NULL;
}

int fsync(int fd)
{
    static int (*real)(int);
    if (!real) {
        void *sym = dlsym(RTLD_NEXT, "fsync");
        if (!sym) {
            errno = ENOSYS;
            return -1;
        }
        *(void **)&real = sym;
    }
    int ms = delay_ms();
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) && errno == EINTR)
        ;
    if (to_fail(fd)) {
        errno = EIO;
        return -1;
    }
    return real(fd);
}
