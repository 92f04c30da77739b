"""!replay through the real bot and a real IRC server (ngIRCd): two people
and two computer players finish a one-hand game; then a person asks for
its replay in the channel and, saying "more" privately for each next
chunk, is told the whole game in private messages (nothing of it in the
channel): the summary, every seat's hand as the archive's record dealt
it with what it passed, and every trick of the record in order with the
names and takers the channel saw during the game.
Run: /usr/bin/python3 tests/integration/test_replay.py -v
"""

import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import HarnessTestCase  # noqa: E402


class ReplayTest(HarnessTestCase):

    def test_a_short_game_replayed_privately_trick_by_trick(self):
        server = self.ngircd()
        data = os.path.join(self.tmpdir, "data")
        bot = self.bot(harness.records_bot_config(server.port, data))
        alice = self.client(server, "alice")
        bob = self.client(server, "bob")
        for c in (alice, bob):
            c.join("#hearts")
        alice.wait_member("heartsbot", "#hearts", timeout=15)
        start = harness.short_game(alice, bob, timeout=90)
        bot.wait_log(r"game record written", timeout=10)
        # what the channel saw of the tricks
        seen = {}
        for m in alice.privmsgs_from("heartsbot", to="#hearts", since=start):
            trick = harness.parse_trick_line(m.text)
            if trick:
                seen[(len(seen) // 13, trick[0])] = trick
        records = harness.read_records(data)
        self.assertEqual(len(records), 1)
        record = records[0]

        # bob asks; each chunk ends saying how many lines are left
        mark = bob.mark()
        chan = alice.mark()
        bob.say("#hearts", "!replay")
        deadline = time.monotonic() + 60
        while True:
            m = bob.wait_privmsg("heartsbot", r"\[(\d+ lines? left: say "
                                 r"\"more\"|end of the replay)\]$",
                                 to="bob", since=mark, timeout=15)
            mark = m.seq + 1
            if "end of the replay" in m.text:
                break
            self.assertLess(time.monotonic(), deadline)
            bob.say("heartsbot", "more")
        told = bob.privmsgs_from("heartsbot", to="bob")
        lines = [re.sub(r" \[[^\]]*\]$", "", m.text) for m in told]
        first = next(i for i, t in enumerate(lines) if t.startswith("Game "))
        lines = lines[first:]
        for m in bob.privmsgs_from("heartsbot", to="bob", since=0):
            if m.text.startswith("Game ") or re.match(r"^\d+: ", m.text):
                self.assertEqual(m.command, "PRIVMSG", m.raw)
        # nothing of it in the channel (where the game's end may still
        # be going out)
        for m in alice.privmsgs_from("heartsbot", to="#hearts", since=chan):
            self.assertNotRegex(m.text, r"^(Game [0-9a-f]{16} |\d+: |Hand "
                                r"\d+: \w+ \d+, )|; passes ", m.text)

        players = record["players"]
        self.assertRegex(lines[0], r"^Game [0-9a-f]{16} \(\d{4}-\d\d-\d\d "
                         r"\d\d:\d\d UTC, standard with hands=1 "
                         r"tie=share, 1 hand\): ")
        for seat, total in enumerate(record["totals"]):
            self.assertIn("%s %d" % (players[seat], total), lines[0])
        tricks = []
        for h, hand in enumerate(record["hands"]):
            head = lines.index(next(t for t in lines
                                    if t.startswith("Hand %d: pass" % (h + 1))
                                    or t == "Hand %d: no passing." % (h + 1)))
            for seat, name in enumerate(players):
                line = lines[head + 1 + seat]
                self.assertTrue(line.startswith(name + ": "), line)
                dealt, _ = harness.parse_hand(
                    line[len(name) + 2:].split("; passes")[0])
                self.assertEqual(sorted(dealt),
                                 sorted(hand["deal"][seat]), line)
                if hand.get("passed"):
                    passed = line.split("; passes ", 1)[1]
                    self.assertEqual(sorted(harness.cards_in(passed)),
                                     sorted(hand["passed"][seat]), line)
        for line in lines:
            if re.match(r"^\d+: ", line):
                for part in line.split("; "):
                    n, plays, taker = re.match(r"^(\d+): (.*) → (.*)$",
                                               part).groups()
                    words = plays.split(" ")
                    tricks.append((int(n), list(zip(
                        words[0::2],
                        [harness.cards_in(w)[0] for w in words[1::2]])),
                        taker))
        # every trick of the record, in order, as the channel saw it
        plays = [c for hand in record["hands"] for c in hand["plays"]]
        self.assertEqual([c for _, p, _ in tricks for _, c in p], plays)
        self.assertEqual(len(tricks), len(seen))
        for i, (n, p, taker) in enumerate(tricks):
            _, chan_plays, chan_taker = seen[(i // 13, n)]
            self.assertEqual(p, chan_plays)
            self.assertEqual(taker, chan_taker)
        # the end: the hand's points, the totals
        self.assertRegex(lines[-1], r"^Hand \d+: .*\. Totals: ")

        # more after the end: nothing is open
        mark = bob.mark()
        bob.say("heartsbot", "more")
        bob.wait_privmsg("heartsbot", r"^No replay is open for you",
                         to="bob", since=mark, timeout=15)


if __name__ == "__main__":
    harness.main()
