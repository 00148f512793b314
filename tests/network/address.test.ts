/** Address spellings and classes: every form a client may send is known for what it is. */
import { describe, expect, test } from "bun:test";
import {
  type AddressClass,
  classify,
  effectiveAddress,
  parseIpLiteral,
} from "../../src/network/address.ts";

describe("parseIpLiteral", () => {
  const spellings: [string, string | undefined][] = [
    ["127.0.0.1", "127.0.0.1"],
    ["127.1", "127.0.0.1"],
    ["127.0.1", "127.0.0.1"],
    ["0x7f.1", "127.0.0.1"],
    ["0x7F.0.0.1", "127.0.0.1"],
    ["0177.0.0.1", "127.0.0.1"],
    ["2130706433", "127.0.0.1"],
    ["0x7f000001", "127.0.0.1"],
    ["017700000001", "127.0.0.1"],
    ["127.0.0.1.", "127.0.0.1"],
    ["4294967295", "255.255.255.255"],
    ["0", "0.0.0.0"],
    ["169.254.169.254", "169.254.169.254"],
    ["0xa9fea9fe", "169.254.169.254"],
    ["::1", "::1"],
    ["[::1]", "::1"],
    ["0:0:0:0:0:0:0:1", "::1"],
    ["[::ffff:127.0.0.1]", "::ffff:7f00:1"],
    ["::FFFF:7F00:1", "::ffff:7f00:1"],
    ["fd00:ec2::254", "fd00:ec2::254"],
    ["[FE80::1]", "fe80::1"],
    // Not addresses: names, or nothing valid.
    ["example.com", undefined],
    ["localhost", undefined],
    ["1e1", undefined],
    ["08.1.1.1", undefined],
    ["999.1.1.1", undefined],
    ["4294967296", undefined],
    ["1.2.3.4.5", undefined],
    ["fe80::1%eth0", undefined],
    ["[::1", undefined],
    [":::", undefined],
    ["1:2:3:4:5:6:7:8:9", undefined],
    ["", undefined],
  ];
  test.each(spellings)("%p is %p", (text, expected) => {
    expect(parseIpLiteral(text)?.text).toBe(expected);
  });
});

describe("classify", () => {
  const classes: [string, AddressClass][] = [
    ["8.8.8.8", "public"],
    ["1.1.1.1", "public"],
    ["93.184.216.34", "public"],
    ["127.0.0.1", "loopback"],
    ["127.1", "loopback"],
    ["0x7f.1", "loopback"],
    ["2130706433", "loopback"],
    ["127.255.255.254", "loopback"],
    ["10.0.0.1", "private"],
    ["012.0.0.1", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["172.32.0.1", "public"],
    ["192.168.1.1", "private"],
    ["100.64.0.1", "cgnat"],
    ["100.127.255.255", "cgnat"],
    ["100.128.0.1", "public"],
    ["169.254.1.1", "link-local"],
    ["169.254.169.254", "metadata"],
    ["0xa9.0xfe.0xa9.0xfe", "metadata"],
    ["2852039166", "metadata"],
    ["168.63.129.16", "metadata"],
    ["0.0.0.0", "unspecified"],
    ["0.1.2.3", "unspecified"],
    ["224.0.0.1", "multicast"],
    ["239.255.255.250", "multicast"],
    ["255.255.255.255", "broadcast"],
    ["240.0.0.1", "reserved"],
    ["192.0.2.1", "documentation"],
    ["198.18.0.1", "reserved"],
    ["2606:4700:4700::1111", "public"],
    ["2001:4860:4860::8888", "public"],
    ["::1", "loopback"],
    ["::", "unspecified"],
    ["fe80::1", "link-local"],
    ["fc00::1", "private"],
    ["fd12:3456::1", "private"],
    ["fec0::1", "private"],
    ["fd00:ec2::254", "metadata"],
    ["ff02::1", "multicast"],
    ["2001:db8::1", "documentation"],
    ["2001::1", "reserved"],
    ["100::1", "reserved"],
    ["4000::1", "reserved"],
    // IPv6 forms that carry an IPv4 address count as that address.
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["[::ffff:169.254.169.254]", "metadata"],
    ["::ffff:10.1.2.3", "private"],
    ["::ffff:8.8.8.8", "public"],
    ["::ffff:0:127.0.0.1", "loopback"],
    ["::127.0.0.1", "loopback"],
    ["::10.0.0.1", "private"],
    ["64:ff9b::127.0.0.1", "loopback"],
    ["64:ff9b::a9fe:a9fe", "metadata"],
    ["64:ff9b::8.8.8.8", "public"],
    ["64:ff9b:1::1", "private"],
    ["2002:7f00:1::1", "loopback"],
    ["2002:c0a8:101::1", "private"],
  ];
  test.each(classes)("%p is %p", (text, expected) => {
    const address = parseIpLiteral(text);
    expect(address === undefined ? "unparsed" : classify(address)).toBe(expected);
  });

  test("an IPv6 form of an IPv4 address is that address for the rules", () => {
    const mapped = parseIpLiteral("::ffff:127.0.0.2");
    expect(mapped === undefined ? undefined : effectiveAddress(mapped).text).toBe("127.0.0.2");
  });
});
