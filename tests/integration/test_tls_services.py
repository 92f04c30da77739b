"""The TLS and services test servers, without the bot: the test CA,
ngIRCd and InspIRCd on TLS, Anope linked to InspIRCd (NickServ accounts,
SASL PLAIN and EXTERNAL, CertFP) and the IRCv3 account tracking a bot
relies on (account-tag, account-notify, extended-join), all seen by the
harness's Python clients. If these pass, a failing bot test is the bot's.
"""

import os
import ssl
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import HarnessTestCase, WaitTimeout  # noqa: E402


class TlsTest(HarnessTestCase):
    """TLS ports of both servers with the test CA's certificates."""

    def check_tls(self, server, secure_numeric):
        ca = self.ca()
        alice = self.client(server.tls_port, "alice", tls=True,
                            cafile=ca.ca_cert)
        self.assertTrue(alice.sock.version().startswith("TLS"))
        plain = self.client(server, "bob")          # the plain port too
        plain.join("#t")
        alice.join("#t")
        mark = plain.mark()
        alice.say("#t", "over TLS")
        plain.wait_privmsg("alice", "^over TLS$", to="#t", since=mark)
        numerics = {m.command for m in plain.whois("alice")}
        self.assertIn(secure_numeric, numerics)
        self.assertNotIn(secure_numeric,
                         {m.command for m in alice.whois("bob")})

    def test_ngircd_tls_port_verified_with_the_test_ca(self):
        self.check_tls(self.ngircd(tls=True), "275")

    def test_inspircd_tls_port_verified_with_the_test_ca(self):
        self.check_tls(self.inspircd(tls=True), "671")

    def refused(self, server, hostname=None):
        ca = self.ca()
        with self.assertRaises(ssl.SSLCertVerificationError) as caught:
            harness.Client(server.tls_port, "alice", tls=True,
                           cafile=ca.ca_cert, server_hostname=hostname)
        return caught.exception

    def test_certificate_for_another_name_is_refused(self):
        ca = self.ca()
        server = self.ngircd(tls=True, tls_cert=ca.wrong_cert,
                             tls_key=ca.wrong_key)
        err = self.refused(server)
        self.assertIn("127.0.0.1", str(err))
        # the same certificate is good for the name it has (so it is the
        # name that was refused, not the issuer)
        alice = harness.Client(server.tls_port, "alice", tls=True,
                               cafile=ca.ca_cert,
                               server_hostname="wrong.example")
        alice.quit()

    def test_self_signed_certificate_is_refused(self):
        ca = self.ca()
        server = self.inspircd(tls=True, tls_cert=ca.self_cert,
                               tls_key=ca.self_key)
        err = self.refused(server)
        self.assertIn("self-signed", str(err))
        # and taken without verification (tls_verify = false)
        alice = harness.Client(server.tls_port, "alice", tls=True,
                               verify=False)
        alice.quit()

    def test_localhost_name_verifies_too(self):
        ca = self.ca()
        server = self.ngircd(tls=True)
        alice = harness.Client(server.tls_port, "alice", tls=True,
                               cafile=ca.ca_cert, server_hostname="localhost")
        alice.quit()

    def test_client_certificate_fingerprint_seen_by_both_servers(self):
        ca = self.ca()
        for server in (self.ngircd(tls=True), self.inspircd(tls=True)):
            alice = self.client(server.tls_port, "alice", tls=True,
                                cafile=ca.ca_cert, certfile=ca.client_cert,
                                keyfile=ca.client_key)
            fp = [m.text for m in alice.whois("alice") if m.command == "276"]
            self.assertEqual(len(fp), 1, fp)
            self.assertIn(ca.client_fingerprint, fp[0])
            alice.quit()


class NoServicesTest(HarnessTestCase):

    def test_ngircd_offers_none_of_the_account_caps(self):
        # an account-less server: the client asks, gets nothing, registers
        alice = self.client(self.ngircd(), "alice", caps=True,
                            sasl=("PLAIN", "alice", "pw"))
        self.assertNotIn("sasl", alice.offered_caps)
        self.assertEqual(alice.caps, set())
        self.assertIsNone(alice.sasl_reply)
        self.assertIsNone(alice.whois_account("alice"))


class ServicesTest(HarnessTestCase):
    """InspIRCd linked to Anope: accounts, SASL, account tracking."""

    def setUp(self):
        super().setUp()
        self.server = self.inspircd(tls=True, services=True)

    def test_caps_offered(self):
        alice = self.client(self.server, "alice", caps=True)
        for cap in ("sasl", "account-tag", "account-notify", "extended-join",
                    "message-tags", "server-time", "cap-notify"):
            self.assertIn(cap, alice.offered_caps)
        self.assertEqual(set(alice.offered_caps["sasl"].split(",")),
                         {"PLAIN", "EXTERNAL"})
        self.assertEqual(alice.caps, set(harness.CLIENT_CAPS))

    def test_nickserv_register_identify_logout(self):
        alice = self.client(self.server, "alice")
        alice.ns_register("secret1")
        self.assertEqual(alice.whois_account("alice"), "alice")
        alice.ns_logout()
        self.assertIsNone(alice.whois_account("alice"))
        alice.ns_identify("secret1")
        self.assertEqual(alice.whois_account("alice"), "alice")
        with self.assertRaises(WaitTimeout):
            alice.ns_identify("wrong", account="nobody")

    def test_sasl_plain(self):
        self.account(self.server, "alice", "secret1")
        good = self.client(self.server, "alice",
                           sasl=("PLAIN", "alice", "secret1"))
        self.assertEqual(good.sasl_reply.command, "903", good.tail())
        self.assertEqual(good.account, "alice")
        bad = self.client(self.server, "bob",
                          sasl=("PLAIN", "alice", "wrong"))
        self.assertEqual(bad.sasl_reply.command, "904", bad.tail())
        self.assertIsNone(bad.account)
        self.assertEqual(bad.whois_account("alice"), "alice")
        self.assertIsNone(bad.whois_account("bob"))   # went on without

    def test_sasl_external_with_a_registered_certificate(self):
        # registered over TLS with the client certificate, CERT ADD
        ca = self.ca()
        self.account(self.server, "alice", "secret1", cert=True)
        tls = dict(tls=True, cafile=ca.ca_cert)
        good = self.client(self.server.tls_port, "somenick",
                           certfile=ca.client_cert, keyfile=ca.client_key,
                           sasl=("EXTERNAL",), **tls)
        self.assertEqual(good.sasl_reply.command, "903", good.tail())
        self.assertEqual(good.account, "alice")
        self.assertEqual(good.whois_account("somenick"), "alice")
        nocert = self.client(self.server.tls_port, "other",
                             sasl=("EXTERNAL",), **tls)
        self.assertEqual(nocert.sasl_reply.command, "904", nocert.tail())

    def test_account_tag_on_privmsg(self):
        self.account(self.server, "alice", "secret1")
        alice = self.client(self.server, "alice", caps=True,
                            sasl=("PLAIN", "alice", "secret1"))
        bob = self.client(self.server, "bob", caps=True)
        mark = bob.mark()
        alice.say("bob", "hello")
        m = bob.wait_privmsg("alice", "^hello$", since=mark)
        self.assertEqual(m.account, "alice")
        self.assertIn("time", m.tags)                 # server-time
        mark = alice.mark()
        bob.say("alice", "hi")
        m = alice.wait_privmsg("bob", "^hi$", since=mark)
        self.assertIsNone(m.account)                  # bob has none

    def test_account_notify_and_extended_join(self):
        self.account(self.server, "alice", "secret1")
        bob = self.client(self.server, "bob", caps=True)
        bob.join("#hearts")
        alice = self.client(self.server, "alice", caps=True,
                            sasl=("PLAIN", "alice", "secret1"))
        mark = bob.mark()
        alice.join("#hearts")
        join = bob.wait_join("alice", "#hearts", since=mark)
        self.assertEqual(join.params[1:], ["alice", "test client alice"])
        # an account that logs out mid-game, and logs in again
        mark = bob.mark()
        alice.ns_logout()
        m = bob.wait_for(command="ACCOUNT", frm="alice", since=mark)
        self.assertEqual(m.params, ["*"])
        mark = bob.mark()
        alice.ns_identify("secret1")
        m = bob.wait_for(command="ACCOUNT", frm="alice", since=mark)
        self.assertEqual(m.params, ["alice"])

    def test_services_come_back_after_an_ircd_restart(self):
        self.account(self.server, "alice", "secret1")
        self.server.restart()
        alice = self.client(self.server, "alice",
                            sasl=("PLAIN", "alice", "secret1"))
        self.assertEqual(alice.sasl_reply.command, "903", alice.tail())


if __name__ == "__main__":
    harness.main()
