/*
 * The protocol registry (registry.h). A new protocol is a folder under
 * adapters/ that defines its `struct protocol`, and one row here
 * (docs/bot.md, "Adding a chat protocol").
 */
#include "adapters/registry.h"
#include "adapters/irc/irc_protocol.h"
#include "adapters/matrix/matrix_protocol.h"

#include <stddef.h>

const struct protocol *const registry_protocols[] = {
    &irc_protocol,
    &matrix_protocol,
    NULL,
};
