"""The console mode, end to end: `heartsbot --console --preset RULES` with
its stdin and stdout on pipes, a scripted person who reads the "[you] ..."
lines (plain text: the marked cards in [brackets]), passes and plays
until "Game over!", then closes stdin; the bot exits 0 and the game's
record (data/console/%23console/archive.jsonl under its working
directory) replays. Every line
is worded for one person at a terminal (no channels, no private
messages, "You open", "you take it"); autoplay plays the last card of
each hand.
Run: /usr/bin/python3 tests/integration/test_console.py -v
"""

import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import (Deal, HandShown, HarnessTestCase,  # noqa: E402
                     MoonChoice, Passing, Prompt, cards_in, parse_final,
                     parse_private, parse_trick_line)


WRONG = re.compile(r"private message|privately|!join|in a channel|"
                   r"\byou (opens|sits|takes|is|wins|leaves|has)\b")


class ConsoleTest(HarnessTestCase):

    def test_a_person_plays_a_whole_game_at_the_console(self):
        # hands=1 with the default tie=play_on: one hand, or more until a
        # single lowest total; the person plays as many as it takes.
        bot = self.console(["--preset", "standard hands=1"])
        deals, passed, played = {}, {}, {}
        hand_no, hand, prompts = 0, [], 0
        final = None
        i = 0
        deadline = time.monotonic() + 120
        while final is None:
            self.assertLess(time.monotonic(), deadline, "no end of game")
            i, line = bot.wait_line(r"^\[", since=i, timeout=30)
            i += 1
            # Worded for one person at a terminal: no channels, no
            # private messages, no third person for "you".
            self.assertIsNone(WRONG.search(line), line)
            if line.startswith("[#console] Game over!"):
                final = line
            elif line.startswith("[#console] "):
                trick = parse_trick_line(line[len("[#console] "):])
                for name, card in (trick[1] if trick else []):
                    if name == "you" and card in hand:
                        # autoplay: the last card of the hand, unasked
                        self.assertEqual(hand, [card], line)
                        hand.remove(card)
                        played.setdefault(hand_no, []).append(card)
                # The room never names a card the person still holds.
                self.assertFalse(set(cards_in(line)) & set(hand),
                                 "the room names a held card: " + line)
            else:
                self.assertTrue(line.startswith("[you] "), line)
                ev = parse_private(line[len("[you] "):])
                if isinstance(ev, Deal):
                    hand_no = ev.hand_no
                    self.assertEqual(len(ev.cards), 13, line)
                    deals[hand_no] = ev.cards
                    hand = list(ev.cards)
                    if ev.pass_count:
                        self.assertEqual(ev.pass_count, 3, line)
                        give = sorted(ev.cards, key=harness.card_rank)[-3:]
                        bot.send("pass " + " ".join(
                            harness.spell(c, k) for k, c in enumerate(give)))
                        passed[hand_no] = give
                        hand = [c for c in hand if c not in give]
                elif isinstance(ev, HandShown):
                    self.assertEqual(len(ev.received), 3, line)
                    self.assertFalse(set(passed[hand_no]) & set(ev.cards),
                                     line)
                    self.assertEqual(len(ev.cards), 13, line)
                    hand = list(ev.cards)
                elif isinstance(ev, Prompt):
                    prompts += 1
                    self.assertTrue(ev.marked, "nothing marked: " + line)
                    self.assertLessEqual(ev.marked, set(ev.cards), line)
                    self.assertEqual(sorted(ev.cards), sorted(hand), line)
                    card = min(ev.marked, key=harness.card_rank)
                    # A bare card is a play; any spelling will do.
                    bot.send(harness.spell(card, prompts))
                    played.setdefault(hand_no, []).append(card)
                    hand.remove(card)
                elif isinstance(ev, MoonChoice):
                    bot.send("moon add")
                elif isinstance(ev, Passing):
                    # confirmed at once, before the computers' passes
                    self.assertEqual(sorted(ev.cards),
                                     sorted(passed[hand_no]), line)
                else:
                    self.fail("unexpected private line: " + line)

        self.assertTrue(deals)
        self.assertEqual(prompts, 12 * len(deals),
                         "one prompt per trick but the last (autoplay):\n"
                         + "\n".join(bot.lines))
        self.assertEqual(hand, [])

        bot.close_input()
        self.assertEqual(bot.wait(15), 0, bot.log())

        data = os.path.join(self.tmpdir, "data")
        records = harness.read_records(data, "console", "#console")
        self.assertEqual(len(records), 1)
        record = records[0]
        rc, out = harness.replay(harness.archive_path(data, "console", "#console"))
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


if __name__ == "__main__":
    harness.main()
