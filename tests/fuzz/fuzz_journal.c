/*
 * libFuzzer target for journal lines (storage/journal.c): any bytes are a
 * journal, one line per '\n'. Every line is parsed; the game lines are
 * added to a record of a 4-player standard game, which is then replayed,
 * as a restart does. Neither may crash, whatever a hand-edited or hostile
 * journal holds. Built when HEARTS_FUZZ is on and the compiler is clang;
 * run it as `build/tests/fuzz_journal -max_len=65536`.
 */
#include "storage/journal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct journal_line line;
    char err[256];
    struct record *rec = calloc(1, sizeof *rec);
    if (!rec || engine_rules_parse(&rec->rules, "standard", 0, NULL))
        abort();
    rec->n = 4;
    for (int s = 0; s < 4; s++)
        rec->names[s] = strdup("p");
    size_t start = 0;
    bool ok = true;
    for (size_t i = 0; i <= size && ok; i++) {
        if (i < size && data[i] != '\n')
            continue;
        memset(&line, 0, sizeof line);
        if (journal_parse((const char *)data + start, i - start, &line, err,
                          sizeof err) == 0)
            ok = journal_record_add(rec, &line, err, sizeof err) == 0;
        start = i + 1;
    }
    if (ok)
        record_replay(rec, NULL, NULL, NULL, NULL, err, sizeof err);
    record_free(rec);
    return 0;
}
