/*
 * hearts-sim replay FILE [--fill] [--legal]: the replay checker of
 * ../shared/spec/game-record.md. Reads a file of records (one game per
 * line, FILE "-" for stdin), replays each through the engine with
 * record_replay, and prints one line per game: "game N: OK" or
 * "game N: <where>: <reason>". Exits 0 if every game is valid, 1 if any is
 * not, 2 for a usage error or a file it cannot read.
 *
 * --fill writes each valid record back to stdout, rewritten by the record
 * writer from the replay's events (so with points, totals and winners),
 * and moves the status lines to stderr. --legal prints, before every
 * action, what the acting seat could have done.
 *
 * The input is untrusted: lines are read byte by byte up to
 * RECORD_MAX_LINE (a longer line is refused, not stored), NUL bytes are
 * kept and refused by the reader, and nothing else is assumed about them.
 */
#include "bot/common/xalloc.h"
#include "engine/engine.h"
#include "storage/record/record.h"
#include "tools/sim.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct line {
    char *buf;
    size_t len;
    size_t cap;
    bool too_long;
};

/*
 * Reads one line without its newline. Bytes beyond RECORD_MAX_LINE are
 * read and dropped (too_long is set), so a huge line costs no memory.
 * Returns 1 for a line, 0 at the end of the file, -1 on a read error.
 */
static int read_line(FILE *f, struct line *l)
{
    bool any = false;
    l->len = 0;
    l->too_long = false;
    for (;;) {
        int c = getc_unlocked(f);
        if (c == EOF)
            break;
        any = true;
        if (c == '\n')
            return 1;
        if (l->len == RECORD_MAX_LINE) {
            l->too_long = true;
            continue;
        }
        if (l->len == l->cap) {
            size_t cap = l->cap ? l->cap * 2 : 4096;
            if (cap > RECORD_MAX_LINE)
                cap = RECORD_MAX_LINE;
            l->buf = xrealloc(l->buf, cap);
            l->cap = cap;
        }
        l->buf[l->len++] = (char)c;
    }
    if (ferror(f))
        return -1;
    return any ? 1 : 0;
}

static bool blank(const struct line *l)
{
    for (size_t i = 0; i < l->len; i++)
        if (l->buf[i] != ' ' && l->buf[i] != '\t' && l->buf[i] != '\r')
            return false;
    return true;
}

struct legal_ctx {
    FILE *out;
    long game;
};

/* The cards of a multiset, ascending, a second copy printed twice. */
static void print_cards(FILE *out, struct engine_cards c)
{
    for (int card = 0; card < 64; card++) {
        for (int copy = 0; copy < 2; copy++) {
            uint64_t set = copy ? c.two : c.one;
            if (set >> card & 1)
                fprintf(out, " %s", engine_card_name(card));
        }
    }
}

/* --legal: what the seat about to act could do. */
static void legal_step(void *ctx, const struct engine_game *g, int hand,
                       int action, const struct engine_action *a)
{
    struct legal_ctx *lc = ctx;
    FILE *out = lc->out;
    fprintf(out, "game %ld, hand %d, action %d, seat %d: ", lc->game, hand,
            action, a->seat);
    switch ((enum engine_action_kind)a->kind) {
    case ENGINE_ACT_PLAY: {
        struct engine_cards legal = {engine_legal_plays(g), 0};
        fprintf(out, "play one of:");
        print_cards(out, legal);
        break;
    }
    case ENGINE_ACT_PASS:
    case ENGINE_ACT_PASS_BLIND: {
        bool blind;
        int k = engine_pass_count(g, a->seat, &blind);
        fprintf(out, "pass %d of:", k);
        print_cards(out, engine_hand(g, a->seat));
        if (blind)
            fprintf(out, " or blind");
        break;
    }
    case ENGINE_ACT_DISCARD:
        fprintf(out, "discard %d of:", engine_discard_count(g));
        print_cards(out, engine_hand(g, a->seat));
        break;
    case ENGINE_ACT_MOON:
        fprintf(out, "moon: subtract | add_others");
        break;
    }
    fputc('\n', out);
}

static void usage(FILE *out)
{
    fprintf(out, "usage: hearts-sim replay FILE [--fill] [--legal]\n"
                 "  FILE     game records, one per line (- for stdin)\n"
                 "  --fill   write the valid records back with points, "
                 "totals and winners\n"
                 "  --legal  print the legal actions before every action\n");
}

/* Checks one game; prints its status line to `status` and, with fill,
 * the record to stdout. Returns 0 if valid. */
static int check_game(const struct line *l, long game, bool fill, bool legal,
                      FILE *status)
{
    char err[512];
    if (l->too_long) {
        fprintf(status, "game %ld: the record is longer than %u bytes\n", game,
                RECORD_MAX_LINE);
        return -1;
    }
    struct record *rec;
    if (record_parse(l->buf, l->len, &rec, err, sizeof err)) {
        fprintf(status, "game %ld: %s\n", game, err);
        return -1;
    }
    struct record_writer *w = NULL;
    if (fill)
        w = record_writer_new(&rec->rules, (const char *const *)rec->names,
                              rec->n);
    struct legal_ctx lc = {.out = status, .game = game};
    int rc =
        record_replay(rec, w ? record_writer_sink(w) : NULL,
                      legal ? legal_step : NULL, &lc, NULL, err, sizeof err);
    if (rc == 0 && w) {
        char *json = record_writer_json(w);
        if (json) {
            printf("%s\n", json);
            free(json);
        } else {
            snprintf(err, sizeof err, "more than %d hands to write",
                     RECORD_MAX_HANDS);
            rc = -1;
        }
    }
    if (rc == 0)
        fprintf(status, "game %ld: OK\n", game);
    else
        fprintf(status, "game %ld: %s\n", game, err);
    record_writer_free(w);
    record_free(rec);
    return rc;
}

int sim_replay(int argc, char **argv)
{
    const char *path = NULL;
    bool fill = false, legal = false;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--fill")) {
            fill = true;
        } else if (!strcmp(argv[i], "--legal")) {
            legal = true;
        } else if (!strcmp(argv[i], "--help")) {
            usage(stdout);
            return 0;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            fprintf(stderr, "hearts-sim replay: unknown option '%s'\n",
                    argv[i]);
            usage(stderr);
            return 2;
        } else if (path) {
            fprintf(stderr, "hearts-sim replay: one FILE only\n");
            usage(stderr);
            return 2;
        } else {
            path = argv[i];
        }
    }
    if (!path) {
        usage(stderr);
        return 2;
    }
    FILE *in = strcmp(path, "-") ? fopen(path, "r") : stdin;
    if (!in) {
        fprintf(stderr, "hearts-sim replay: %s: %s\n", path, strerror(errno));
        return 2;
    }
    FILE *status = fill ? stderr : stdout;
    struct line l = {0};
    long games = 0;
    int rc = 0;
    for (;;) {
        int got = read_line(in, &l);
        if (got < 0) {
            fprintf(stderr, "hearts-sim replay: %s: %s\n", path,
                    strerror(errno));
            rc = 2;
            break;
        }
        if (got == 0)
            break;
        if (blank(&l) && !l.too_long)
            continue;
        if (check_game(&l, ++games, fill, legal, status))
            rc = 1;
    }
    free(l.buf);
    if (in != stdin)
        fclose(in);
    if (fflush(stdout) || ferror(stdout)) {
        fprintf(stderr, "hearts-sim replay: writing the output failed\n");
        rc = 2;
    }
    return rc;
}
