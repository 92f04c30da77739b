/*
 * libFuzzer target for the application-service transaction parser
 * (mx_txn_parse in adapters/matrix/sync.c): any bytes are the body of a
 * PUT /transactions/{txnId} that came with the homeserver's token (the
 * listener refuses the rest before reading the body; a body past its cap is
 * never parsed). The parser never crashes or leaks; a refused body leaves
 * the caller's struct as it was and says why; an accepted one holds only
 * items of the right shape (as a sync's, see matrix_items.h), no
 * next_batch, no m.direct, and never the same event twice. Built when
 * HEARTS_FUZZ is on and the compiler is clang; run it as
 * `build/tests/fuzz_matrix_txn -max_len=65536 tests/fuzz/corpus/matrix_txn`.
 */
#include "adapters/matrix/sync.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fuzz/matrix_items.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct mx_sync s, sentinel;
    char err[256];
    memset(&s, 0xa5, sizeof s);
    memset(&sentinel, 0xa5, sizeof sentinel);
    if (mx_txn_parse((const char *)data, size, "@bot:hs", &s, err,
                     sizeof err)) {
        if (memcmp(&s, &sentinel, sizeof s) != 0 || !err[0])
            abort();
        return 0;
    }
    if (s.next_batch || s.has_direct || s.ndirect)
        abort();
    check_items(&s);
    for (size_t i = 0; i < s.nitems; i++)
        for (size_t j = i + 1; j < s.nitems; j++)
            if (s.items[i].kind == MX_ITEM_MESSAGE &&
                s.items[j].kind == MX_ITEM_MESSAGE &&
                strcmp(s.items[i].event_id, s.items[j].event_id) == 0)
                abort();
    mx_sync_free(&s);
    return 0;
}
