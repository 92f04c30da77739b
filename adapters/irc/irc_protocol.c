/*
 * The irc protocol's row (irc_protocol.h): the only file that sees both
 * its config table and its adapter, so that neither needs the other.
 */
#include "adapters/irc/irc_protocol.h"
#include "adapters/irc/irc_adapter.h"
#include "adapters/irc/irc_config.h"

static struct chat_adapter *create(struct loop *l, const void *cfg,
                                   const struct protocol_env *env)
{
    struct chat_adapter *a = ircad_new(l, cfg, env->on_event, env->ctx);
    ircad_set_data_dir(a, env->data_dir);
    return a;
}

static void reload(struct chat_adapter *a, const void *cfg,
                   bool (*busy)(void *ctx, struct chat_adapter *a,
                                const char *room),
                   void *ctx)
{
    ircad_reload_channels(a, cfg, busy, ctx);
}

const struct protocol irc_protocol = {
    .reload = reload,
    .config = &irc_config_section,
    .create = create,
    .start_failed = "cannot start with these settings (see the message "
                    "above)",
};
