"""Queued private lines follow the person through NICK changes on a real
Ergo (IRCv3, SASL accounts): the real bot against Ergo 2.11, the server
the bug was found on.

The bug: ann (account acct_ann) and bob (acct_bob) swapped
nicks mid-trick (ann -> tmp, bob -> ann, tmp -> bob); bob's connection
got ann's queued prompt with her whole hand, his play was refused, and
ann's seat waited 90 s for a computer. Here every person is logged in to
an account with SASL PLAIN (the bot too), and:

- The two people after the leader of the first trick swap nicks through
  "tmp" while the next player's prompt waits in the bot's queue: each
  connection gets only its own person's hand and prompts, every play is
  accepted, nobody is timed out, and Ergo still shows each nick with the
  account of the person who now holds it.
- One person (acct_ann) with three computers renames just after
  playing: the next prompt, queued before the bot read the NICK, still
  reaches them (test_irc_queue_people.py's test, run here as it is).
- Ergo's ISUPPORT has BOT=B: the bot sets +B on itself, and WHOIS shows
  it as a bot (335).

The bot runs with the fixed slow pace of test_irc_queue_people.py (one
line every PACE_MS, a burst of one) so that its queue certainly holds
lines when the nicks change. Ergo keeps its default fakelag (a burst of
5, then 2 lines a second) and its nick reservation; one default is
changed: accounts.nick-reservation.force-nick-equals-account (true by
default) would keep a logged-in person from taking any nick but their
account's, so it is turned off, as on the server where the bug was seen.

Optional: CI has no Ergo (Debian does not package it; Debian's "ergo" is
another program). Set HEARTS_ERGO to an Ergo binary; the config is made
from the default.yaml next to it (or HEARTS_ERGO_DEFAULT_YAML), or, with
HEARTS_ERGO_BUILD_SH set to the realservers ergo-build.sh, by its
`config` command. Needs python3-yaml. Without HEARTS_ERGO every test is
skipped with a line that says so (exit 77). Ergo and the bot run on
free loopback ports and are stopped after each test.

Run: HEARTS_ERGO=/tmp/realservers/ergo/ergo \\
     [HEARTS_ERGO_BUILD_SH=.../realservers/ergo-build.sh] \\
     [HEARTSBOT=build/heartsbot] \\
     /usr/bin/python3 tests/integration/test_irc_ergo.py -v
"""

import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import HarnessTestCase, Player, Prompt  # noqa: E402
import test_irc_queue_people as qp  # noqa: E402

try:
    import yaml
except ImportError:      # Debian: python3-yaml
    yaml = None

ERGO = os.environ.get("HEARTS_ERGO", "")
BUILD_SH = os.environ.get("HEARTS_ERGO_BUILD_SH", "")
DEFAULT_YAML = os.environ.get("HEARTS_ERGO_DEFAULT_YAML", "") or (
    os.path.join(os.path.dirname(ERGO), "default.yaml") if ERGO else "")
PASSWORD = "hearts-pw-1"
PEOPLE = ("ann", "bob", "cid", "dee")


class Ergo(harness._Server):
    """Ergo on 127.0.0.1:PORT: a fresh database (`ergo initdb`) and a
    config from Ergo's own default.yaml, changed as little as loopback
    tests need (see ergo_config), fakelag on by default."""

    name = "ergo"
    binary = ERGO

    def __init__(self, tmpdir, fakelag=True, **kw):
        self.fakelag = fakelag
        super().__init__(tmpdir, strict=True, **kw)

    @classmethod
    def available(cls):
        return bool(ERGO) and os.access(ERGO, os.X_OK)

    def _write_config(self):
        conf = ergo_config(self.dir, self.port, self.fakelag)
        with open(self.conf_path, "w", encoding="utf-8") as f:
            yaml.safe_dump(conf, f, default_flow_style=False,
                           sort_keys=False)
        db = conf["datastore"]["path"]
        if not os.path.exists(db):
            subprocess.run([ERGO, "initdb", "--conf", self.conf_path,
                            "--quiet"], check=True, cwd=self.dir,
                           stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, timeout=60)

    def _argv(self):
        return [ERGO, "run", "--conf", self.conf_path]


def ergo_config(directory, port, fakelag):
    """Ergo's config as a dict: ergo-build.sh's `config` when
    HEARTS_ERGO_BUILD_SH is set, else Ergo's default.yaml with only a
    loopback listener, files in `directory`, the throttles on account
    creation and login off (every test makes and logs in to fresh
    accounts) and no languages directory. Either way nick changes of
    logged-in people are allowed (force-nick-equals-account off)."""
    if BUILD_SH:
        subprocess.run(["bash", BUILD_SH, "config", directory, str(port),
                        "on" if fakelag else "off"], check=True, timeout=60,
                       stdout=subprocess.DEVNULL,
                       env=dict(os.environ,
                                ERGO_HOME=os.path.dirname(ERGO)))
        with open(os.path.join(directory, "ircd.yaml"),
                  encoding="utf-8") as f:
            conf = yaml.safe_load(f)
    else:
        with open(DEFAULT_YAML, encoding="utf-8") as f:
            conf = yaml.safe_load(f)
        motd = os.path.join(directory, "motd.txt")
        with open(motd, "w", encoding="utf-8") as f:
            f.write("heartsbot test server\n")
        conf["server"]["listeners"] = {"127.0.0.1:%d" % port: None}
        conf["server"]["motd"] = motd
        conf["languages"]["enabled"] = False
        conf["accounts"]["registration"]["throttling"]["enabled"] = False
        conf["accounts"]["login-throttling"]["enabled"] = False
        conf["fakelag"]["enabled"] = bool(fakelag)
        conf["datastore"]["path"] = os.path.join(directory, "ircd.db")
        conf["lock-file"] = os.path.join(directory, "ircd.lock")
    conf["accounts"]["nick-reservation"]["force-nick-equals-account"] = False
    return conf


class ErgoQueueTest(HarnessTestCase):

    # what the ngIRCd test asserts of each person holds here too
    assert_own_cards = qp.QueueFollowsPeopleTest.assert_own_cards
    assert_no_trouble = qp.QueueFollowsPeopleTest.assert_no_trouble

    def setUp(self):
        super().setUp()
        if not ERGO:
            self.skipTest("no Ergo: set HEARTS_ERGO to an Ergo binary (see "
                          "the top of this file); skipped")
        if not Ergo.available():
            self.skipTest("HEARTS_ERGO=%s is not an executable; skipped"
                          % ERGO)
        if yaml is None:
            self.skipTest("python3-yaml is not installed (Ergo's config); "
                          "skipped")
        if not BUILD_SH and not os.path.isfile(DEFAULT_YAML):
            self.skipTest("no Ergo default.yaml at %s (set "
                          "HEARTS_ERGO_DEFAULT_YAML or HEARTS_ERGO_BUILD_SH)"
                          "; skipped" % DEFAULT_YAML)
        self.server = self.enterContext(Ergo(self.tmpdir))

    def register(self, account):
        """A new account on Ergo (NickServ REGISTER from a connection of
        that nick, which then quits)."""
        with harness.Client(self.server.port, account) as c:
            m = c.services("REGISTER " + PASSWORD,
                           reply=r"Account created|[Ee]rror|not|already|"
                           r"[Ii]nvalid|[Cc]ould")
            self.assertRegex(m.text, r"^Account created", m.raw)
            c.quit()

    def start_bot(self):
        self.register("heartsbot")
        irc = dict(qp.SLOW_IRC, sasl_mechanism="plain",
                   sasl_username="heartsbot", sasl_password=PASSWORD)
        bot = self.bot(harness.bot_config(
            self.server.port, os.path.join(self.tmpdir, "data"),
            bot=dict(harness.NO_ANSWER_LIMITS, colors=False), irc=irc,
            game=qp.GAME))
        bot.wait_log(r"logged in to the account heartsbot \(SASL\)",
                     timeout=20)
        # Ergo's BOT=B: the bot marks itself as a bot (WHOIS: 335)
        bot.wait_log(r"user mode \+B", timeout=20)
        with harness.Client(self.server.port, "checker") as c:
            deadline = time.time() + 10
            while not any(m.command == "335" for m in c.whois("heartsbot")):
                self.assertLess(time.time(), deadline, "no 335 for heartsbot")
                time.sleep(0.2)
            c.quit()
        return bot

    def people(self, n):
        """The first n of PEOPLE, each logged in with SASL PLAIN to
        acct_NAME, in #hearts."""
        out = []
        for name in PEOPLE[:n]:
            account = "acct_" + name
            self.register(account)
            c = self.client(self.server, name, user="u" + name,
                            sasl=("PLAIN", account, PASSWORD))
            self.assertEqual(c.sasl_reply.command, "903", c.tail(10))
            self.assertEqual(c.account, account)
            self.assertEqual(c.nick(), name, "Ergo renamed " + name)
            c.join("#hearts")
            out.append(c)
        return out

    def test_swap_through_a_temporary_nick_mid_trick(self):
        bot = self.start_bot()
        clients = self.people(4)
        _, begins = harness.start_table(clients, rules=qp.RULES)
        order = re.match(r"The game begins: (.*?)\. Rules", begins.text)
        seats = [n.strip() for n in order.group(1).split(",")]
        players = [Player(c) for c in clients]
        by_nick = {c.nick(): p for c, p in zip(clients, players)}
        swapped = {}

        def on_prompt(player, prompt):
            if swapped or prompt.trick_no != 1 or not prompt.leading:
                return harness.play_lowest(player, prompt)
            # the leader plays; the bot queues the next player's prompt
            # (milliseconds), which waits PACE_MS: meanwhile the next
            # player and the one after swap nicks
            player.play(harness.play_lowest(player, prompt))
            t0 = time.monotonic()
            time.sleep(0.4)
            i = seats.index(player.nick)
            x = by_nick[seats[(i + 1) % 4]]
            y = by_nick[seats[(i + 2) % 4]]
            xn, yn = x.nick, y.nick
            x.client.nick("tmp")
            y.client.nick(xn)
            x.client.nick(yn)
            swapped.update(x=x, y=y, xn=xn, yn=yn,
                           took=time.monotonic() - t0)
            return None

        def two_tricks():
            return max(qp.channel_tricks(clients[0]) or [0]) >= 2

        harness.play_game(players, two_tricks, timeout=150,
                          on_prompt=on_prompt)
        self.assertTrue(swapped)
        print("\n  %s and %s had swapped nicks %.2f s after the lead"
              % (swapped["xn"], swapped["yn"], swapped["took"]),
              file=sys.stderr)
        # long before the queued prompt could leave (PACE_MS)
        self.assertLess(swapped["took"], qp.PACE_MS / 1000.0 / 2)
        # Ergo: the account went with the connection, not the nick
        x, y = swapped["x"], swapped["y"]
        self.assertEqual(clients[0].whois_account(swapped["yn"]),
                         x.client.account)
        self.assertEqual(clients[0].whois_account(swapped["xn"]),
                         y.client.account)
        for p in players:
            self.assertIn(1, p.deals, p.nick)
            self.assert_own_cards(p, p.deals[1])
        # the prompt that waited when they swapped reached its person
        self.assertTrue(any(isinstance(ev, Prompt) and ev.trick_no == 1
                            and not ev.leading for ev in x.events),
                        x.client.tail(20))
        self.assert_no_trouble(players)
        for p in (x, y):
            self.assertGreaterEqual(len(p.played.get(1, [])), 2, p.nick)
            self.assertTrue(set(p.played[1]) <= set(p.deals[1]))
        moved = re.findall(r"\d+ queued line\(s\) for \S+ now go to \S+",
                           bot.log())
        self.assertTrue(moved, "the bot moved no queued line")
        print("  bot: " + "; ".join(moved), file=sys.stderr)
        self.assertEqual(bot.stop(), 0)

    # ngIRCd's scenario as it is, here with accounts: one person
    # (acct_ann) renames to you_again just after playing
    test_nick_change_just_after_playing = (
        qp.QueueFollowsPeopleTest.test_nick_change_just_after_playing)


if __name__ == "__main__":
    if not ERGO:
        print("test_irc_ergo: skipped: HEARTS_ERGO is not set (an Ergo "
              "binary; see the top of this file)", file=sys.stderr)
    harness.main()
