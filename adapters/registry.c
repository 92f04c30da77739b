/*
 * The protocol registry (registry.h). A new protocol is a folder under
 * adapters/ that defines its `struct protocol`, and one row here
 * (docs/bot.md, "Adding a chat protocol").
 */
#include "adapters/registry.h"
#include "adapters/irc/irc_config.h"
#include "adapters/matrix/matrix_config.h"

#include <stddef.h>

const struct protocol *const registry_protocols[] = {
    &irc_config_protocol,
    &matrix_config_protocol,
    NULL,
};
