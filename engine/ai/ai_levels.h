/*
 * The table of computer levels, one row each, in the order of enum
 * ai_level: the name, the playouts of a decision (0: it does not search),
 * the config key that sets them (NULL: none), and the decision function
 * (its file's; see ai_decide_fn in ai_internal.h).
 *
 * A new level is its own file with its decision function, one row here,
 * and the file in hearts_ai's sources (CMakeLists.txt). The row declares
 * the function (ai_internal.h) and puts it in the table (ai.c): this file
 * is read once for each, with AI_LEVEL defined for the purpose, and so
 * has no include guard.
 *
 * The searching budgets were chosen with `hearts-sim think`
 * (docs/engine.md): hard stays under 20 ms a decision.
 */
AI_LEVEL("random", 0, NULL, ai_random_decide)
AI_LEVEL("easy", 0, NULL, ai_easy_decide)
AI_LEVEL("normal", 100, "normal_playouts", ai_search_decide)
AI_LEVEL("hard", 6000, "hard_playouts", ai_search_decide)
