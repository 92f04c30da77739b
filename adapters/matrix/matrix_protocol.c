/*
 * The matrix protocol's row (matrix_protocol.h): the only file that sees both
 * its config table and its adapter, so that neither needs the other.
 */
#include "adapters/matrix/matrix_protocol.h"
#include "adapters/matrix/matrix_adapter.h"
#include "adapters/matrix/matrix_config.h"

static struct chat_adapter *create(struct loop *l, const void *cfg,
                                   const struct protocol_env *env)
{
    return mx_adapter_new(l, cfg, env->data_dir, env->on_event, env->ctx);
}

const struct protocol matrix_protocol = {
    .config = &matrix_config_section,
    .create = create,
    .start_failed = "cannot start",
};
