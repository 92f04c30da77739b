"""A whole game through the real bot and a real IRC server: four scripted
people (ngIRCd without throttling, the bot's out-queue opened up) play
`!hearts standard hands=2` to its end with colours on, passing and
playing privately, by a bare card, and by `!play` in the channel.

Checked: every hand reaches only its owner (each client's "Your cards"
are its seat's deal in the record, and no private line to anyone ever
names a card of another seat's hand); the channel never names a card
that a player still holds at that moment (per that player's own stream
of lines), and its trick lines are exactly the record's plays; the bot
writes the game to its room's archive.jsonl, `hearts-sim replay` accepts it,
and the "Final:" totals the channel was told are the record's; red suits
and bold legal cards reach the clients as IRC codes.

The parsing helpers of harness.py are checked first, without a server.
Run: /usr/bin/python3 tests/integration/test_game.py -v
"""

import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import (Deal, HandShown, HarnessTestCase,  # noqa: E402
                     MoonChoice, Passing, Player, Prompt, Said, cards_in,
                     irc_eq,
                     is_channel, marked_text, parse_final, parse_hand,
                     parse_private, parse_trick_line, play_game)

# The bot's out-queue on an unthrottled ngIRCd: no need to pace.
FAST_IRC = {"flood_burst": 100, "flood_interval_ms": 100}
# No turn runs out here (nor its reminder): timeouts are test_game_people's.
NO_TIMEOUT = 3600
# Whom a seat passes to, four at the table (seat order is clockwise).
STEP = {"left": 1, "right": -1, "across": 2}
SECRET = re.compile(r"Your cards:|Your hand:|You received|Play one of:|"
                    r"Only legal:|Passing ")


class ParsingTest(HarnessTestCase):
    """harness.py's reading of the bot's card texts (render.h formats)."""

    def test_hand_plain_and_irc(self):
        self.assertEqual(parse_hand("♣ 2 [5] [J]  ♦ 3 Q  ♠ 4 A  ♥ 7 10 | x"),
                         (["2C", "5C", "JC", "3D", "QD", "4S", "AS", "7H",
                           "TH"], {"5C", "JC"}))
        irc = ("♣ 2 \x025\x02 \x02J\x02  \x0304♦ 3 \x02Q\x02\x0f  ♠ 4 A  "
               "\x0304♥ 7 \x0210\x02\x0f")
        self.assertEqual(parse_hand(marked_text(irc)),
                         (["2C", "5C", "JC", "3D", "QD", "4S", "AS", "7H",
                           "TH"], {"5C", "JC", "QD", "TH"}))

    def test_private_messages(self):
        ev = parse_private("Hand 2 at #hearts. Your cards: ♣ K  ♦ 2 10 | "
                           "Pass 3 cards to bot1: pass C1 C2 ...")
        self.assertIsInstance(ev, Deal)
        self.assertEqual((ev.hand_no, ev.table, ev.cards, ev.pass_count,
                          ev.pass_to), (2, "#hearts", ["KC", "2D", "TD"], 3,
                                        "bot1"))
        ev = parse_private("Hand 4 at #hearts. Your cards: ♣ K  ♦ 2 10")
        self.assertEqual((ev.cards, ev.pass_count), (["KC", "2D", "TD"], 0))
        ev = parse_private("You received J♥ K♦ 9♦. Your hand: ♦ 9 K  ♥ J")
        self.assertIsInstance(ev, HandShown)
        self.assertEqual((ev.received, ev.cards, ev.your_turn),
                         (["JH", "KD", "9D"], ["9D", "KD", "JH"], False))
        ev = parse_private("Your hand: ♦ [9] K (your turn: the marked cards "
                           "are playable)")
        self.assertEqual((ev.cards, ev.marked, ev.your_turn),
                         (["9D", "KD"], {"9D"}, True))
        ev = parse_private("Your turn at #hearts, trick 3: bob 10♣, carol "
                           "Q♠. Play one of: ♣ 2 A. Others: ♥ 5. Hearts "
                           "unbroken, Q♠ on the trick, no points yet.")
        self.assertIsInstance(ev, Prompt)
        self.assertEqual((ev.trick_no, ev.trick, ev.cards, ev.marked,
                          ev.leading, ev.led_suit),
                         (3, [("bob", "TC"), ("carol", "QS")],
                          ["2C", "AC", "5H"], {"2C", "AC"}, False, "C"))
        ev = parse_private("Your turn at #hearts to lead trick 2. Any card: "
                           "♠ 3. No point cards yet.")
        self.assertEqual((ev.trick_no, ev.trick, ev.leading, ev.marked),
                         (2, [], True, {"3S"}))
        ev = parse_private("Your turn at #hearts to lead trick 1. Only "
                           "legal: 2♣. Others: ♣ 3  ♥ 4. No point cards "
                           "yet.")
        self.assertEqual((ev.trick_no, ev.cards, ev.marked),
                         (1, ["2C", "3C", "4H"], {"2C"}))
        ev = parse_private("Your turn at #h, trick 5: a.b 7♦. Play one of: "
                           "♦ 9. Others: ♣ K  ♠ 2. Hearts broken, points: "
                           "a.b 13 (Q♠).")
        self.assertEqual((ev.trick, ev.cards, ev.marked),
                         ([("a.b", "7D")], ["KC", "9D", "2S"], {"9D"}))
        ev = parse_private("Passing Q♣ K♣ K♦ to bob; waiting for carol, "
                           "dave.")
        self.assertEqual((ev.cards, ev.to, ev.waiting),
                         (["QC", "KC", "KD"], "bob", ["carol", "dave"]))
        ev = parse_private("Passing 2♣ 3♣ 4♣ to bot1.")
        self.assertEqual((ev.cards, ev.to, ev.waiting),
                         (["2C", "3C", "4C"], "bot1", []))
        ev = parse_private("You received J♥ K♦ 9♦ from bob. Your hand: "
                           "♦ 9 K  ♥ J")
        self.assertEqual(ev.received, ["JH", "KD", "9D"])
        ev = parse_private("You received J♥ K♦ 9♦ from bob. Your turn at "
                           "#h to lead trick 1. Only legal: 2♣. Others: "
                           "♣ 3  ♦ 9 K  ♥ J. No point cards yet.")
        self.assertEqual((ev.received, ev.trick_no, ev.marked),
                         (["JH", "KD", "9D"], 1, {"2C"}))
        ev = parse_private("You passed Q♣ K♣ K♦ to carol. You received J♥ "
                           "K♦ 9♦ from bob. Your hand: ♦ 9 K  ♥ J")
        self.assertEqual((ev.received, ev.cards), (["JH", "KD", "9D"],
                                                   ["9D", "KD", "JH"]))
        self.assertIsInstance(parse_private("You must follow suit: clubs."),
                              Said)
        ev = parse_private('You shot the moon! Tell me "moon subtract" (you '
                           'score -26) or "moon add" (everyone else +26).')
        self.assertEqual(ev, MoonChoice(None, False))

    def test_channel_lines(self):
        self.assertEqual(
            parse_trick_line("Trick 5: alice 7♣, bob K♣, carol 2♥, dave 9♣ "
                             "- bob takes it (1 point)"),
            (5, [("alice", "7C"), ("bob", "KC"), ("carol", "2H"),
                 ("dave", "9C")], "bob"))
        self.assertEqual(parse_final("Game over! bob wins. Final: alice 3, "
                                     "bob -10, carol 26"),
                         {"alice": 3, "bob": -10, "carol": 26})
        self.assertEqual(cards_in("bot1 2♣, bot2 10♦ (QS)"), ["2C", "TD"])


def bot_lines(client, channel=None, private=False):
    """The bot's PRIVMSG/NOTICE lines a client received: to `channel`, or
    the private ones."""
    out = []
    for m in client.privmsgs_from("heartsbot"):
        if private and not is_channel(m.target):
            out.append(m)
        elif channel is not None and irc_eq(m.target, channel):
            out.append(m)
    return out


class WholeGameTest(HarnessTestCase):

    def test_four_people_play_a_whole_game(self):
        server = self.ngircd()
        data = os.path.join(self.tmpdir, "data")
        bot = self.bot(harness.bot_config(
            server.port, data, bot={"colors": True}, irc=FAST_IRC,
            game={"turn_timeout": NO_TIMEOUT, "next_hand_delay": 0}))
        nicks = ["alice", "bob", "carol", "dave"]
        clients = [self.client(server, n) for n in nicks]
        for c in clients:
            c.join("#hearts")
        alice = clients[0]
        start, begins = harness.start_table(clients, "standard hands=2")
        seats = re.match(r"^The game begins: (.*?)\. Rules:",
                         begins.text).group(1).split(", ")
        self.assertEqual(sorted(seats), sorted(nicks))

        players = [Player(c) for c in clients]

        def on_prompt(p, prompt):
            # Vary the ways to play: "play C", a bare card, "!play C".
            k = len(p.actions)
            card = min(prompt.marked, key=lambda c: (harness.card_rank(c), c))
            return card, ("play", "bare", "channel")[k % 3], k

        over = play_game(
            players, lambda: alice.find(r"Game over!", frm="heartsbot",
                                        to="#hearts", since=start),
            timeout=240, on_prompt=on_prompt)
        bot.wait_log(r"game record written", timeout=15)

        # -- the record
        records = harness.read_records(data)
        self.assertEqual(len(records), 1)
        record = records[0]
        # the channel's "Game over!" may pass the last private lines (the
        # bot's queue takes destinations in turn): each person's last
        # card, played for them, may still be on its way
        deadline = time.monotonic() + 20
        while any(len(p.all_played(h + 1)) < 13 for p in players
                  for h in range(len(record["hands"]))):
            self.assertLess(time.monotonic(), deadline, "a last card "
                            "played for someone was never told")
            for p in players:
                p.poll()
            time.sleep(0.05)
        rc, out = harness.replay(harness.archive_path(data))
        self.assertEqual(rc, 0, out)
        self.assertIn("OK", out)
        self.assertEqual(record["players"], seats)
        self.assertEqual(parse_final(over.text),
                         dict(zip(record["players"], record["totals"])))
        nhands = len(record["hands"])
        self.assertGreaterEqual(nhands, 2)
        holdings = [harness.record_holdings(record, h)
                    for h in range(nhands)]
        seat_of = {name: s for s, name in enumerate(seats)}

        # -- every hand reaches only its owner
        for p in players:
            s = seat_of[p.nick]
            for m in bot_lines(p.client, private=True):
                self.assertTrue(irc_eq(m.target, p.nick), m.raw)
            deals = [ev for ev in p.events if isinstance(ev, Deal)]
            self.assertEqual([ev.hand_no for ev in deals],
                             list(range(1, nhands + 1)), p.nick)
            h = 0
            for ev in p.events:
                if isinstance(ev, Deal):
                    h = ev.hand_no - 1
                    rec = record["hands"][h]
                    self.assertEqual(sorted(ev.cards), sorted(rec["deal"][s]))
                    self.assertEqual(sorted(p.passed.get(ev.hand_no, [])),
                                     sorted(rec["passed"][s]))
                    if rec["pass"] == "hold":   # a fourth hand after a tie
                        self.assertEqual(ev.pass_count, 0)
                    else:
                        self.assertEqual(ev.pass_to,
                                         seats[(s + STEP[rec["pass"]]) % 4])
                elif isinstance(ev, HandShown):
                    rec = record["hands"][h]
                    giver = (s - STEP.get(rec["pass"], 0)) % 4
                    self.assertEqual(sorted(ev.received),
                                     sorted(rec["passed"][giver]))
                    self.assertLessEqual(set(ev.cards), holdings[h][s])
                elif isinstance(ev, Prompt):
                    if ev.received:  # the first lead says what came
                        rec = record["hands"][h]
                        giver = (s - STEP.get(rec["pass"], 0)) % 4
                        self.assertEqual(sorted(ev.received),
                                         sorted(rec["passed"][giver]))
                    self.assertLessEqual(set(ev.cards), holdings[h][s],
                                         ev.msg.raw)
                    self.assertTrue(ev.marked, ev.msg.raw)
                    self.assertLessEqual(ev.marked, set(ev.cards))
                    for name, card in ev.trick:
                        self.assertIn(card, holdings[h][seat_of[name]],
                                      ev.msg.raw)
                elif isinstance(ev, Passing):
                    self.assertEqual(sorted(ev.cards),
                                     sorted(p.passed.get(h + 1, [])))
                elif not isinstance(ev, MoonChoice):
                    self.fail("%s was told: %s" % (p.nick, ev.text))
            for h in range(nhands):
                self.assertEqual(p.all_played(h + 1), holdings[h][s])
                # autoplay played the last card, nothing else
                self.assertEqual(len(p.played_for_us.get(h + 1, [])), 1,
                                 p.nick)
                self.assertEqual(len(p.played[h + 1]), 12, p.nick)

        # -- the channel never names a card still held
        for p in players:
            held, acts = set(), sorted(p.actions)
            for m in p.client.messages():
                if m.command not in ("PRIVMSG", "NOTICE") or not irc_eq(
                        m.nick, "heartsbot"):
                    continue
                gone = set()
                for t, _, _, cards in acts:
                    if t < m.time:
                        gone.update(cards)
                if is_channel(m.target):
                    self.assertFalse(SECRET.search(m.text), m.raw)
                    named = set(cards_in(m.text))
                    # a trick line shows the card played for us then
                    # (autoplay of the last card)
                    trick = parse_trick_line(m.text)
                    if trick:
                        named -= {c for n, c in trick[1]
                                  if irc_eq(n, p.nick)}
                    self.assertFalse(named & (held - gone),
                                     "%s still holds %s: %s"
                                     % (p.nick, named & (held - gone), m.raw))
                else:
                    ev = parse_private(marked_text(m.raw_text))
                    if isinstance(ev, (Deal, HandShown, Prompt)):
                        held = set(ev.cards)

        # -- the channel's trick lines are the record's plays
        tricks, h = {}, 0
        for m in bot_lines(alice, channel="#hearts"):
            hm = re.match(r"^Hand (\d+): ", m.text)
            if hm:
                h = int(hm.group(1))
                tricks[h] = []
            t = parse_trick_line(m.text)
            if t:
                no, plays, taker = t
                self.assertEqual(no, len(tricks[h]) + 1, m.raw)
                self.assertEqual(len(plays), 4, m.raw)
                self.assertIn(taker, seats, m.raw)
                for name, card in plays:
                    self.assertIn(card, holdings[h - 1][seat_of[name]], m.raw)
                tricks[h].append(plays)
        self.assertEqual(sorted(tricks), list(range(1, nhands + 1)))
        for h, rec in enumerate(record["hands"], 1):
            self.assertEqual([c for plays in tricks[h] for _, c in plays],
                             rec["plays"])

        # -- colours on: red hearts and diamonds; a prompt names the legal
        # cards in words, each card once, none marked
        raw_private = [m.raw_text for p in players
                       for m in bot_lines(p.client, private=True)]
        self.assertTrue(any(re.search("\x0304\u2665", r)
                            for r in raw_private))
        self.assertTrue(any(re.search("\x0304\u2666", r)
                            for r in raw_private))
        self.assertFalse(any(re.search("\x0304[\u2663\u2660]", r)
                             for r in raw_private))
        prompts = [ev for p in players for ev in p.events
                   if isinstance(ev, Prompt)]
        for ev in prompts:
            self.assertNotIn("\x02", ev.msg.raw_text)
            self.assertNotIn("[", ev.msg.text)
            self.assertTrue(ev.marked)
        raw_channel = [m.raw_text for m in bot_lines(alice, "#hearts")]
        self.assertTrue(any(re.search("\x0304(10|[2-9JQKA])[\u2665\u2666]",
                                      r) for r in raw_channel))
        for c in clients:
            self.assertFalse(c.closed, c.nick())
        self.assertEqual(bot.stop(), 0)


if __name__ == "__main__":
    harness.main()
