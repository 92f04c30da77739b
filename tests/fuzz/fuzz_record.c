/*
 * libFuzzer target for the record reader and replay (storage/record/:
 * record_read.c, record_replay.c, record_write.c): any bytes are one
 * record line. Whatever parses is replayed with a writer
 * attached and the --legal step callback's reads, and what the writer then
 * writes must parse and replay again: the reader never crashes, and the
 * writer and the reader agree on every record the reader accepts.
 * Built when HEARTS_FUZZ is on and the compiler is clang; run it as
 * `build/tests/fuzz_record -max_len=65536 tests/data/records`.
 */
#include "storage/record/record.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Reads what --legal reads, so the fuzzer reaches it too. */
static void step(void *ctx, const struct engine_game *g, int hand, int action,
                 const struct engine_action *a)
{
    uint64_t *sum = ctx;
    bool blind;
    *sum += engine_legal_plays(g) + (uint64_t)hand + (uint64_t)action;
    *sum += (uint64_t)engine_pass_count(g, a->seat, &blind);
    *sum += engine_hand(g, a->seat).one + (uint64_t)engine_discard_count(g);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[256];
    struct record *rec;
    if (record_parse((const char *)data, size, &rec, err, sizeof err))
        return 0;
    struct record_writer *w =
        record_writer_new(&rec->rules, (const char *const *)rec->names, rec->n);
    if (!w)
        abort(); /* the reader gave rules or names the writer refuses */
    uint64_t sum = 0;
    if (record_replay(rec, record_writer_sink(w), step, &sum, NULL, err,
                      sizeof err) == 0) {
        char *json = record_writer_json(w);
        if (!json || record_check(json, strlen(json), err, sizeof err))
            abort(); /* the writer wrote what the reader refuses */
        free(json);
    }
    record_writer_free(w);
    record_free(rec);
    return 0;
}
