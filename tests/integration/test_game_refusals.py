"""Every refusal of chat.md through the real bot and a real IRC server
(ngIRCd without throttling): each gets one short private reply, to the
person who asked and to nobody else, never in the channel, and changes
nothing: the same player is still to act (the bot's `status` and `hand`
say so), no new prompt comes, and the game goes on to a record that
replays with only the legal actions in it.

Outside a game: no table here, unknown preset or option (with the
nearest valid name), `!pass` in the channel, an unknown private command.
In a game of `modern players=6` (first_trick_points=forbidden; six
players hold eight cards, so a void is easy to make by passing): while
passing, the wrong number of cards, an unknown card, a card not held,
`!pass` in the channel, a play during the pass; while playing, not your
turn (and whose), a card not held, a card not in the pack, an unknown
card, must follow suit (and which), hearts not broken, no points on the
first trick, the card that must lead. The deal is random, so an illegal
card of each kind is tried whenever a prompt shows one (an unmarked
card). People hold all six seats, so that no computer player's choice
decides what comes: every other seat passes its clubs away (a void on
trick 1) and the seat on its right passes it diamonds and spades, and
nobody plays a point card while another is playable, so hearts stay
unbroken and the winner of trick 1, a person, leads the next with them
unbroken. Games are played until each kind has been seen: one game, but
two in about one run of 30 (see RARE).
Run: /usr/bin/python3 tests/integration/test_game_refusals.py -v
"""

import collections
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import (HarnessTestCase, HandShown, Player,  # noqa: E402
                     SUIT_NAMES, card_rank, card_text, cards_in,
                     irc_eq, is_channel, parse_private, play_game, spell)

FAST_IRC = {"flood_burst": 100, "flood_interval_ms": 100}
# No turn runs out here (nor its reminder): timeouts are test_game_people's.
NO_TIMEOUT = 3600
RULES = "modern players=6 hands=1 tie=share"
# What modern takes out of the pack for six players (variants.md).
REMOVED = {"2C", "3C", "2D", "3D"}
PACK = [r + s for s in "CDSH" for r in harness.RANKS if r + s not in REMOVED]
# The kinds that depend on the deal; games go on until each was seen.
# With the players below all three come in about 31 games of 32: in a
# simulation of 400000 games with the engine, 3.2% of the games miss one,
# 3.1% "hearts not broken" (each time a seat that cannot follow holds only
# point cards before a leader holds a heart), so 4 games miss one about
# once in a million runs. "must lead" comes in practically every game (a
# person holds the lowest club).
RARE = {"must follow", "hearts not broken", "first trick points"}
MAX_GAMES = 4
# The people at the table, in their seats' order (they sit down in turn).
SEATED = ("alice", "bob", "dave", "erin", "frank", "gina")
STATUS_RE = re.compile(r"^Table at (\S+): .*? Hand (\d+), trick (\d+)\. "
                       r"Scores: .*\. (\S+) to play(?:; on the trick: "
                       r"(.*?))?\.$")


def is_points(card):
    return card[1] == "H" or card == "QS"


def highest(cards):
    return max(cards, key=lambda c: (card_rank(c), c))


class RefusalTest(HarnessTestCase):

    def setUp(self):
        super().setUp()
        self.server = self.ngircd()
        self.data = os.path.join(self.tmpdir, "data")
        self.botproc = self.bot(harness.bot_config(
            self.server.port, self.data,
            bot=dict(harness.NO_ANSWER_LIMITS, colors=False),
            irc=FAST_IRC,
            game={"turn_timeout": NO_TIMEOUT, "next_hand_delay": 0}))

    def people(self, *nicks):
        clients = [self.client(self.server, n) for n in nicks]
        for c in clients:
            c.join("#hearts")
        clients[0].wait_member("heartsbot", "#hearts", timeout=15)
        return clients

    @staticmethod
    def sync(who):
        """Waits until what the bot said before now has reached `who`: a
        private `status` is answered after every line queued before it.
        (A prompt goes out before a trick line queued with it: it has the
        higher priority.)"""
        mark = who.mark()
        who.say("heartsbot", "status")
        who.wait_privmsg("heartsbot", r"^(Table at |No table here)",
                         to=who.nick(), since=mark)

    def refused(self, who, send, expect, everyone):
        """Sends (a callable) and waits for the bot's reply to `who`
        matching `expect`: private, to who; nobody else got it; and on
        who's connection, nothing came from the bot in the channel before
        it. Returns the reply Message."""
        self.sync(who)
        marks = [(c, c.mark()) for c in everyone]
        send()
        rx = re.compile(expect)
        mark = dict(marks)[who]
        m = who.wait_for(lambda m: m.command in ("PRIVMSG", "NOTICE")
                         and irc_eq(m.nick, "heartsbot")
                         and rx.search(m.text) is not None, since=mark)
        self.assertTrue(irc_eq(m.target, who.nick()), m.raw)
        self.assertFalse(is_channel(m.target), m.raw)
        for x in who.privmsgs_from("heartsbot", since=mark):
            if x.seq >= m.seq:
                break
            self.assertFalse(is_channel(x.target),
                             "the bot spoke in the channel on a refused "
                             "command: " + x.raw)
        for c, mark in marks:
            for x in c.privmsgs_from("heartsbot", since=mark):
                if c is not who or is_channel(x.target):
                    self.assertIsNone(rx.search(x.text),
                                      "%s got %s's refusal: %s"
                                      % (c.nick(), who.nick(), x.raw))
        return m

    # ------------------------------------------------------------------

    def test_refusals_without_a_game(self):
        alice, bob = self.people("alice", "bob")
        everyone = [alice, bob]
        start = alice.mark()

        def chan(text):
            return lambda: alice.say("#hearts", text)

        def priv(text):
            return lambda: alice.say("heartsbot", text)

        no_table = r"^No table here\. !hearts opens one\.$"
        self.refused(alice, chan("!status"), no_table, everyone)
        self.refused(alice, chan("!join"), no_table, everyone)
        self.refused(alice, chan("!start"), no_table, everyone)
        self.refused(alice, priv("play QS"), r"^You are not at a table",
                     everyone)
        self.refused(alice, priv("pass 2c 3c 4c"), r"^You are not at a "
                     r"table", everyone)
        self.refused(alice, priv("hand"), r"^You are not at a table",
                     everyone)
        self.refused(alice, chan("!hearts standrd"),
                     r"unknown preset 'standrd' \(did you mean "
                     r"'standard'\?\)", everyone)
        self.refused(alice, chan("!hearts standard targt=50"),
                     r"unknown option 'targt' \(did you mean 'target'\?\)",
                     everyone)
        self.refused(alice, chan("!hearts modrn hands=1"),
                     r"did you mean 'modern'", everyone)
        self.refused(alice, chan("!rules modrn"), r"did you mean 'modern'",
                     everyone)
        self.refused(alice, chan("!pass 2c 3c 4c"),
                     r"^Passed cards are secret: tell me privately, "
                     r"\"pass C1 C2 C3\"", everyone)
        self.refused(alice, priv("frobnicate"),
                     r"^I don't know 'frobnicate'\. Try \"help\"", everyone)
        # The refused !hearts opened nothing.
        self.refused(alice, chan("!status"), no_table, everyone)
        self.assertEqual([m.raw for m in alice.privmsgs_from(
            "heartsbot", to="#hearts", since=start)], [])
        self.assertEqual(bob.privmsgs_from("heartsbot", since=0), [])

    # ------------------------------------------------------------------

    def test_refusals_in_a_game_change_nothing(self):
        clients = self.people(*SEATED, "carol")
        seated, carol = clients[:-1], clients[-1]
        seen = collections.Counter()
        games = 0
        while games < MAX_GAMES and not RARE <= set(seen):
            self.play_one_game(games, seated, carol, clients, seen)
            games += 1
        self.assertLessEqual(RARE, set(seen),
                             "not seen in %d games: %s"
                             % (games, RARE - set(seen)))
        for kind in ("pass count", "pass unknown card", "pass not held",
                     "pass in channel", "play while passing",
                     "not your turn", "not held", "not in pack",
                     "unknown card", "spectator", "must lead"):
            self.assertIn(kind, seen)
        # Every game's record replays: nothing refused got into one.
        self.assertEqual(len(harness.read_records(self.data)), games)
        rc, out = harness.replay(harness.archive_path(self.data))
        self.assertEqual(rc, 0, out)
        self.assertEqual(out.count("OK"), games, out)
        # The spectator never heard a hand or a prompt.
        for m in carol.privmsgs_from("heartsbot"):
            if not is_channel(m.target):
                self.assertNotRegex(m.text, r"Your (cards|hand|turn)")

    def play_one_game(self, game, seated, carol, everyone, seen):
        alice = seated[0]
        starts = [c.mark() for c in seated]
        start = starts[0]
        alice.say("#hearts", "!hearts " + RULES)
        alice.wait_privmsg("heartsbot", r"^alice opens a Hearts table",
                           to="#hearts", since=start)
        for c in seated[1:]:
            c.say("#hearts", "!join")
            alice.wait_privmsg("heartsbot", r"^%s sits down" % c.nick(),
                               to="#hearts", since=start)
        alice.say("#hearts", "!start")
        alice.wait_privmsg("heartsbot", r"^The game begins: %s\b"
                           % ", ".join(SEATED), to="#hearts", since=start)
        players = [Player(c) for c in seated]
        for p, mark in zip(players, starts):
            p.cursor = mark
        pa = players[0]
        # Passing left, every other seat passes its clubs away (three at
        # most: a void on trick 1) and gets diamonds and spades from its
        # right; the others keep clubs and hearts.
        voiders = set(players[::2])
        nxt = {p: players[(k + 1) % len(players)]
               for k, p in enumerate(players)}
        once = set()

        def on_deal(p, deal):
            if p is pa and game == 0:
                self.pass_refusals(pa, deal, everyone, seen)
            hand = deal.cards
            clubs = sorted((c for c in hand if c[1] == "C"), key=card_rank)
            if p in voiders:
                rest = sorted((c for c in hand if c[1] in "DS"
                               and c != "QS"), key=card_rank, reverse=True)
                give = (clubs + rest)[:3]
            else:
                rest = sorted((c for c in hand if c[1] in "DS"),
                              key=card_rank, reverse=True)
                give = rest[:3]
            for c in sorted(hand, key=card_rank, reverse=True):
                if len(give) == 3:
                    break
                if c not in give:
                    give.append(c)
            return give

        def on_prompt(p, pr):
            q = nxt[p]
            if "turn" not in once:
                # q's hand after the passing may come after p's prompt
                self.sync(q.client)
                q.poll()
            if "turn" not in once and q.hand:
                once.add("turn")
                # privately, the card waits for the turn; taken back
                self.refused(q.client, lambda: q.tell(
                    "play " + spell(q.hand[0])),
                    r"^Not your turn yet: %s plays now\. I'll play %s for "
                    r"you at your turn if it is legal then"
                    % (p.nick, card_text(q.hand[0])), everyone)
                self.refused(q.client, lambda: q.tell("play none"),
                             r"^Taken back: I'll ask you at your turn\.$",
                             everyone)
                seen["not your turn"] += 1
                self.same_turn(p, pr, everyone)
            if "spectator" not in once and game == 0:
                once.add("spectator")
                card = spell(pr.cards[0])
                self.refused(carol, lambda: carol.say(
                    "#hearts", "!play " + card),
                    r"^You are not playing at this table\.$", everyone)
                self.refused(carol, lambda: carol.say(
                    "heartsbot", "play " + card),
                    r"^You are not at a table", everyone)
                self.refused(carol, lambda: carol.say("#hearts", "!join"),
                             r"^A game is in progress here", everyone)
                seen["spectator"] += 1
                self.same_turn(p, pr, everyone)
            if "held" not in once:
                once.add("held")
                card = next(c for c in PACK if c not in pr.cards)
                self.refused(p.client, lambda: p.tell("play " + spell(card)),
                             r"^You don't hold %s\.$" % card_text(card),
                             everyone)
                seen["not held"] += 1
                self.refused(p.client, lambda: p.tell("play 2c"),
                             r"^2♣ is not in this game's pack\.$", everyone)
                seen["not in pack"] += 1
                self.refused(p.client, lambda: p.tell("play zz"),
                             r"^'zz' is not a card", everyone)
                seen["unknown card"] += 1
                self.same_turn(p, pr, everyone)
            attempt = self.illegal_for(pr)
            if attempt and seen[attempt[2]] < 3:
                card, expect, kind = attempt
                self.refused(p.client, lambda: p.tell(
                    "play " + spell(card, seen[kind])), expect, everyone)
                seen[kind] += 1
                self.same_turn(p, pr, everyone)
            # No point card by choice: hearts stay unbroken, and the
            # winner of each trick, a person, leads the next with them
            # unbroken.
            plain = [c for c in pr.marked if not is_points(c)]
            return highest(plain or pr.marked)

        over = play_game(
            players, lambda: alice.find(r"Game over!", frm="heartsbot",
                                        to="#hearts", since=start),
            timeout=120, on_deal=on_deal, on_prompt=on_prompt)
        self.assertTrue(over)
        self.botproc.wait_log(r"game record written", timeout=10)
        # Only the legal plays count: each played what its seat held.
        record = harness.read_records(self.data)[game]
        held = harness.record_holdings(record, 0)
        for s, p in enumerate(players):
            self.assertEqual(record["players"][s], p.nick)
            self.assertEqual(p.all_played(1), held[s])
            self.assertEqual(sorted(record["hands"][0]["passed"][s]),
                             sorted(p.passed[1]))

    @staticmethod
    def illegal_for(pr):
        """An unmarked card of the prompt to try, with the refusal it
        should get, or None: (card, regex, kind)."""
        unmarked = [c for c in pr.cards if c not in pr.marked]
        if not unmarked:
            return None
        plain = [c for c in unmarked if not is_points(c)]
        if pr.leading and pr.trick_no == 1:
            if len(pr.marked) == 1 and plain:
                (lead,) = pr.marked
                return (plain[0], r"^You must lead %s\.$" % card_text(lead),
                        "must lead")
            return None
        if pr.leading:
            hearts = [c for c in unmarked if c[1] == "H"]
            if hearts and any(c[1] != "H" for c in pr.marked):
                return (hearts[0], r"^Hearts are not broken yet",
                        "hearts not broken")
            return None
        led = pr.led_suit
        if any(c[1] == led for c in pr.cards):
            # On trick 1 a point card could be refused for two reasons:
            # try one without points there.
            off = [c for c in (plain if pr.trick_no == 1 else unmarked)
                   if c[1] != led]
            if off:
                return (off[0], r"^You must follow suit: %s\.$"
                        % SUIT_NAMES[led], "must follow")
            return None
        if pr.trick_no == 1:
            points = [c for c in unmarked if is_points(c)]
            if points:
                return (points[0], r"^No points on the first trick",
                        "first trick points")
        return None

    def same_turn(self, p, pr, everyone):
        """After a refusal: `status` and `hand` show the same turn, and no
        new prompt came."""
        mark = p.mark()
        m = self.refused(p.client, lambda: p.tell("status"), r"^Table at ",
                         everyone)
        st = STATUS_RE.match(m.text)
        self.assertIsNotNone(st, m.text)
        self.assertEqual(int(st.group(3)), pr.trick_no, m.text)
        self.assertEqual(st.group(4), p.nick, m.text)
        self.assertEqual(cards_in(st.group(5) or ""),
                         [c for _, c in pr.trick], m.text)
        m = self.refused(p.client, lambda: p.tell("hand"), r"^Your hand: ",
                         everyone)
        ev = parse_private(m.text)
        self.assertIsInstance(ev, HandShown)
        self.assertTrue(ev.your_turn, m.text)
        self.assertEqual((sorted(ev.cards), ev.marked),
                         (sorted(pr.cards), pr.marked), m.text)
        self.assertEqual([x.raw for x in p.client.privmsgs_from(
            "heartsbot", since=mark) if "Your turn" in x.text], [])

    def pass_refusals(self, p, deal, everyone, seen):
        """While passing: every refusal, then the pass still to do."""
        held = deal.cards
        missing = [c for c in PACK if c not in held][:3]
        words = [spell(c, k) for k, c in enumerate(held[:3])]
        self.refused(p.client, lambda: p.client.say(
            "#hearts", "!pass " + " ".join(words)),
            r"^Passed cards are secret", everyone)
        seen["pass in channel"] += 1
        self.refused(p.client, lambda: p.tell("pass " + words[0]),
                     r"^Name exactly 3 cards\.$", everyone)
        self.refused(p.client, lambda: p.tell(
            "pass " + " ".join(spell(c) for c in held[:4])),
            r"^Name exactly 3 cards\.$", everyone)
        seen["pass count"] += 1
        self.refused(p.client, lambda: p.tell(
            "pass zz " + " ".join(words[:2])),
            r"^'zz' is not a card", everyone)
        seen["pass unknown card"] += 1
        self.refused(p.client, lambda: p.tell(
            "pass " + " ".join(missing)),
            r"^You don't hold (%s)\.$" % "|".join(map(card_text, missing)),
            everyone)
        seen["pass not held"] += 1
        self.refused(p.client, lambda: p.tell("play " + words[0]),
                     r"^Cards are being passed: \"pass\" and 3 cards\.$",
                     everyone)
        seen["play while passing"] += 1
        m = self.refused(p.client, lambda: p.tell("status"), r"^Table at ",
                         everyone)
        self.assertRegex(m.text, r"Passing; waiting for:( \S+)* %s\b"
                         % p.nick)
        m = self.refused(p.client, lambda: p.tell("hand"), r"^Your hand: ",
                         everyone)
        self.assertEqual(sorted(parse_private(m.text).cards), sorted(held))


if __name__ == "__main__":
    harness.main()
