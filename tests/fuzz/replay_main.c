/*
 * A main for the libFuzzer targets where libFuzzer is absent (gcc, or
 * HEARTS_FUZZ off): each argument is a file, fed whole to
 * LLVMFuzzerTestOneInput, or a directory, each of whose regular files is
 * (in name order, not recursing). No fuzzing: ctest replays the checked-in
 * seed corpora (tests/fuzz/corpus/TARGET/) through every target this way,
 * so a target that aborts, or a memory error under the ASan build, fails
 * the test. Exit 0 when every input was run; 1 when one could not be read
 * or nothing was given.
 */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Reads the file at path whole and runs it; -1 when it cannot be read. */
static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "%s: %s\n", path, strerror(errno));
        return -1;
    }
    size_t cap = 4096, len = 0;
    uint8_t *buf = malloc(cap);
    size_t n;
    while (buf && (n = fread(buf + len, 1, cap - len, f)) > 0) {
        len += n;
        if (len == cap) {
            uint8_t *more = realloc(buf, cap *= 2);
            if (!more)
                free(buf);
            buf = more;
        }
    }
    bool bad = !buf || ferror(f);
    fclose(f);
    if (bad) {
        fprintf(stderr, "%s: cannot read it\n", path);
        free(buf);
        return -1;
    }
    /* an exact-size copy, so ASan sees a read past the input's end */
    uint8_t *data = malloc(len ? len : 1);
    if (!data) {
        free(buf);
        return -1;
    }
    memcpy(data, buf, len);
    free(buf);
    LLVMFuzzerTestOneInput(data, len);
    free(data);
    return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

/* Runs every regular file of a directory; the number run, or -1. */
static int run_dir(const char *dir)
{
    struct dirent **names;
    int n = scandir(dir, &names, NULL, by_name);
    if (n < 0) {
        fprintf(stderr, "%s: %s\n", dir, strerror(errno));
        return -1;
    }
    int ran = 0, failed = 0;
    for (int i = 0; i < n; i++) {
        size_t size = strlen(dir) + strlen(names[i]->d_name) + 2;
        char *path = malloc(size);
        struct stat st;
        if (path) {
            snprintf(path, size, "%s/%s", dir, names[i]->d_name);
            if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
                if (run_file(path) == 0)
                    ran++;
                else
                    failed = 1;
            }
        } else {
            failed = 1;
        }
        free(path);
        free(names[i]);
    }
    free(names);
    return failed ? -1 : ran;
}

int main(int argc, char **argv)
{
    int ran = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "%s: %s\n", argv[i], strerror(errno));
            return 1;
        }
        int n = S_ISDIR(st.st_mode) ? run_dir(argv[i])
                                    : (run_file(argv[i]) == 0 ? 1 : -1);
        if (n < 0)
            return 1;
        ran += n;
    }
    if (ran == 0) {
        fprintf(stderr, "usage: %s FILE|DIR...: no input run\n", argv[0]);
        return 1;
    }
    printf("%d inputs run\n", ran);
    return 0;
}
