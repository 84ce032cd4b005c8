import { describe, expect, it } from "vitest";
import { checkRelayUrl, isLoopbackHost, relayUrlUsable } from "./relay-url";

const kind = (typed: string) => checkRelayUrl(typed).kind;

describe("relay URL check", () => {
  it("passes https, whatever the host", () => {
    expect(kind("https://relay.example.com"), "a named host").toBe("secure");
    expect(kind("https://203.0.113.7:8443/herald/"), "an address with a port and a path").toBe("secure");
    expect(kind("HTTPS://Relay.Example.com"), "the scheme in upper case").toBe("secure");
    expect(kind("  https://relay.example.com  "), "surrounding spaces").toBe("secure");
  });

  it("passes plain http on loopback", () => {
    for (const url of [
      "http://127.0.0.1:8457",
      "http://127.8.9.10/",
      "http://127.1",
      "http://0x7f.0.0.1",
      "http://2130706433",
      "http://[::1]:8457/herald",
      "http://[0:0:0:0:0:0:0:1]",
      "http://[::ffff:127.0.0.1]",
      "http://localhost:8457",
      "http://LOCALHOST",
      "http://localhost.:8457/",
      "HTTP://127.0.0.1",
    ]) {
      expect(kind(url), `${url} stays on this computer`).toBe("loopback");
    }
  });

  it("flags plain http to any other host", () => {
    for (const url of [
      "http://relay.example.com",
      "http://relay.example.com/path/to/relay",
      "Http://Relay.Example.com:80",
      "http://192.168.1.20:8457",
      "http://10.0.0.1",
      "http://128.0.0.1",
      "http://0.0.0.0:8457",
      "http://[::]",
      "http://[2001:db8::1]:8457",
      "http://[::ffff:192.168.1.2]",
      "http://localhost.example.com",
      "http://127.0.0.1.nip.io",
      "http://relay.localhost",
      "http://127.0.0.1@relay.example.com",
    ]) {
      expect(kind(url), `${url} leaves this computer in clear`).toBe("cleartext");
    }
  });

  it("names the host it judged", () => {
    expect(checkRelayUrl("http://Relay.Example.com:8080/x"), "the host as the parser reads it").toEqual({
      kind: "cleartext",
      host: "relay.example.com",
    });
    expect(checkRelayUrl("http://[::1]:8457"), "IPv6 keeps its brackets").toEqual({ kind: "loopback", host: "[::1]" });
  });

  it("refuses what is not an http(s) URL with a host", () => {
    for (const url of ["", "   ", "relay.example.com", "127.0.0.1:8457", "ftp://relay.example.com", "https://", "http://[::1", "file:///tmp/x"]) {
      expect(kind(url), `${JSON.stringify(url)} is not a relay URL`).toBe("invalid");
    }
  });

  it("knows loopback host names as URL.hostname gives them", () => {
    expect(isLoopbackHost("localhost"), "localhost").toBe(true);
    expect(isLoopbackHost("localhost."), "localhost with the root dot").toBe(true);
    expect(isLoopbackHost("127.255.255.255"), "the top of 127/8").toBe(true);
    expect(isLoopbackHost("[::1]"), "IPv6 loopback").toBe(true);
    expect(isLoopbackHost("[::ffff:7fff:ffff]"), "IPv4-mapped loopback").toBe(true);
    expect(isLoopbackHost("::1"), "IPv6 without its brackets is not a hostname URL gives").toBe(false);
    expect(isLoopbackHost("126.0.0.1"), "just below 127/8").toBe(false);
    expect(isLoopbackHost("localhost.."), "two dots is another name").toBe(false);
  });
});

describe("using a relay URL", () => {
  it("needs a cleartext URL accepted as typed now", () => {
    const url = "http://relay.example.com";
    expect(relayUrlUsable(url, null), "not before the person accepts it").toBe(false);
    expect(relayUrlUsable(url, url), "once accepted").toBe(true);
    expect(relayUrlUsable(` ${url} `, url), "spaces around it do not matter").toBe(true);
    expect(relayUrlUsable("http://relay.example.org", url), "another URL needs its own acceptance").toBe(false);
  });

  it("needs no acceptance for https or loopback, and never takes an invalid URL", () => {
    expect(relayUrlUsable("https://relay.example.com", null), "https").toBe(true);
    expect(relayUrlUsable("http://127.0.0.1:8457", null), "loopback http").toBe(true);
    expect(relayUrlUsable("relay.example.com", "relay.example.com"), "no scheme").toBe(false);
  });
});
