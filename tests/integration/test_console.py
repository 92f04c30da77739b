"""The console mode, end to end: `heartsbot --console --preset RULES`, a
scripted person who reads the "[you] ..." lines (the marked cards in
[brackets]), passes and plays until "Game over!".

Through pipes: the lines are plain text, there is no prompt, and every
line of stdout is a line of the game (no log line). The bot exits 0 at
the end of its input; it left nothing in its working directory: the
game's record is in the person's state directory
(HOME/.local/state/heartsbot/console/console/%23console/archive.jsonl,
mode 0700 directories) and replays, and its log is heartsbot.log there.

At a terminal (a pseudo-terminal, python's pty): hearts and diamonds are
red (ANSI), a prompt "> " waits after the lines of each turn and never
stays inside a line of the game, and "quit" ends the session in one line
saying where the game's record is. NO_COLOR and TERM=dumb turn the
colours off and keep the prompt.

Every line is worded for one person at a terminal (no channels, no
private messages, "You open", "you take it"); autoplay plays the last card
of each hand.
Run: /usr/bin/python3 tests/integration/test_console.py -v
"""

import os
import re
import stat
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import (Deal, HandShown, HarnessTestCase,  # noqa: E402
                     MoonChoice, Passing, Prompt, cards_in, parse_final,
                     parse_private, parse_trick_line)


WRONG = re.compile(r"private message|privately|!join|in a channel|"
                   r"\byou (opens|sits|takes|is|wins|leaves|has)\b")

# What the log writes: "2026-12-02T01:30:44.018Z info ..."
LOG_LINE = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z "
                      r"(error|warn|info|debug) ")

RED, RESET = "\x1b[31m", "\x1b[0m"
SGR = re.compile(r"\x1b\[[0-9;]*m")


def play_game(test, bot, tty=False):
    """Plays the console's game to "Game over!": (final line, deals,
    passed, played). At a terminal each line is typed once the prompt
    shows, as a person would."""
    deals, passed, played = {}, {}, {}
    hand_no, hand, prompts = 0, [], 0
    final = None
    i = 0
    deadline = time.monotonic() + 120

    def send(text):
        if tty:
            bot.wait_prompt()
        bot.send(text)

    while final is None:
        test.assertLess(time.monotonic(), deadline, "no end of game")
        i, line = bot.wait_line(r"^\[", since=i, timeout=30)
        i += 1
        # Worded for one person at a terminal: no channels, no
        # private messages, no third person for "you".
        test.assertIsNone(WRONG.search(line), line)
        if line.startswith("[#console] Game over!"):
            final = line
        elif line.startswith("[#console] "):
            trick = parse_trick_line(line[len("[#console] "):])
            for name, card in (trick[1] if trick else []):
                if name == "you" and card in hand:
                    # autoplay: the last card of the hand, unasked
                    test.assertEqual(hand, [card], line)
                    hand.remove(card)
                    played.setdefault(hand_no, []).append(card)
            # The room never names a card the person still holds.
            test.assertFalse(set(cards_in(line)) & set(hand),
                             "the room names a held card: " + line)
        else:
            test.assertTrue(line.startswith("[you] "), line)
            ev = parse_private(line[len("[you] "):])
            if isinstance(ev, Deal):
                hand_no = ev.hand_no
                test.assertEqual(len(ev.cards), 13, line)
                deals[hand_no] = ev.cards
                hand = list(ev.cards)
                if ev.pass_count:
                    test.assertEqual(ev.pass_count, 3, line)
                    give = sorted(ev.cards, key=harness.card_rank)[-3:]
                    send("pass " + " ".join(
                        harness.spell(c, k) for k, c in enumerate(give)))
                    passed[hand_no] = give
                    hand = [c for c in hand if c not in give]
            elif isinstance(ev, HandShown):
                test.assertEqual(len(ev.received), 3, line)
                test.assertFalse(set(passed[hand_no]) & set(ev.cards), line)
                test.assertEqual(len(ev.cards), 13, line)
                hand = list(ev.cards)
            elif isinstance(ev, Prompt):
                if ev.received:  # leading the hand's first trick
                    test.assertEqual(len(ev.received), 3, line)
                    hand = hand + ev.received
                prompts += 1
                test.assertTrue(ev.marked, "nothing marked: " + line)
                test.assertLessEqual(ev.marked, set(ev.cards), line)
                test.assertEqual(sorted(ev.cards), sorted(hand), line)
                card = min(ev.marked, key=harness.card_rank)
                # A bare card is a play; any spelling will do.
                send(harness.spell(card, prompts))
                played.setdefault(hand_no, []).append(card)
                hand.remove(card)
            elif isinstance(ev, MoonChoice):
                send("moon add")
            elif isinstance(ev, Passing):
                # confirmed at once, before the computers' passes
                test.assertEqual(sorted(ev.cards), sorted(passed[hand_no]),
                                 line)
            else:
                test.fail("unexpected private line: " + line)

    test.assertTrue(deals)
    test.assertEqual(prompts, 12 * len(deals),
                     "one prompt per trick but the last (autoplay):\n"
                     + "\n".join(bot.lines))
    test.assertEqual(hand, [])
    return final, deals, passed, played


class ConsoleTest(HarnessTestCase):

    def assert_private_dirs(self, bot):
        """The console's directories are the person's alone, and nothing
        was left in the working directory."""
        for d in (os.path.join(bot.home, ".local"),
                  os.path.join(bot.home, ".local", "state"),
                  os.path.dirname(bot.data_dir), bot.data_dir):
            mode = stat.S_IMODE(os.lstat(d).st_mode)
            self.assertEqual(mode, 0o700, "%s: %o" % (d, mode))
        self.assertEqual(sorted(os.listdir(self.tmpdir)),
                         ["console.log", "home"])

    def assert_shown_lines(self, bot, typed):
        """What the terminal shows: lines of the game, typed lines after
        the prompt, never the prompt inside a line of the game."""
        for line in bot.lines:
            if line.startswith("> "):
                self.assertIn(line[2:], typed, "a prompt in a line: " + line)
            else:
                self.assertRegex(line, r"^(\[(#console|you)\] |Goodbye\.$)")

    def assert_red_suits(self, raw):
        """In every line of the game, every heart and diamond is red, no
        club or spade is, and no colour goes on past the line's end."""
        checked = 0
        for line in raw.split("\r\n"):
            # what stays shown: after the last erasing of the line
            line = line.split("\r\x1b[K")[-1]
            pieces = re.split(r"(\x1b\[[0-9;]*[A-Za-z])", line)
            if "".join(p for p in pieces
                       if not p.startswith("\x1b[")).startswith("> "):
                continue  # a line typed (the terminal's echo)
            red = False
            for piece in pieces:
                if piece.startswith("\x1b["):
                    if piece == RED:
                        red = True
                    elif piece in (RESET, "\x1b[39m"):
                        red = False
                    continue
                for ch in piece:
                    if ch in "\u2665\u2666":
                        self.assertTrue(red, "a red suit not red: " + line)
                    elif ch in "\u2660\u2663":
                        self.assertFalse(red, "a black suit red: " + line)
            self.assertFalse(red, "red past the line's end: " + line)
            checked += line.startswith("[")
        self.assertGreater(checked, 20)

    def test_a_person_plays_a_whole_game_at_the_console(self):
        # hands=1 with the default tie=play_on: one hand, or more until a
        # single lowest total; the person plays as many as it takes.
        bot = self.console(["--preset", "standard hands=1"])
        final, deals, passed, played = play_game(self, bot)

        bot.close_input()
        self.assertEqual(bot.wait(15), 0, bot.log())
        bot.wait_line(r"^Goodbye\.$", since=0, timeout=5)
        # Piped: plain lines of the game, nothing else; no log line, on
        # stdout or stderr: the log is in the console's directory.
        for line in bot.lines:
            self.assertRegex(line, r"^(\[(#console|you)\] |Goodbye\.$)")
            self.assertNotIn("\x1b", line)
            self.assertNotIn("> ", line[:2])
        self.assertEqual(bot.log(), "")
        log = bot.data_log()
        self.assertIn(" info stopping: end of input\n", log)
        for line in log.splitlines():
            self.assertRegex(line, LOG_LINE)
        self.assert_private_dirs(bot)

        data = bot.data_dir
        records = harness.read_records(data, "console", "#console")
        self.assertEqual(len(records), 1)
        record = records[0]
        rc, out = harness.replay(harness.archive_path(data, "console",
                                                      "#console"))
        self.assertEqual(rc, 0, out)
        self.assertIn("OK", out)
        self.assertEqual(record["players"][0], "you")
        self.assertEqual(len(record["hands"]), len(deals))
        for h, rec_hand in enumerate(record["hands"], 1):
            self.assertEqual(sorted(rec_hand["deal"][0]), sorted(deals[h]))
            self.assertEqual(sorted(rec_hand["passed"][0]),
                             sorted(passed.get(h, [])))
            # The person played exactly the cards seat 0 held after the
            # pass, and the record has them all.
            held = harness.record_holdings(record, h - 1)[0]
            self.assertEqual(set(played[h]), held)
            self.assertLessEqual(held, set(rec_hand["plays"]))
        self.assertEqual(parse_final(final),
                         dict(zip(record["players"], record["totals"])))

    def test_a_whole_game_at_a_terminal_has_red_suits_and_a_prompt(self):
        bot = self.console(["--preset", "standard hands=1"], tty=True)
        final, deals, _, _ = play_game(self, bot, tty=True)
        bot.wait_prompt()
        typed = [line[2:] for line in bot.lines if line.startswith("> ")]
        self.assertGreaterEqual(len(typed), 12 * len(deals))
        self.assert_shown_lines(bot, typed)
        raw = bot.raw.decode("utf-8", "replace")
        self.assertIn(RED, raw)
        self.assert_red_suits(raw)
        # the prompt waited after the lines of each turn: a play typed
        # after each prompt, none lost
        self.assertEqual(len(harness.read_records(bot.data_dir, "console",
                                                  "#console")), 1)

        # The game is over: quit says goodbye, and no prompt is left.
        bot.send("quit")
        self.assertEqual(bot.wait(15), 0, bot.log())
        bot.wait_line(r"^Goodbye\.$", since=0, timeout=5)
        self.assertEqual(bot.lines[-1], "Goodbye.")
        self.assertEqual(bot.partial, "")
        self.assertEqual(bot.log(), "")
        self.assertIn(" info stopping: quit\n", bot.data_log())
        self.assert_private_dirs(bot)

    def test_quit_in_the_middle_of_a_game_saves_it_and_says_where(self):
        for word in ("quit", "EXIT"):
            with self.subTest(word=word):
                bot = harness.ConsoleBot(self.tmpdir, ["--preset",
                                                       "standard"],
                                         tty=True)
                self.addCleanup(bot.stop)
                i, _ = bot.wait_line(r"^\[you\] Hand 1 ", timeout=15)
                bot.wait_prompt()
                bot.send(word)
                self.assertEqual(bot.wait(15), 0, bot.log())
                bot.wait_line(r"^\[#console\] The console closes",
                              since=i, timeout=5)
                # one line after the typed word, and nothing after it
                self.assertEqual(bot.lines[-2:], [
                    "> " + word,
                    "[#console] The console closes: this game ends "
                    "unscored, and its record is saved in %s." % bot.data_dir,
                ])
                self.assertEqual(bot.partial, "")
                records = harness.read_records(bot.data_dir, "console",
                                               "#console",
                                               finished_only=False)
                self.assertTrue(records)
                self.assertNotIn("winners", records[-1])
                bot.stop()

    def test_no_color_and_a_dumb_terminal_have_no_colours(self):
        for kw, escapes in (({"no_color": "1"}, {"\x1b[K"}),
                            ({"term": "dumb"}, set())):
            with self.subTest(**kw):
                bot = harness.ConsoleBot(self.tmpdir, ["--preset",
                                                       "standard"],
                                         tty=True, **kw)
                self.addCleanup(bot.stop)
                bot.wait_line(r"^\[you\] Hand 1 .*\u2665", timeout=15)
                bot.wait_prompt()
                bot.send("hand")
                bot.wait_line(r"^\[you\] Your hand: ", timeout=15)
                bot.wait_prompt()
                bot.close_input()  # Ctrl-D
                self.assertEqual(bot.wait(15), 0, bot.log())
                raw = bot.raw.decode("utf-8", "replace")
                self.assertNotIn(RED, raw)
                self.assertEqual(set(re.findall(r"\x1b\[[0-9;]*[A-Za-z]",
                                                raw)), escapes)
                self.assertEqual(bot.partial, "")
                self.assertRegex(bot.lines[-1],
                                 r"^\[#console\] The console closes: ")
                self.assert_shown_lines(bot, ["hand"])
                bot.stop()


if __name__ == "__main__":
    harness.main()
