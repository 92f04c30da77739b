/*
 * Tests of adapters/registry.c: every protocol has a table name of its
 * own and all that the config and the bot call through its row.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdbool.h>
#include <string.h>

#include "adapters/registry.h"

static void test_registry_rows(void **state)
{
    (void)state;
    int n = 0;
    for (const struct protocol *const *p = registry_protocols; *p; p++, n++) {
        assert_non_null((*p)->config);
        assert_non_null((*p)->create);
        assert_non_null((*p)->start_failed);
        const struct protocol_config *r = (*p)->config;
        assert_non_null(r->name);
        assert_true(r->name[0] != '\0');
        assert_non_null(r->keys);
        assert_true(r->nkeys > 0);
        assert_true(r->size > 0);
        assert_non_null(r->defaults);
        assert_non_null(r->finish);
        assert_non_null(r->free);
        assert_non_null(r->rooms);
        /* one of the keys is the network's name */
        bool named = false;
        for (int k = 0; k < r->nkeys; k++)
            if (strcmp(r->keys[k].name, "name") == 0)
                named = true;
        assert_true(named);
        for (const struct protocol *const *q = registry_protocols; q != p; q++)
            assert_string_not_equal((*q)->config->name, r->name);
    }
    assert_true(n >= 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_registry_rows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
