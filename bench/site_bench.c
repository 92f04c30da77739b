/*
 * site-bench: the web site's figures (docs/benchmarks.md, docs/site.md).
 *
 *   site-bench DATA_DIR SITE_DIR [--net NET] [--room ROOM] [--players P]
 *
 * DATA_DIR holds channels as the bot keeps them (storage-bench gen
 * DATA_DIR/local/%23hearts makes a busy one). Measures the whole site
 * written (site_write_all), then one finished game archived in NET's
 * ROOM (default local, #hearts) and its pages rewritten (site_game; the
 * archiving itself not timed), then a start's site_open of that site,
 * then the site's size on disk and its largest page.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

#include "bench/random_game.h"
#include "bot/common/file.h"
#include "bot/site/site.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static const char *arg_str(int argc, char **argv, const char *name,
                           const char *dflt)
{
    for (int i = 0; i + 1 < argc; i++)
        if (!strcmp(argv[i], name))
            return argv[i + 1];
    return dflt;
}

struct size {
    long long files, bytes, disk, largest;
    char largest_path[1024];
};

static void measure(const char *dir, struct size *z)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (lstat(path, &st))
            continue;
        z->disk += (long long)st.st_blocks * 512;
        if (S_ISDIR(st.st_mode)) {
            measure(path, z);
            continue;
        }
        z->files++;
        z->bytes += st.st_size;
        if (st.st_size > z->largest) {
            z->largest = st.st_size;
            snprintf(z->largest_path, sizeof z->largest_path, "%s", path);
        }
    }
    closedir(d);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: site-bench DATA_DIR SITE_DIR [--net NET] "
                        "[--room ROOM] [--players P]\n");
        return 2;
    }
    const char *data = argv[1], *out = argv[2];
    const char *net = arg_str(argc, argv, "--net", "local");
    const char *room = arg_str(argc, argv, "--room", "#hearts");
    long players = atol(arg_str(argc, argv, "--players", "10000"));
    struct site_options o = {.data_dir = data, .out_dir = out};
    struct site *s = site_new(&o);
    char err[1024], warn[512];
    int channels;
    double t0 = now_s();
    if (site_write_all(s, &channels, warn, sizeof warn, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    double whole = now_s() - t0;
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("whole site: %d channel(s) in %.1f s (peak RSS %ld MB)%s%s\n",
           channels, whole, ru.ru_maxrss / 1024, warn[0] ? "; " : "", warn);

    /* one more game, archived as the bot does, then its pages */
    char ne[FILE_NAME_MAX + 1], re[FILE_NAME_MAX + 1], dir[FILE_PATH_MAX];
    file_name_encode(net, ne, sizeof ne);
    file_name_encode(room, re, sizeof re);
    snprintf(dir, sizeof dir, "%s/%s/%s", data, ne, re);
    struct engine_rules rules;
    engine_rules_parse(&rules, "standard", 4, NULL);
    uint64_t x = (uint64_t)time(NULL);
    double times[5];
    for (int k = 0; k < 5; k++) {
        int h;
        char *rec = random_game(&rules, x + (uint64_t)k, &h);
        struct archive_result r;
        random_result(&r, &x, 5000000 + (long)x % 1000000 + k, players);
        bool added;
        if (archive_add(dir, &r, rec, false, &added, err, sizeof err)) {
            fprintf(stderr, "%s\n", err);
            return 1;
        }
        double t1 = now_s();
        if (site_game(s, net, room, &r, rec, strlen(rec), err, sizeof err)) {
            fprintf(stderr, "%s\n", err);
            return 1;
        }
        times[k] = now_s() - t1;
        free(rec);
    }
    printf("one game after it (5 games, each archived, then site_game):");
    for (int k = 0; k < 5; k++)
        printf(" %.1f ms", times[k] * 1000);
    printf("\n");
    site_free(s);

    /* a bot that starts: takes up the site, writing what is missing */
    s = site_new(&o);
    bool rewritten;
    double t2 = now_s();
    if (site_open(s, &rewritten, &channels, warn, sizeof warn, err,
                  sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    printf("taken up at a start (site_open): %.1f s%s\n", now_s() - t2,
           rewritten ? " (written whole)" : "");
    struct size z;
    memset(&z, 0, sizeof z);
    measure(out, &z);
    printf("size: %lld files, %.1f MB of pages (%.1f MB on disk); largest "
           "page %.1f KB: %s\n",
           z.files, (double)z.bytes / 1e6, (double)z.disk / 1e6,
           (double)z.largest / 1e3, z.largest_path);
    site_free(s);
    return 0;
}
