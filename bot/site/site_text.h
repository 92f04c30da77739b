/*
 * Every English text of the site's pages, in one place, so that they can
 * move into the message catalogue (bot/common/msg.h) when the pages are
 * translated. printf formats where a value goes in.
 */
#ifndef HEARTS_SITE_TEXT_H
#define HEARTS_SITE_TEXT_H

#define ST_LANG "en"
#define ST_SITE_TITLE "Hearts"
#define ST_CHANNELS "Channels"
#define ST_NO_CHANNELS "No games have been played yet."
#define ST_NETWORK "Network"
#define ST_ROOM "Channel"
#define ST_GAMES "Games"
#define ST_WINS "Wins"
#define ST_RANK "Rank"
#define ST_NAME "Name"
#define ST_RATING "Rating"
#define ST_POINTS_PER_HAND "Points per hand"
#define ST_MOONS "Moons"
#define ST_QUEENS "Q♠ taken"
#define ST_PRESET "Rules"
#define ST_WHEN "When"
#define ST_PLAYERS "Players"
#define ST_RESULT "Result"
#define ST_TOTAL "Total"
#define ST_WON "won"
#define ST_LOST "lost"
#define ST_LEFT "left"
#define ST_COMPUTER "(computer)"
#define ST_CHANNEL_TITLE "%s on %s"
#define ST_LEADERBOARDS "Leaderboards"
#define ST_BOARD_CAPTION "Leaderboard: %s"
#define ST_BOARD_TOP "Leaderboard: %s, top %d"
#define ST_BOARD_ALL "The whole leaderboard (%d people)"
#define ST_BOARD_TITLE "Leaderboard: %s"
#define ST_RECENT "Recent games"
#define ST_RECENT_CAPTION "The last %d finished games, newest first"
#define ST_NO_GAMES "No finished games yet."
#define ST_HOME "All channels"
#define ST_BACK_CHANNEL "Back to the channel"
#define ST_PERSON_FIGURES "Figures by rules"
#define ST_PERSON_FIGURES_CAPTION "Figures of %s by rules"
#define ST_PERSON_CHARTS "Rating over time"
#define ST_CHART_ALT                                                           \
    "Rating of %s under %s over %d games: from %.0f to %.0f, lowest %.0f, "    \
    "highest %.0f."
#define ST_CHART_ONE "One game under %s: rating %.0f."
#define ST_PERSON_GAMES "Last games"
#define ST_PERSON_GAMES_CAPTION "The last %d games of %s, newest first"
#define ST_GAME "Game"
#define ST_GAME_TITLE "Game %s"
#define ST_GAME_SUMMARY "%s, %s, %d hands"
#define ST_GAME_FINAL "Final totals"
#define ST_HAND "Hand %d"
#define ST_HAND_DEALER "Dealer: "
#define ST_HAND_PASS "Pass: %s"
#define ST_DEALT "Dealt"
#define ST_PASSED "Passed"
#define ST_HIDDEN "The hands of this channel are not shown."
#define ST_HAND_CAPTION "Hand %d: cards, tricks and points"
#define ST_TRICK "Trick"
#define ST_TOOK "Took"
#define ST_NOBODY "nobody"
#define ST_HAND_POINTS "Points this hand"
#define ST_RUNNING "Running totals"
#define ST_MOON "shot the moon"
#define ST_STEP "Step through the tricks"
#define ST_FOOTER "Written by heartsbot from the channel's archive."

static const char *const st_pass_names[] = {
    "left",    "right",           "across",          "hold",
    "scatter", "two to the left", "two to the right"};

#endif
