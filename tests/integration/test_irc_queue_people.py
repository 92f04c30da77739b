"""Queued private lines follow the person, not the nick, and the channel
is never behind the game: the real bot and real ngIRCd.

The bot runs with a fixed slow pace (one line every PACE_MS, a burst of
one, no adaptive pacing) so that its out-queue certainly holds lines when
the people change nicks: a nick change reaches the bot within
milliseconds, the next line leaves PACE_MS after the last. Each scenario
is one of the cases found on real servers:

- Two seated people swap nicks through a temporary nick (a -> tmp,
  b -> a, tmp -> b) right after the first card of the game, while the
  next player's prompt waits in the queue: each connection gets only its
  own person's prompts and hand, every play is accepted, nobody is timed
  out.
- p4 changes nick the moment the game begins and mal (another user@host)
  takes "p4": mal gets nothing private; p4 under the new nick gets the
  whole deal and plays on.
- One person with three computers changes nick just after playing: the
  next prompt, queued before the bot read the NICK, still reaches them.
- The channel is never behind the prompts (the bot's default pacing,
  one person and three computers answering at once; it used to fall
  nine tricks behind): a person's prompt for trick N+1, which names who
  took trick N, comes after the channel's line of trick N on the same
  connection, which the server relays in the order the bot wrote them.

Run: /usr/bin/python3 tests/integration/test_irc_queue_people.py -v
"""

import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import (HarnessTestCase, Player, Prompt, Deal,  # noqa: E402
                     HandShown, Said, play_game, play_lowest)

PACE_MS = 2500
SLOW_IRC = {"flood_burst": 1, "flood_interval_ms": PACE_MS,
            "flood_min_interval_ms": PACE_MS,
            "flood_max_interval_ms": PACE_MS}
GAME = {"turn_timeout": 90, "grace_period": 60, "next_hand_delay": 0}
RULES = "standard hands=1 pass_count=0"


def channel_tricks(client, since=0):
    """The numbers of the trick lines the channel showed."""
    out = []
    for m in client.privmsgs_from("heartsbot", "#hearts", since=since):
        t = harness.parse_trick_line(m.text)
        if t:
            out.append(t[0])
    return out


class QueueFollowsPeopleTest(HarnessTestCase):

    def start_bot(self, irc=SLOW_IRC):
        self.server = self.ngircd()
        return self.bot(harness.bot_config(
            self.server.port, os.path.join(self.tmpdir, "data"),
            bot=dict(harness.NO_ANSWER_LIMITS, colors=False), irc=irc,
            game=GAME))

    def people(self, n):
        out = []
        for i in range(1, n + 1):
            c = self.client(self.server, "p%d" % i, user="u%d" % i)
            c.join("#hearts")
            out.append(c)
        return out

    def assert_own_cards(self, player, dealt):
        """Every hand a person was shown is a part of their own deal."""
        for ev in player.events:
            if isinstance(ev, (Prompt, HandShown, Deal)):
                self.assertTrue(set(ev.cards) <= set(dealt),
                                "%s was shown cards not theirs: %s"
                                % (player.nick, ev.msg.raw))

    def assert_no_trouble(self, players):
        for p in players:
            for ev in p.events:
                if isinstance(ev, Said):
                    self.assertNotRegex(
                        ev.text, r"Not your turn|Time is up|timed out|"
                        r"not in your hand|don't hold", ev.msg.raw)
            # the bot plays a last card by itself; no other for anyone
            for h, cards in p.played_for_us.items():
                self.assertTrue(len(cards) == 1
                                and len(p.played.get(h, [])) == 12,
                                "cards played for %s: %s" % (p.nick, cards))
        for m in players[0].client.privmsgs_from("heartsbot", "#hearts"):
            self.assertNotRegex(m.text, r"Time is up|is away|timed out",
                                m.raw)

    def test_swap_through_a_temporary_nick_mid_trick(self):
        bot = self.start_bot()
        clients = self.people(4)
        _, begins = harness.start_table(clients, rules=RULES)
        order = re.match(r"The game begins: (.*?)\. Rules", begins.text)
        seats = [n.strip() for n in order.group(1).split(",")]
        players = [Player(c) for c in clients]
        by_nick = {c.nick(): p for c, p in zip(clients, players)}
        swapped = {}

        def on_prompt(player, prompt):
            if swapped or prompt.trick_no != 1 or not prompt.leading:
                return play_lowest(player, prompt)
            # the leader plays; the next player's prompt is queued now,
            # and it waits PACE_MS: the next player and the one after
            # swap nicks meanwhile
            player.play(play_lowest(player, prompt))
            i = seats.index(player.nick)
            x = by_nick[seats[(i + 1) % 4]]
            y = by_nick[seats[(i + 2) % 4]]
            xn, yn = x.nick, y.nick
            t0 = time.monotonic()
            x.client.nick("tmp")
            y.client.nick(xn)
            x.client.nick(yn)
            swapped.update(x=x, y=y, took=time.monotonic() - t0)
            return None

        def two_tricks():
            return max(channel_tricks(clients[0]) or [0]) >= 2

        play_game(players, two_tricks, timeout=120, on_prompt=on_prompt)
        self.assertTrue(swapped)
        self.assertLess(swapped["took"], PACE_MS / 1000.0 / 2)
        for p in players:
            self.assertIn(1, p.deals, p.nick)
            self.assert_own_cards(p, p.deals[1])
        # the prompt that waited when they swapped reached its person
        x = swapped["x"]
        self.assertTrue(any(isinstance(ev, Prompt) and ev.trick_no == 1
                            and not ev.leading for ev in x.events),
                        x.client.tail(20))
        self.assert_no_trouble(players)
        # both played in both tricks, each their own cards
        for p in (swapped["x"], swapped["y"]):
            self.assertGreaterEqual(len(p.played.get(1, [])), 2, p.nick)
            self.assertTrue(set(p.played[1]) <= set(p.deals[1]))
        self.assertRegex(bot.log(), r"queued line\(s\) for \S+ now go to")
        self.assertEqual(bot.stop(), 0)

    def test_nick_taken_as_the_game_begins(self):
        bot = self.start_bot()
        clients = self.people(4)
        mal = self.client(self.server, "mal", user="mallory")
        mal.join("#hearts")
        p1, p4 = clients[0], clients[3]
        p1.wait_member("heartsbot", "#hearts", timeout=15)
        p1.say("#hearts", "!hearts " + RULES)
        p1.wait_privmsg("heartsbot", r"opens a Hearts table", to="#hearts")
        for c in clients[1:]:
            mark = p1.mark()
            c.say("#hearts", "!join")
            p1.wait_privmsg("heartsbot", r"^%s sits down" % c.nick(),
                            to="#hearts", since=mark)
        # "p4 sits down" just took the bot's only token: what !start
        # queues waits PACE_MS, the renames take milliseconds
        p1.say("#hearts", "!start")
        time.sleep(0.3)      # the bot reads !start first
        p4.nick("p4x")
        mal.nick("p4")
        players = [Player(c) for c in clients]

        def first_trick():
            return max(channel_tricks(p1) or [0]) >= 1

        play_game(players, first_trick, timeout=90)
        p4x = players[3]
        self.assertIn(1, p4x.deals, p4.tail(20))
        self.assertEqual(len(p4x.deals[1]), 13)
        self.assertTrue(p4x.played.get(1), "p4x never played")
        self.assert_no_trouble(players)
        # a question answered puts the end of what the bot sent to "p4"
        # before it: mal has had all he will get
        mark = p4.mark()
        p4.say("heartsbot", "hand")
        p4.wait_privmsg("heartsbot", r"^Your hand: ", since=mark, timeout=20)
        private = [m for m in mal.privmsgs_from("heartsbot")
                   if not harness.is_channel(m.target)]
        self.assertEqual(private, [], [m.raw for m in private])
        self.assertEqual(bot.stop(), 0)

    def test_nick_change_just_after_playing(self):
        bot = self.start_bot()
        (you,) = self.people(1)
        you.wait_member("heartsbot", "#hearts", timeout=15)
        you.say("#hearts", "!hearts " + RULES)
        you.wait_privmsg("heartsbot", r"opens a Hearts table", to="#hearts")
        you.say("#hearts", "!start")
        player = Player(you)
        renamed = {}

        def on_prompt(p, prompt):
            if renamed:
                return play_lowest(p, prompt)
            # play, let the computers answer (milliseconds) and the bot
            # queue the next prompt, which waits PACE_MS; then rename
            p.play(play_lowest(p, prompt))
            time.sleep(0.4)
            renamed["after"] = you.mark()
            renamed["trick"] = prompt.trick_no
            you.nick("you_again")
            return None

        def prompted_again():
            if not renamed:
                return False
            return [ev for ev in player.events[:]
                    if isinstance(ev, Prompt)
                    and ev.msg.seq >= renamed["after"]]

        got = play_game([player], prompted_again, timeout=40,
                        on_prompt=on_prompt)
        self.assertEqual(got[0].msg.target, "you_again")
        self.assert_no_trouble([player])
        self.assertEqual(bot.stop(), 0)

    def test_channel_never_behind_the_prompts(self):
        """Default pacing: the prompts used to overtake the channel by up
        to nine tricks."""
        bot = self.start_bot(irc={})
        (you,) = self.people(1)
        you.wait_member("heartsbot", "#hearts", timeout=15)
        you.say("#hearts", "!hearts " + RULES)
        you.wait_privmsg("heartsbot", r"opens a Hearts table", to="#hearts")
        mark = you.mark()
        you.say("#hearts", "!start")
        player = Player(you)

        def over():
            return any(re.match(r"Hand 1 scores|Game over", m.text)
                       for m in you.privmsgs_from("heartsbot", "#hearts",
                                                  since=mark))

        play_game([player], over, timeout=180)
        # on this one connection, in the order the bot wrote them
        shown = 0
        checked = 0
        for m in you.messages(mark):
            if m.command != "PRIVMSG" or not harness.irc_eq(m.nick,
                                                            "heartsbot"):
                continue
            if harness.is_channel(m.target):
                t = harness.parse_trick_line(m.text)
                if t:
                    shown = max(shown, t[0])
                continue
            ev = harness.parse_private(harness.marked_text(m.raw_text), m)
            if isinstance(ev, Prompt):
                checked += 1
                self.assertGreaterEqual(
                    shown, ev.trick_no - 1,
                    "prompt for trick %d while the channel showed trick %d"
                    % (ev.trick_no, shown))
        self.assertGreaterEqual(checked, 10)
        self.assert_no_trouble([player])
        self.assertEqual(bot.stop(), 0)


if __name__ == "__main__":
    harness.main()
