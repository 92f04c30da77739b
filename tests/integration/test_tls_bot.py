"""The real bot over TLS and with SASL, against ngIRCd and InspIRCd with
the test CA (testca.py) and InspIRCd linked to Anope (harness.py; the
servers alone are tested in test_tls_services.py).

- TLS with tls_ca_file = the test CA: the bot registers and joins on both
  servers, and the server sees a secure connection (WHOIS 275 / 671).
- A certificate for another name (wrong.example, the bot connecting to
  127.0.0.1) and a self-signed one are refused, and the bot's log says
  what was wrong with the certificate; it never registers.
- tls_verify = false takes the self-signed one, with a warning in the log.
- tls_cert_file / tls_key_file: the server sees the client certificate
  (WHOIS 276 shows its fingerprint), key apart or in the same file.
- SASL PLAIN and EXTERNAL against Anope: WHOIS 330 shows the bot's
  account; a wrong password with sasl_required = true stops the network
  with a clear log line and no reconnecting; with sasl_required = false
  the bot goes on without an account.
- A whole game over TLS with SASL, on the flood class of Debian's
  inspircd.conf, the bot at its default pacing: two people (one over TLS
  with SASL, one plain) and two computer players, one hand, to the end.
Run: /usr/bin/python3 tests/integration/test_tls_bot.py -v
"""

import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import HarnessTestCase, Player, play_game  # noqa: E402

# The bot's out-queue on an unthrottled ngIRCd: no need to pace.
FAST_IRC = {"flood_burst": 100, "flood_interval_ms": 100}
BOT_PASSWORD = "bot-pw-4e1a"


def tls_keys(server, cafile, **more):
    """The [[irc]] keys for the server's TLS port, verified with cafile."""
    keys = dict(port=server.tls_port, tls=True, tls_verify=True,
                tls_ca_file=cafile)
    keys.update(more)
    return keys


class BotTlsTest(HarnessTestCase):

    def start_bot(self, server, irc, **kw):
        return self.bot(harness.bot_config(
            server.port, os.path.join(self.tmpdir, "data"), irc=irc), **kw)

    def joins(self, server, irc, secure_numeric):
        """The bot joins #hearts over TLS; alice (plain) sees it there and
        WHOIS says it is on a secure connection. Returns (bot, alice)."""
        bot = self.start_bot(server, irc)
        bot.wait_log(r"joined #hearts", timeout=20)
        alice = self.client(server, "alice")
        alice.join("#hearts")
        alice.wait_member("heartsbot", "#hearts", timeout=10)
        whois = alice.whois("heartsbot")
        self.assertIn(secure_numeric, [m.command for m in whois],
                      [m.raw for m in whois])
        mark = alice.mark()
        alice.say("heartsbot", "help")
        alice.wait_privmsg("heartsbot", r".", since=mark, timeout=10)
        return bot, alice

    def test_ngircd_tls_verified_with_the_test_ca(self):
        ca = self.ca()
        server = self.ngircd(tls=True)
        bot, _ = self.joins(server, tls_keys(server, ca.ca_cert, **FAST_IRC),
                            "275")
        self.assertNotRegex(bot.log(), r"(?i)not (verified|checked)")
        self.assertEqual(bot.stop(), 0)

    def test_inspircd_tls_verified_with_the_test_ca(self):
        ca = self.ca()
        server = self.inspircd(tls=True, **harness.Inspircd.DEBIAN_CLASS)
        bot, _ = self.joins(server, tls_keys(server, ca.ca_cert), "671")
        self.assertEqual(bot.stop(), 0)

    def refused(self, server, cafile, problem):
        """The bot's TLS is refused: its log names the problem (a regex),
        and it never registers nor reaches the channel."""
        bot = self.start_bot(server, tls_keys(server, cafile, **FAST_IRC))
        bot.wait_log(r"(?i)local: .*(?:%s)" % problem, timeout=20)
        time.sleep(1)
        self.assertNotRegex(bot.log(), r"registered as|joined #hearts")
        alice = self.client(server, "alice")
        self.assertEqual([m.command for m in alice.whois("heartsbot")][:1],
                         ["401"])
        self.assertTrue(bot.alive(), bot.log()[-2000:])
        self.assertEqual(bot.stop(), 0)
        return bot

    def test_certificate_for_another_name_is_refused(self):
        ca = self.ca()
        server = self.ngircd(tls=True, tls_cert=ca.wrong_cert,
                             tls_key=ca.wrong_key)
        # curl with OpenSSL: "SSL: no alternative certificate subject name
        # matches target host name '127.0.0.1'"
        self.refused(server, ca.ca_cert,
                     r"(host ?name|subject name|does not match|"
                     r"doesn't match|mismatch)")

    def test_self_signed_certificate_is_refused(self):
        ca = self.ca()
        server = self.inspircd(tls=True, tls_cert=ca.self_cert,
                               tls_key=ca.self_key)
        # "SSL certificate problem: self-signed certificate"
        self.refused(server, ca.ca_cert, r"self[- ]signed|certificate problem")

    def test_verify_off_takes_a_self_signed_certificate_with_a_warning(self):
        ca = self.ca()
        server = self.ngircd(tls=True, tls_cert=ca.self_cert,
                             tls_key=ca.self_key)
        bot, _ = self.joins(server, tls_keys(server, "", tls_verify=False,
                                             **FAST_IRC), "275")
        line = bot.wait_log(r"(?im)^.*\bwarn.*local: .*(verif|certificate|"
                            r"check).*$", timeout=1).group(0)
        self.assertRegex(line, r"(?i)tls_verify|not (verified|checked)|"
                         r"without|\boff\b|disabled")
        self.assertEqual(bot.stop(), 0)

    def fingerprint_seen(self, server, cert, key, secure):
        ca = self.ca()
        _, alice = self.joins(server, tls_keys(
            server, ca.ca_cert, tls_cert_file=cert, tls_key_file=key,
            **FAST_IRC), secure)
        fp = [m.text for m in alice.whois("heartsbot") if m.command == "276"]
        self.assertEqual(len(fp), 1, fp)
        self.assertIn(ca.client_fingerprint, fp[0])

    def test_client_certificate_presented_key_apart(self):
        ca = self.ca()
        self.fingerprint_seen(self.inspircd(tls=True), ca.client_cert,
                              ca.client_key, "671")

    def test_client_certificate_presented_key_in_the_same_file(self):
        ca = self.ca()
        both = os.path.join(self.tmpdir, "client.pem")
        with open(both, "w") as out:
            for path in (ca.client_cert, ca.client_key):
                with open(path) as f:
                    out.write(f.read())
        # (ngIRCd shows a fingerprint only to its owner: InspIRCd here)
        self.fingerprint_seen(self.inspircd(tls=True), both, "", "671")


class BotSaslTest(HarnessTestCase):
    """InspIRCd (Debian's flood class) linked to Anope."""

    def setUp(self):
        super().setUp()
        self.server = self.inspircd(tls=True, services=True,
                                    **harness.Inspircd.DEBIAN_CLASS)

    def start_bot(self, irc):
        return self.bot(harness.bot_config(
            self.server.port, os.path.join(self.tmpdir, "data"), irc=irc))

    def logged_in(self, bot, account="heartsbot"):
        bot.wait_log(r"joined #hearts", timeout=20)
        alice = self.client(self.server, "alice")
        self.assertEqual(alice.whois_account("heartsbot"), account)
        return alice

    def test_sasl_plain_logs_in(self):
        self.account(self.server, "heartsbot", BOT_PASSWORD)
        bot = self.start_bot(dict(sasl_mechanism="plain",
                                  sasl_username="heartsbot",
                                  sasl_password=BOT_PASSWORD))
        self.logged_in(bot)
        self.assertNotIn(BOT_PASSWORD, bot.log())
        self.assertEqual(bot.stop(), 0)

    def test_sasl_plain_username_defaults_to_the_nick(self):
        self.account(self.server, "heartsbot", BOT_PASSWORD)
        bot = self.start_bot(dict(sasl_mechanism="plain", sasl_username="",
                                  sasl_password=BOT_PASSWORD))
        self.logged_in(bot)
        self.assertEqual(bot.stop(), 0)

    def test_sasl_external_with_the_client_certificate(self):
        ca = self.ca()
        # the account is "cardroom"; the bot's nick stays heartsbot
        self.account(self.server, "cardroom", BOT_PASSWORD, cert=True)
        bot = self.start_bot(tls_keys(
            self.server, ca.ca_cert, tls_cert_file=ca.client_cert,
            tls_key_file=ca.client_key, sasl_mechanism="external"))
        self.logged_in(bot, "cardroom")
        self.assertEqual(bot.stop(), 0)

    def test_wrong_password_required_stops_without_reconnecting(self):
        self.account(self.server, "heartsbot", BOT_PASSWORD)
        bot = self.start_bot(dict(sasl_mechanism="plain",
                                  sasl_password="not-" + BOT_PASSWORD,
                                  sasl_required=True))
        line = bot.wait_log(r"(?m)^.*SASL PLAIN failed.*$", timeout=20)
        self.assertIn("local", line.group(0))
        self.assertNotIn(BOT_PASSWORD, bot.log())
        # the first retry would come after 1 s (backoff.h), the next after
        # 2 s more: none comes
        time.sleep(4)
        log = bot.log()
        self.assertEqual(len(re.findall(r"local: connecting to", log)), 1,
                         log[-2000:])
        self.assertNotRegex(log, r"registered as|joined #hearts")
        alice = self.client(self.server, "alice")
        self.assertEqual([m.command for m in alice.whois("heartsbot")][:1],
                         ["401"])
        bot.stop()

    def test_wrong_password_not_required_goes_on_without_account(self):
        self.account(self.server, "heartsbot", BOT_PASSWORD)
        bot = self.start_bot(dict(sasl_mechanism="plain",
                                  sasl_password="not-" + BOT_PASSWORD,
                                  sasl_required=False))
        alice = self.logged_in(bot, None)
        self.assertRegex(bot.log(), r"SASL PLAIN failed")
        alice.join("#hearts")
        mark = alice.mark()
        alice.say("#hearts", "!status")
        alice.wait_privmsg("heartsbot", r".", since=mark, timeout=10)
        self.assertEqual(bot.stop(), 0)


class TlsSaslGameTest(HarnessTestCase):

    def test_whole_game_over_tls_with_sasl_on_debian_flood_class(self):
        """SLOW: one hand at the bot's default pace (about a line a
        second on InspIRCd)."""
        server = self.inspircd(tls=True, services=True,
                               **harness.Inspircd.DEBIAN_CLASS)
        ca = self.ca()
        self.account(server, "heartsbot", BOT_PASSWORD)
        self.account(server, "alice", "alice-pw")
        data = os.path.join(self.tmpdir, "data")
        # no flood_* key: the bot's own pacing
        bot = self.bot(harness.bot_config(
            server.port, data, bot={"colors": False},
            game={"turn_timeout": 3600, "next_hand_delay": 0},
            irc=tls_keys(server, ca.ca_cert, sasl_mechanism="plain",
                         sasl_password=BOT_PASSWORD)))
        bot.wait_log(r"joined #hearts", timeout=20)
        alice = self.client(server.tls_port, "alice", tls=True,
                            cafile=ca.ca_cert, caps=True,
                            sasl=("PLAIN", "alice", "alice-pw"))
        self.assertEqual(alice.sasl_reply.command, "903")
        bob = self.client(server, "bob")
        for c in (alice, bob):
            c.join("#hearts")
        self.assertEqual(alice.whois_account("heartsbot"), "heartsbot")
        start, begins = harness.start_table([alice, bob],
                                            "standard hands=1")
        # "alice, bob, bot1 (easy), bot2 (easy)": the record has no level
        seats = [re.sub(r" \(\w+\)$", "", seat) for seat in re.match(
            r"^The game begins: (.*?)\. Rules:",
            begins.text).group(1).split(", ")]
        self.assertEqual(len(seats), 4)
        self.assertTrue({"alice", "bob"} <= set(seats), seats)
        # the bot's lines to alice carry its account (account-tag)
        said = alice.privmsgs_from("heartsbot", since=start)
        self.assertTrue(said)
        self.assertEqual({m.account for m in said}, {"heartsbot"})

        players = [Player(alice), Player(bob)]
        over = play_game(
            players, lambda: alice.find(r"Game over!", frm="heartsbot",
                                        to="#hearts", since=start),
            timeout=240)
        bot.wait_log(r"game record written", timeout=15)
        records = harness.read_records(data)
        self.assertEqual(len(records), 1)
        self.assertEqual(records[0]["players"], seats)
        self.assertEqual(harness.parse_final(over.text),
                         dict(zip(records[0]["players"],
                                  records[0]["totals"])))
        for p in players:
            self.assertEqual(len(p.played.get(1, [])), 12, p.nick)
        log = bot.log()
        self.assertNotRegex(log, r"Excess Flood|disconnected")
        self.assertEqual(len(re.findall(r"registered as heartsbot", log)), 1)
        self.assertEqual(bot.stop(), 0)


if __name__ == "__main__":
    harness.main()
