"""hint and review through the real bot and a real IRC server (ngIRCd): at
a table opened with hints=on, alice asks for a hint at her first turn to
play and at her pass, is told privately a legal card (three of her
cards), and plays the hinted card; after the one-hand game bob asks
!review in the channel and is told privately, with at most three
positions, each naming one of his own plays; the record says "hints":
true, and the game counts on the hints board, not standard's.
Run: /usr/bin/python3 tests/integration/test_teach.py -v
"""

import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import HarnessTestCase  # noqa: E402


class TeachTest(HarnessTestCase):

    def test_hint_at_a_hints_table_and_review_after_the_game(self):
        server = self.ngircd()
        data = os.path.join(self.tmpdir, "data")
        bot = self.bot(harness.records_bot_config(server.port, data))
        alice = self.client(server, "alice")
        bob = self.client(server, "bob")
        for c in (alice, bob):
            c.join("#hearts")
        alice.wait_member("heartsbot", "#hearts", timeout=15)
        harness.ask(alice, "!hearts standard hands=1 tie=share hints=on",
                    r"opens a Hearts table.*hints=on")
        harness.ask(bob, "!join", r"^bob sits down")
        harness.ask(alice, "!bot 2 easy", r"computer players")
        start = alice.mark()
        alice.say("#hearts", "!start")
        hinted = {"pass": None, "play": None}

        def hint(player):
            mark = player.mark()
            player.tell("hint")
            return player.wait_said(r"^Hint: ", since=mark, timeout=30)

        def on_deal(player, deal):
            if player.client is alice and hinted["pass"] is None:
                m = hint(player)
                cards = harness.cards_in(m.text.split(" (expected")[0])
                hinted["pass"] = cards
                self.assertGreaterEqual(len(cards), deal.pass_count)
                self.assertTrue(set(cards[:deal.pass_count]) <=
                                set(deal.cards), m.text)
                return cards[:deal.pass_count]
            return harness.pass_highest(player, deal)

        def on_prompt(player, prompt):
            if player.client is alice and hinted["play"] is None and \
                    len(prompt.marked) > 1:
                m = hint(player)
                self.assertRegex(m.text, r"expected [0-9.]+ points for you "
                                 r"this hand")
                card = harness.cards_in(m.text)[0]
                self.assertIn(card, prompt.marked, m.text)
                hinted["play"] = card
                return card
            return harness.play_lowest(player, prompt)

        harness.play_game(
            [harness.Player(alice), harness.Player(bob)],
            lambda: alice.find(r"Game over!", frm="heartsbot", to="#hearts",
                               since=start),
            on_deal=on_deal, on_prompt=on_prompt, timeout=120)
        self.assertIsNotNone(hinted["pass"])
        self.assertIsNotNone(hinted["play"])
        # nobody else heard of the hints
        for m in bob.privmsgs_from("heartsbot", since=0):
            self.assertNotRegex(m.text, r"^Hint: ")
        bot.wait_log(r"game record written", timeout=10)
        records = harness.read_records(data)
        self.assertEqual(len(records), 1)
        record = records[0]
        self.assertIs(record.get("hints"), True)
        # alice played the hinted card
        bob_seat = record["players"].index("bob")
        self.assertIn(hinted["play"], record["hands"][0]["plays"])

        # bob's review, asked in the channel, comes privately
        mark = bob.mark()
        chan = alice.mark()
        bob.say("#hearts", "!review")
        head = bob.wait_privmsg("heartsbot", r"^Review of game [0-9a-f]{16}",
                                to="bob", since=mark, timeout=60)
        self.assertEqual(head.command, "PRIVMSG", head.raw)
        if "what cost you most" in head.text:
            bob.wait_privmsg("heartsbot", r"^Hand 1, ", to="bob",
                             since=mark, timeout=15)
        time.sleep(2)  # the review's other lines are out
        lines = [m.text for m in bob.privmsgs_from("heartsbot", to="bob",
                                                   since=mark)
                 if m.text.startswith("Hand 1, ")]
        self.assertLessEqual(len(lines), 3)
        bob_plays = set(record["hands"][0]["plays"])
        for line in lines:
            played = re.search(r"you (?:played|led|passed) (.*?), the "
                               r"search", line)
            self.assertIsNotNone(played, line)
            for card in harness.cards_in(played.group(1)):
                self.assertIn(card, bob_plays |
                              set(record["hands"][0]["passed"][bob_seat]),
                              line)
        for m in alice.privmsgs_from("heartsbot", to="#hearts", since=chan):
            self.assertNotRegex(m.text, r"^(Review of|Hand 1, )")

        # the game counts on the hints board alone
        harness.ask(alice, "!top hints", r"^Top \d+ \(hints\)")
        harness.ask(alice, "!top standard",
                    r"Nobody has finished a standard game")


if __name__ == "__main__":
    harness.main()
