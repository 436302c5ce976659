// The bookkeeping behind who may wait to join the session server (no sockets).
#include "app/transport/ConnectionAdmission.h"

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>

using namespace atrium::transport;

namespace {
const void* key(int i) { return reinterpret_cast<const void*>(std::uintptr_t(0x1000 + i)); }
} // namespace

TEST(ConnectionAdmission, OneAddressMayHoldOnlySoManyWaiting) {
    ConnectionAdmission a({5.0, 2, 100, 1000});
    for (int i = 0; i < 2; ++i) {
        ASSERT_EQ(a.admit(10 + i, "10.0.0.9").verdict, ConnectionAdmission::Verdict::Admit);
        a.opened(key(i), "10.0.0.9", 0.0);
    }
    EXPECT_EQ(a.admit(12, "10.0.0.9").verdict, ConnectionAdmission::Verdict::RefuseAddress);
    EXPECT_EQ(a.admit(12, "10.0.0.8").verdict, ConnectionAdmission::Verdict::Admit);
    a.joined(key(0)); // joining frees the place
    EXPECT_EQ(a.admit(12, "10.0.0.9").verdict, ConnectionAdmission::Verdict::Admit);
    EXPECT_EQ(a.waitingFrom("10.0.0.9"), 1u);
}

TEST(ConnectionAdmission, WhenFullTheLongestWaitingMakesRoomOnce) {
    ConnectionAdmission a({5.0, 10, 3, 1000});
    for (int i = 0; i < 3; ++i) a.opened(key(i), "10.0.0." + std::to_string(i), double(i));
    auto d = a.admit(20, "10.0.0.7");
    EXPECT_EQ(d.verdict, ConnectionAdmission::Verdict::Admit);
    EXPECT_EQ(d.evict, key(0));
    d = a.admit(21, "10.0.0.7"); // key(0) is on its way out: the next oldest goes
    EXPECT_EQ(d.evict, key(1));
    a.serving(key(2)); // a download is not cut to make room
    d = a.admit(22, "10.0.0.7");
    EXPECT_EQ(d.evict, nullptr);
}

TEST(ConnectionAdmission, ANearlyFullDescriptorTableRefusesAndFreesTheOldest) {
    ConnectionAdmission a({5.0, 10, 100, 50});
    a.opened(key(0), "10.0.0.1", 0.0);
    const auto d = a.admit(50, "10.0.0.2");
    EXPECT_EQ(d.verdict, ConnectionAdmission::Verdict::RefuseDescriptors);
    EXPECT_EQ(d.evict, key(0));
    EXPECT_EQ(a.admit(49, "10.0.0.2").verdict, ConnectionAdmission::Verdict::Admit);
}

TEST(ConnectionAdmission, ThoseWhoDoNotJoinInTimeAreReportedOnce) {
    ConnectionAdmission a({5.0, 10, 100, 1000});
    a.opened(key(0), "10.0.0.1", 0.0);
    a.opened(key(1), "10.0.0.1", 0.0);
    a.opened(key(2), "10.0.0.1", 3.0);
    a.upgraded(key(1), 7);
    a.serving(key(0));
    EXPECT_TRUE(a.expired(4.0).empty());
    const auto late = a.expired(5.5);
    ASSERT_EQ(late.size(), 1u); // key(0) is downloading, key(2) has time left
    EXPECT_EQ(late[0].key, key(1));
    EXPECT_EQ(late[0].connection, 7);
    EXPECT_TRUE(a.expired(6.0).empty());
    EXPECT_EQ(a.expired(9.0).size(), 1u); // key(2)
    a.closed(key(1));
    EXPECT_EQ(a.waiting(), 2u);
}

TEST(ConnectionAdmission, TheDescriptorBudgetKeepsAReserve) {
    const DescriptorBudget b = descriptorBudget();
    EXPECT_GT(b.limit, 0);
    EXPECT_LT(b.serverLimit, b.limit);
    EXPECT_LE(b.serverLimit, b.ceiling);
    EXPECT_LT(b.ceiling, b.limit);
}

TEST(LogThrottle, OneLinePerIntervalAndACountOfTheRest) {
    LogThrottle t(5.0);
    std::size_t held = 99;
    EXPECT_TRUE(t.allow(0.0, held));
    EXPECT_EQ(held, 0u);
    for (int i = 0; i < 1000; ++i) EXPECT_FALSE(t.allow(1.0 + i * 0.001, held));
    EXPECT_TRUE(t.allow(6.0, held));
    EXPECT_EQ(held, 1000u);
}

TEST(ConnectionAdmission, AnIPv6PeerCountsAgainstIts64Network) {
    auto v6 = [](const char* text) {
        sockaddr_storage s{};
        auto* a = reinterpret_cast<sockaddr_in6*>(&s);
        a->sin6_family = AF_INET6;
        EXPECT_EQ(inet_pton(AF_INET6, text, &a->sin6_addr), 1) << text;
        return addressGroup(s);
    };
    EXPECT_EQ(v6("2001:db8:1:2::1"), "2001:db8:1:2::/64");
    EXPECT_EQ(v6("2001:db8:1:2:aaaa:bbbb:cccc:dddd"), v6("2001:db8:1:2::1")); // one machine, many addresses
    EXPECT_NE(v6("2001:db8:1:3::1"), v6("2001:db8:1:2::1"));
    EXPECT_EQ(v6("::ffff:192.168.1.20"), "192.168.1.20"); // IPv4 on a dual-stack socket
    sockaddr_storage s{};
    auto* a = reinterpret_cast<sockaddr_in*>(&s);
    a->sin_family = AF_INET;
    inet_pton(AF_INET, "192.168.1.21", &a->sin_addr);
    EXPECT_EQ(addressGroup(s), "192.168.1.21");
}
